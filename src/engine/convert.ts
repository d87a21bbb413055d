// One conversion, in-process: decode → classify → prepare → trace → write SVG.
// The worker pool runs this in child processes; tests and the benchmark call it directly.

import { CLASSIFY_PIXELS, classifyImage, measureImage, type ImageKind, type ImageStats } from './analyse/classify.ts';
import { decodeImage, sniffFormat, type DecodedImage } from './analyse/decode.ts';
import { enhanceInput, fitToBudget, fitToPixels, DECODE_PIXELS, prepareWithinBudget, resizeTo, sketchUpscaleFactor, WORKING_PIXELS, type RgbaImage } from './analyse/prepare.ts';
import type { TraceParams } from './params.ts';
import { traceArtwork, type ArtworkTrace } from './trace/artwork.ts';
import { type Rgb, type TracedShape, type VectorImage, withoutDegenerateSubpaths, withStraightLines } from './geometry.ts';
import { fitInkOutlines, fitsInkOutlines, joinDiagonalInk, paintLineArt } from './trace/line-art.ts';
import { parseTracerSvg } from './trace/tracer-output.ts';
import { writeSvgDocument } from './write/svg.ts';
import { writeFile } from './write/index.ts';
import { cutOutImage } from './write/cutouts.ts';
import { withWatermark } from './write/watermark.ts';
import { restoreOpacity } from './paint/opacity.ts';
import { buildTracerConfig, decimalPlaces, resolveCurveMode, runTracer, type ResolvedCurveMode } from './trace/vtracer.ts';
import { EngineError, type TraceRequest, type TraceResult } from './types.ts';

export interface ConvertOptions {
  maxInputPixels: number;
  /** Trace as this kind whatever the image's statistics say (tests and benchmarks of one path). */
  kind?: ImageKind;
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
  const kind = options.kind ?? resolveKind(request.params, stats, decoded);
  // A kind traced larger than the first decode (line art, logos from JPEG) is decoded again at its size.
  const kindPixels = WORKING_PIXELS[kind];
  if (kindPixels > firstDecodePixels && decoded.width < decoded.originalWidth) {
    decoded = await decodeImage(request.image, { maxInputPixels: options.maxInputPixels, maxWorkingPixels: kindPixels });
  }

  // Large images are traced at the working size of their kind, and the SVG scaled back.
  const working = await fitToBudget(decoded, kind);
  const traced = await traceWorking(working, kind, request.params, decoded, stats);
  const image: VectorImage = {
    width: decoded.originalWidth,
    height: decoded.originalHeight,
    scaleX: decoded.originalWidth / traced.width,
    scaleY: decoded.originalHeight / traced.height,
    background: traced.background,
    shapes: traced.shapes,
  };
  // Line art traced upscaled has its stroke edges at sub-pixel positions: where pathPrecision would
  // round coarser than a traced pixel, it gets a digit more. Strokes two or three pixels wide
  // otherwise lose up to a pixel of their width (the pencil drawing at full resolution: SSIM 0.824
  // at whole pixels, 0.841 at 0.1 px; Potrace 0.836).
  let decimals = decimalPlaces(request.params.pathPrecision, Math.max(decoded.originalWidth, decoded.originalHeight));
  if (kind === 'sketch' && 10 ** -decimals > 1 / (traced.upscale ?? 1)) decimals += 1;
  // Output options and the requested file format, all from the same model.
  const cutouts = request.params.stacking === 'cutouts';
  const written = withoutDegenerateSubpaths(withStraightLines(image, decimals), decimals);
  const shaped = cutouts ? withoutDegenerateSubpaths(cutOutImage(written, decimals), decimals) : written;
  // A test key's result: the watermark joins the model, so every format carries it.
  const output = request.watermark ? withWatermark(shaped) : shaped;
  const { svg, nodeCount } = writeSvgDocument(output, decimals, { groupBy: request.params.groupBy, disjoint: cutouts });
  const file = request.format ? await writeFile(request.format, output, svg, decimals) : undefined;

