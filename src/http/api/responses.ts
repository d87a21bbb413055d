// The API's JSON bodies, in the snake_case its OpenAPI document (schemas.ts) describes: the
// domain keeps its own camelCase types, and this is the one place they are renamed. The
// converter's browser script imports these types too, so the page and the API cannot drift.
import type { CutReport } from '../../engine/check/cut-report.ts';
import type { TraceParams } from '../../engine/params.ts';
import type { TraceResult } from '../../engine/types.ts';
import type { ConversionRecord } from '../../conversion/records.ts';
import type { Conversion } from '../../conversion/vectorize.ts';

/** The body of POST /api/v1/vectorize (and of POST /try asked for JSON). */
export interface VectorizeResponse {
  id: string;
  svg: string;
  width: number;
  height: number;
  node_count: number;
  processing_time_ms: number;
  /** The engine's measure (0–1) of how closely the SVG, rendered, matches the image (docs/engine.md). */
  fidelity: number;
  credits_remaining: number | null;
  /** Present (true) only when made with a test key: free, watermarked. */
  test?: true;
  /** When `unit` is not px or a preset was given (issue 19). */
  report?: CutReport;
}

export function vectorizeResponse(conversion: Conversion): VectorizeResponse {
  return {
    id: conversion.id,
    svg: conversion.svg,
    width: conversion.width,
    height: conversion.height,
    node_count: conversion.nodeCount,
    processing_time_ms: conversion.processingTimeMs,
    fidelity: conversion.fidelity,
    credits_remaining: conversion.creditsRemaining,
    ...(conversion.test ? { test: true as const } : {}),
    ...(conversion.report ? { report: conversion.report } : {}),
  };
}

export const RESULT_NOTE =
  'Metadata only: the full SVG is returned only in the response of POST /api/v1/vectorize and is not stored; this endpoint does not return SVG content.';

/** The body of GET /api/v1/result/{id}. */
export interface ResultResponse {
  id: string;
  original_name: string;
  file_size: number;
  created_at: string;
  note: string;
  width: number;
  height: number;
  node_count: number;
  processing_time_ms: number;
  /** Null for records older than the measure. */
  fidelity: number | null;
  params: TraceParams;
  resolved: TraceResult['chosen'];
  /** Present (true) only when made with a test key (free, watermarked). */
  test?: true;
  /** Present when the conversion had a cut report (`unit` not px, or a preset). */
  report?: CutReport;
}

export function resultResponse(record: ConversionRecord): ResultResponse {
  return {
    id: record.id,
    original_name: record.originalName,
    file_size: record.fileSize,
    created_at: new Date(record.createdAt).toISOString(),
    note: RESULT_NOTE,
    width: record.width,
    height: record.height,
    node_count: record.nodeCount,
    processing_time_ms: record.processingTimeMs,
    fidelity: record.fidelity,
    params: record.params,
    resolved: record.resolved,
    ...(record.test ? { test: true as const } : {}),
    ...(record.report ? { report: record.report } : {}),
  };
}
