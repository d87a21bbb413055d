import type { CurveMode, Mode, TraceParams } from './params.ts';
import type { FileFormat } from './write/index.ts';
import type { CutReport } from './check/cut-report.ts';

/** What the engine made of one image. */
export interface TraceResult {
  svg: string;
  /** Original pixel size, after EXIF orientation. */
  width: number;
  height: number;
  /** Anchor points over all paths of `svg`. */
  nodeCount: number;
  /** The file asked for by TraceRequest.format, written from the same geometry as `svg`. */
  file?: Uint8Array;
  /** Decode + trace + SVG (and file) writing, in milliseconds (integer). */
  processingTimeMs: number;
  /** The engine's own measure (0–1) of how closely `svg`, rendered, matches the image (check/fidelity.ts). */
  fidelity: number;
  /** What `auto` resolved to for this image (the kind finally kept, after any retrace). */
  chosen: { mode: Exclude<Mode, 'auto'> | 'pixelart' | 'logo'; curveMode: Exclude<CurveMode, 'auto'> };
  /** What the self-check found and did (for the benchmark and the logs; not part of the API). */
  check: CheckSummary;
  /** What a cutter or plotter meets in the file; when `unit` is not px or a preset was given. */
  report?: CutReport;
}

export interface CheckSummary {
  fidelity: number;
  /** Signatures of a destroyed result found on the first trace, and on the result kept. */
  signatures: readonly string[];
  remaining: readonly string[];
  retraced: boolean;
  /** Time spent tracing again, in milliseconds. */
  retraceMs: number;
  attempts: readonly { kind: string; curveMode: string; fidelity: number; timeMs: number; reason: string }[];
}

export interface TraceRequest {
  image: Buffer;
  params: TraceParams;
  /** A file to write besides the SVG; none for the JSON response. */
  format?: FileFormat;
  /** Paint the TEST watermark over the result, in every format (test keys; write/watermark.ts). */
  watermark?: boolean;
}

/**
 * Why a conversion failed, in terms the caller maps onto statuses:
 * - `invalid_image`: undecodable, truncated, unsupported or over the pixel limit (400);
 * - `engine_failed`: the tracer failed or crashed on a decodable image (502);
 * - `timeout`: the conversion exceeded its time limit (502);
 * - `queue_full`: no room in the queue (503);
 * - `closed`: the engine is shutting down (503).
 */
export type EngineErrorKind = 'invalid_image' | 'engine_failed' | 'timeout' | 'queue_full' | 'closed';

export class EngineError extends Error {
  constructor(
    readonly kind: EngineErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

/** The pool of worker processes seen from the rest of the service. */
export interface Engine {
  convert(request: TraceRequest): Promise<TraceResult>;
  /** Conversions running plus waiting. */
  load(): { running: number; queued: number; workers: number };
  close(): Promise<void>;
}

export interface EngineOptions {
  /** Worker processes; default: the number of cores. */
  workers: number;
  /** Conversions allowed to wait for a worker before `queue_full`. */
  queueLimit: number;
  /** Hard limit per conversion; the worker is killed past it. */
  timeoutMs: number;
  /** Decoder limit on width × height of the source image. */
  maxInputPixels: number;
}