  return {
    ...(file ? { file } : {}),
    svg,
    width: decoded.originalWidth,
    height: decoded.originalHeight,
    nodeCount,
    processingTimeMs: Math.round(performance.now() - started),
    chosen: { mode: kind, curveMode: traced.curveMode },
  };
}

interface TracedPicture {
  shapes: TracedShape[];
  /** Size of the grid traced: the shapes' coordinates are in its pixels. */
  width: number;
  height: number;
  background?: Rgb;
  curveMode: ResolvedCurveMode;
  /** Traced pixels per working pixel of line art traced upscaled (1 otherwise). */
  upscale?: number;
}

/**
 * Artwork goes the artwork path (artwork.ts: regions, gradients, edges from the anti-aliasing),
 * except dense artwork (maps, charts: finer detail than a reduced segmentation grid keeps), which
 * is traced pixel-exact from its palette like the other kinds.
 */
async function traceWorking(working: RgbaImage, kind: ImageKind, params: TraceParams, decoded: DecodedImage, stats: ImageStats): Promise<TracedPicture> {
  if (kind === 'logo') {
    const curveMode = resolveCurveMode(params.curveMode, 'logo', false);
    const artwork = await traceArtworkOrFail(working, params, curveMode);
    if (artwork) return { ...artwork, curveMode };
  }
  const native = decoded.width === decoded.originalWidth;
  const sketchUpscale = kind === 'sketch' && native ? sketchUpscaleFactor(working.width * working.height) : 1;
  const source = params.inputEnhance && kind !== 'logo' ? await enhanceInput(working, kind) : working;
  const prepared = await prepareWithinBudget(source, kind, params.colorPrecision, sketchUpscale, params.inputEnhance);
  const workingScale = prepared.width / decoded.originalWidth;
  const curveMode = resolveCurveMode(params.curveMode, kind, prepared.dense);
  // Ink on its own pixel grid: exact pixel outlines from the tracer, fitted here (line-art.ts).
  const ownInkFit = kind === 'sketch' && fitsInkOutlines(curveMode, sketchUpscale);
  const config = buildTracerConfig(params, { kind, curveMode, workingScale, dense: prepared.dense, exactOutlines: ownInkFit });

  let tracerSvg: string;
  try {
    tracerSvg = await runTracer(prepared.rgba, prepared.width, prepared.height, config);
  } catch (error) {
    try {
      // Binary tracing fails on some ink whose pixels touch only at corners (line-art.ts).
      if (kind !== 'sketch') throw error;
      tracerSvg = await runTracer(joinDiagonalInk(prepared.rgba, prepared.width, prepared.height), prepared.width, prepared.height, config);
    } catch {
      throw new EngineError('engine_failed', `the tracer failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  let shapes: TracedShape[];
  try {
    shapes = parseTracerSvg(tracerSvg, STRAIGHT_TOLERANCE);
  } catch (error) {
    throw new EngineError('engine_failed', `the tracer wrote unreadable SVG: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (ownInkFit) fitInkOutlines(shapes, params);
  // Line art is opaque ink in the ink's colour, on one or two papers; colour shapes get their opacity back.
  if (kind === 'sketch') shapes = await paintLineArt(shapes, prepared, sketchUpscale, config, STRAIGHT_TOLERANCE);
  if (kind !== 'sketch' && stats.partialAlphaShare > 0.005) restoreOpacity(shapes, await resizeTo(source, prepared.width, prepared.height));
  return { shapes, width: prepared.width, height: prepared.height, background: prepared.background, curveMode, upscale: sketchUpscale };
}

async function traceArtworkOrFail(working: RgbaImage, params: TraceParams, curveMode: ResolvedCurveMode): Promise<ArtworkTrace | null> {
  try {
    return await traceArtwork(working, params, curveMode);
  } catch (error) {
    throw new EngineError('engine_failed', `the tracer failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
