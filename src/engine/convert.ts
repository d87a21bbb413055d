// One conversion, in-process: decode → classify → prepare → trace → write SVG.
// The worker pool runs this in child processes; tests and the benchmark call it directly.

import { CLASSIFY_PIXELS, classifyImage, measureImage, type ImageKind, type ImageStats } from './classify.ts';
import { decodeImage, sniffFormat, type DecodedImage } from './decode.ts';
import { enhanceInput, fitToBudget, fitToPixels, DECODE_PIXELS, prepareWithinBudget, resizeTo, sketchUpscaleFactor, WORKING_PIXELS } from './prepare.ts';
import type { TraceParams } from './params.ts';
import type { TracedShape, VectorImage } from './geometry.ts';
import { paintLineArt } from './line-art.ts';
import { parseTracerSvg } from './tracer-output.ts';
import { writeSvgDocument } from './writers/svg.ts';
import { restoreOpacity } from './opacity.ts';
import { buildTracerConfig, decimalPlaces, resolveCurveMode, runTracer } from './trace.ts';
import { EngineError, type TraceRequest, type TraceResult } from './types.ts';

export interface ConvertOptions {
  maxInputPixels: number;
}

/** Control points closer than this (working pixels) to the chord make a cubic a line. */
const STRAIGHT_TOLERANCE = 0.15;

export function resolveKind(params: TraceParams, stats: ImageStats, decoded: DecodedImage): ImageKind {
  if (params.mode === 'sketch') return 'sketch';
  if (params.mode === 'photo') return 'photo';
  return classifyImage(stats, decoded);
}

export async function convertImage(request: TraceRequest, options: ConvertOptions): Promise<TraceResult> {
  const started = performance.now();
  // JPEGs are mostly photos and decode cheaply at reduced size (shrink-on-load), so they start
  // small; PNG and WebP start at the logo size, since decoding them twice costs more.
  const firstDecodePixels = sniffFormat(request.image) === 'jpeg' ? WORKING_PIXELS.photo : DECODE_PIXELS;
  let decoded = await decodeImage(request.image, {
    maxInputPixels: options.maxInputPixels,
    maxWorkingPixels: firstDecodePixels,
  });
  const sample = await fitToPixels(decoded, CLASSIFY_PIXELS);
  const stats = measureImage(sample.rgba, sample.width, sample.height);
  const kind = resolveKind(request.params, stats, decoded);
  // A kind traced larger than the first decode (line art, logos from JPEG) is decoded again at its size.
  const kindPixels = WORKING_PIXELS[kind];
  if (kindPixels > firstDecodePixels && decoded.width < decoded.originalWidth) {
    decoded = await decodeImage(request.image, { maxInputPixels: options.maxInputPixels, maxWorkingPixels: kindPixels });
  }

  // Large images are traced at the working size of their kind, and the SVG scaled back.
  const working = await fitToBudget(decoded, kind);
  const native = decoded.width === decoded.originalWidth;
  const sketchUpscale = kind === 'sketch' && native ? sketchUpscaleFactor(working.width * working.height) : 1;
  const source = request.params.inputEnhance ? await enhanceInput(working, kind) : working;
  const prepared = await prepareWithinBudget(source, kind, request.params.colorPrecision, sketchUpscale, request.params.inputEnhance);
  const workingScale = prepared.width / decoded.originalWidth;
  const curveMode = resolveCurveMode(request.params.curveMode, kind, prepared.dense);
  const config = buildTracerConfig(request.params, { kind, curveMode, workingScale, dense: prepared.dense });

  let tracerSvg: string;
  try {
    tracerSvg = await runTracer(prepared.rgba, prepared.width, prepared.height, config);
  } catch (error) {
    throw new EngineError('engine_failed', `the tracer failed: ${error instanceof Error ? error.message : String(error)}`);
  }

  let shapes: TracedShape[];
  try {
    shapes = parseTracerSvg(tracerSvg, STRAIGHT_TOLERANCE);
  } catch (error) {
    throw new EngineError('engine_failed', `the tracer wrote unreadable SVG: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Line art is opaque ink in the ink's colour, on one or two papers; colour shapes get their opacity back.
  if (kind === 'sketch') shapes = await paintLineArt(shapes, prepared, sketchUpscale, config, STRAIGHT_TOLERANCE);
  if (kind !== 'sketch' && stats.partialAlphaShare > 0.005) restoreOpacity(shapes, await resizeTo(source, prepared.width, prepared.height));

  const image: VectorImage = {
    width: decoded.originalWidth,
    height: decoded.originalHeight,
    scaleX: decoded.originalWidth / prepared.width,
    scaleY: decoded.originalHeight / prepared.height,
    background: prepared.background,
    shapes,
  };
  // Line art traced upscaled has its stroke edges at sub-pixel positions: where pathPrecision would
  // round coarser than a traced pixel, it gets a digit more. Strokes two or three pixels wide
  // otherwise lose up to a pixel of their width (the pencil drawing at full resolution: SSIM 0.824
  // at whole pixels, 0.841 at 0.1 px; Potrace 0.836).
  let decimals = decimalPlaces(request.params.pathPrecision, Math.max(decoded.originalWidth, decoded.originalHeight));
  if (kind === 'sketch' && 10 ** -decimals > 1 / sketchUpscale) decimals += 1;
  const { svg, nodeCount } = writeSvgDocument(image, decimals);

  return {
    svg,
    width: decoded.originalWidth,
    height: decoded.originalHeight,
    nodeCount,
    processingTimeMs: Math.round(performance.now() - started),
    chosen: { mode: kind, curveMode },
  };
}
