// One conversion, in-process: decode → classify → trace → write → check, and trace again another
// way when the check finds a destroyed result. The worker pool runs this in child processes;
// tests and the benchmark call it directly.

import { blockCorners, blockSize, CLASSIFY_PIXELS, classifyImage, doubtfulAlternative, type Doubt, hasPixelGrid, largerThanIcon, mayBeInk, measureImage, photoByElimination, RULES, withOwnPixelEvidence, type ImageKind, type ImageStats } from './analyse/classify.ts';
import sharp from 'sharp';
import { decodeImage, hasFewColours, sniffFormat, workingSize, type DecodedImage } from './analyse/decode.ts';
import { pixelWords } from './analyse/palette.ts';
import { stretchAlpha, translucentOpacity } from './analyse/translucency.ts';
import { enhanceInput, fitToPixels, DECODE_PIXELS, prepareWithinBudget, resizeTo, sketchUpscaleFactor, splitTranslucentPixels, workingPixelsFor, WORKING_PIXELS, type RgbaImage } from './analyse/prepare.ts';
import type { CurveMode, TraceParams } from './params.ts';
import { SECOND_OPINION_SEGMENT_PIXELS, traceArtwork, type ArtworkTrace } from './trace/artwork.ts';
import { flat, scaledShape, type Rgb, type TracedShape, type VectorImage, withoutDegenerateSubpaths, withStraightLines } from './geometry.ts';
import { fitInkOutlines, fitsInkOutlines, paintLineArt, paperIslandsOf, spotColourLineArt, traceInkAgain, traceInkLayers } from './trace/line-art.ts';
import { parseTracerSvg } from './trace/tracer-output.ts';
import { tileEdges, tracedInTiles, traceInTiles } from './trace/tiles.ts';
import { roundPolygons } from './trace/rounded.ts';
import { findPoints, pointShapes } from './trace/points.ts';
import { writeSvgDocument } from './write/svg.ts';
import { writeFile } from './write/index.ts';
import { cutOutImage, cutOutTraced } from './write/cutouts.ts';
import { alphaBands } from './paint/alpha-bands.ts';
import { withWatermark } from './write/watermark.ts';
import { flatTranslucency, paintTranslucentPixels, restoreOpacity } from './paint/opacity.ts';
import { shadeLargeShapes } from './paint/shading.ts';
import { binariseAlpha, buildTracerConfig, decimalPlaces, plainTracerConfig, resolveCurveMode, runTracer, type ResolvedCurveMode } from './trace/vtracer.ts';
import { checkSvg, type CheckReference, type CheckReport } from './check/check.ts';
import { DETAIL_PALETTE_COST, finerPlan, INKS_MARGIN_ON_DIGITAL_PAGE, inksPlan, LOGO_COST, otherKindPlan, palettePlan, plainPlan, RETRACE_START_BEFORE_MS, retraceFitsInTime, retracePlans, TONE_MARGIN, tonePlan, type TracePlan } from './check/retrace.ts';
import { detailFidelity, detailReference, type DetailReference } from './check/detail.ts';
import { startWorkClock, type WorkClock } from './check/work-clock.ts';
import { EngineError, type TraceRequest, type TraceResult } from './types.ts';
import { spotColourRequest, type SpotColourRequest } from './paint/spot-colours.ts';
import { spotColourRegions, traceSpotColours } from './trace/spot-colours.ts';
import { CENTERLINE_PIXELS, traceCenterline } from './trace/centerline.ts';
import { removeNarrowFeatures } from './write/min-feature.ts';
import { cutReport } from './check/cut-report.ts';
import { pixelsPerUnit, type PhysicalSize } from './write/page.ts';

export interface ConvertOptions {
  maxInputPixels: number;
  /** Trace as this kind whatever the image's statistics say (tests and benchmarks of one path). */
  kind?: ImageKind;
  /** Skip tracing again when the check finds a destroyed result (tests of the first trace alone). */
  noRetrace?: boolean;
  /** Skip the signatures' other ways, keeping the plain trace's comparison (tests of the fail-safe alone). */
  onlyPlainRetrace?: boolean;
  /** Start every retrace whatever the time taken so far (tests of what a retrace does, on a busy machine). */
  untimed?: boolean;
  /** The clock the retraces' time limits read (check/work-clock.ts); tests pass a busy machine's. */
  startClock?: () => WorkClock;
}

/** Control points closer than this (working pixels) to the chord make a cubic a line. */
const STRAIGHT_TOLERANCE = 0.15;
/**
 * A photo traced at less than this many working pixels per original pixel (along a side) gets
 * rounded outlines: from here on, its polygons' steps and one-pixel patches show at 100 %.
 */
const ROUND_BELOW_SCALE = 0.75;
/** The self-check compares at most this many pixels: enough for an eye or a letter to count. */
export const CHECK_PIXELS = 250_000;
/** A retrace replaces the first result only when its fidelity is higher by at least this. */
const RETRACE_MARGIN = 0.005;
/**
 * Flat regions replace soft edges only when their fidelity is higher by more than this. The
 * check compares at the image's own size, where a fade cut into bands one pixel wide each is
 * nearly exact; shown larger, the bands are what a person sees (a tile's soft shadow drawn under
 * a blur: 0.958 against the bands' 0.968 at 64 px; the bands show as rings at 512).
 */
const SOFT_EDGE_MARGIN = 0.015;
/**
 * The plain trace replaces the engine's only when its fidelity is higher by at least this: it
 * costs more bytes and its curves are rougher, so a tie goes to the engine's own.
 */
const PLAIN_MARGIN = 0.01;
/**
 * Artwork traced from its palette replaces its regions' trace only when its fidelity is higher by
 * at least this: its outlines are rougher and its gradients banded, which the score barely sees (a
 * glossy penguin halved: 0.786 in regions, 0.800 from the palette, lumpy and striped; a map halved:
 * 0.708 and 0.862, its labels back).
 */
const PALETTE_MARGIN = 0.03;
/**
 * The plain trace works on at most the check's pixels: the check can tell nothing finer, and the
 * tracer alone on a dense etching of 1 MP takes 15 s.
 */
const PLAIN_PIXELS = CHECK_PIXELS;
/**
 * An icon's pieces and holes narrower than this (original pixels) are dropped before it is
 * written: slivers the segmentation leaves between two regions (a cheek's gradient as two
 * triangles 0.15 px thick) draw nothing at 1×, and a line across the face at the 512 px an icon is
 * shown at. A piece that thin changes no pixel by more than a fifth of its contrast, so nothing
 * seen at 1× is lost. Larger images are not shown that enlarged, and measuring every piece of a
 * photograph would cost more than the slivers do.
 */
const ICON_SLIVER_WIDTH = 0.2;


export function resolveKind(params: TraceParams, stats: ImageStats, decoded: DecodedImage): ImageKind {
  // Centerline traces ink, whatever the picture: lines are what it draws.
  if (params.centerline || params.mode === 'sketch') return 'sketch';
  if (params.mode === 'photo') return 'photo';
  return classifyImage(stats, decoded);
}

/** The image as decoded and measured once, shared by every attempt at tracing it. */
interface AnalysedImage {
  bytes: Buffer;
  first: DecodedImage;
  firstDecodePixels: number;
  /** Larger decodes, by their pixel budget, made when a kind is traced larger than the first decode. */
  larger: Map<number, DecodedImage>;
  stats: ImageStats;
  kind: ImageKind;
  /** A second kind the statistics leave in doubt (mode auto only): both are traced, the check keeps one. */
  doubt?: Doubt;
  /** The first decode at its own grid, when it is a whole enlargement by whole factors. */
  ownGrid?: RgbaImage;
  maxInputPixels: number;
  /**
   * Artwork translucent as a whole: every decode has its alpha stretched by this opacity
   * (analyse/translucency.ts), and the drawing is given it back once it is traced.
   */
  opacity?: number;
}

/** One way of tracing the image, written and checked. */
interface Attempt {
  plan: TracePlan;
  curveMode: ResolvedCurveMode;
  output: VectorImage;
  decimals: number;
  svg: string;
  nodeCount: number;
  /** Pieces and holes minFeature removed. */
  removed: number;
  /** Traced by its regions (the artwork path), not from its palette. */
  tracedRegions: boolean;
  /** Line art painted in several inks, and whether on a digital page. */
  severalInks: boolean;
  digitalPage: boolean;
  check: CheckReport;
  timeMs: number;
  /** timeMs as the retraces' time limits count it (check/work-clock.ts). */
  workMs: number;
  /** The same trace with its soft edges flat, written and checked (reason `soft-edges`). */
  alternative?: Attempt;
}

export async function convertImage(request: TraceRequest, options: ConvertOptions): Promise<TraceResult> {
  const started = performance.now();
  const startClock = options.startClock ?? startWorkClock;
  const clock = startClock();
  const image = await analyse(request, options);
  // An enlargement is compared at its own grid, where the source is exact: reduced with Lanczos,
  // its blocks' edges ring where resvg draws them crisp, and a trace exact to the pixel scored 0.90.
  const reference = await checkReference(image.ownGrid ?? image.first, checkPixelsFor(image.kind));
  const attempts: Attempt[] = [];
  let best = settle(await attempt(image, { kind: image.kind }, request.params, reference, startClock), attempts);
  let retraceMs = 0;
  /** Whether a retrace may start now (retraceFitsInTime). */
  const fitsInTime = (plan: TracePlan): boolean => options.untimed === true || retraceFitsInTime(plan, clock.elapsedMs(), (attempts[0] as Attempt).workMs);
  /**
   * Another way of tracing, timed apart; kept when it scores higher by `margin` and passes `keeps`.
   * A failed attempt is skipped.
   */
  const retrace = async (plan: TracePlan, margin = RETRACE_MARGIN, keeps: (candidate: Attempt) => boolean = () => true): Promise<void> => {
    const retraceStarted = performance.now();
    const traced = await attempt(image, plan, request.params, reference, startClock).catch(() => undefined);
    retraceMs += performance.now() - retraceStarted;
    if (!traced) return;
    const candidate = settle(traced, attempts);
    if (candidate.check.fidelity > best.check.fidelity + margin && keeps(candidate)) best = candidate;
  };
  // The kind the classifier is in doubt about, within the retraces' time limits: after a slow
  // first trace, a second that would end past them is not started.
  const doubt: TracePlan | undefined = image.doubt ? { kind: image.doubt.kind, reason: 'doubt', costFactor: image.doubt.kind === 'logo' ? LOGO_COST : 1 } : undefined;
  if (doubt && image.doubt && fitsInTime(doubt)) await retrace(doubt, image.doubt.margin);
  /** A trace coarser than the decode must also draw the most detailed crop at the image's own scale as well as the best so far. */
  const keepsDetailOfBest = (candidate: Attempt): boolean => keepsDetail(candidate, best, largestDecode(image));
  // Centerline and spot colours are a rendering asked for, not a guess to improve on: they are
  // not traced again another way (the check compares with the picture, paper and shading included).
  const asked = request.params.centerline || spotColourRequest(request.params) !== undefined;
  const otherWays = !options.noRetrace && !options.onlyPlainRetrace && !asked;
  if (otherWays && best.check.signatures.length > 0) {
    for (const plan of retracePlans(best.check.signatures, best.plan, image.stats, request.params, image.first)) {
      if (!fitsInTime(plan)) break;
      await retrace(plan);
      if (best.check.signatures.length === 0) break;
    }
  }
  // Ink in several inks: artwork too, which keeps what ink has no layer for (a shaded ground, a
  // coloured graphic); on a digital page, whose fills ink draws, only if artwork wins clearly.
  const triedAlready = (plan: TracePlan) => attempts.some((a) => a.plan.kind === plan.kind && a.plan.workingPixels === plan.workingPixels && a.plan.path === plan.path);
  const inks = otherWays ? inksPlan(best.plan, best.severalInks, request.params) : undefined;
  if (inks && !triedAlready(inks) && fitsInTime(inks)) await retrace(inks, best.digitalPage ? INKS_MARGIN_ON_DIGITAL_PAGE : RETRACE_MARGIN);
  // A result that has lost much of the picture, traced below the image's own size: its kind finer first.
  const finer = otherWays ? finerPlan(best.plan, best.check.fidelity, image.first.originalWidth * image.first.originalHeight) : undefined;
  // Artwork whose regions score low, or lose the detail of its own scale: traced from its palette,
  // which keeps detail finer than its regions. Kept for lost detail only if it draws that detail better.
  // The crop is measured only where its retrace could still start.
  let regionsDetail: { reference: DetailReference; fidelity: number } | undefined;
  const measureDetail = (): number | undefined => {
    if (!fitsInTime({ kind: 'logo', costFactor: DETAIL_PALETTE_COST })) return undefined;
    const reference = detailReference(largestDecode(image), CHECK_PIXELS);
    regionsDetail = reference ? { reference, fidelity: detailFidelity(best.svg, reference) } : undefined;
    return regionsDetail?.fidelity;
  };
  const palette = otherWays ? palettePlan(best.plan, best.check.fidelity, best.tracedRegions, image.first, measureDetail) : undefined;
  if (palette && !triedAlready(palette) && fitsInTime(palette)) {
    const lost = palette.reason === 'detail' ? regionsDetail : undefined;
    if (lost) await retrace(palette, RETRACE_MARGIN, (candidate) => detailFidelity(candidate.svg, lost.reference) > lost.fidelity);
    else await retrace(palette, PALETTE_MARGIN);
  }
  if (finer && !triedAlready(finer) && fitsInTime(finer)) await retrace(finer);
  // Ink scoring that low may have lost the picture's tones: the photograph's path, if it keeps the
  // detail too and wins clearly (a low score alone is no evidence against ink).
  const tones = otherWays ? tonePlan(best.plan, best.check.fidelity, request.params) : undefined;
  if (tones && !triedAlready(tones) && fitsInTime(tones)) await retrace(tones, TONE_MARGIN, keepsDetailOfBest);
  // A photograph or artwork scoring that low may be the other kind.
  const other = otherWays ? otherKindPlan(best.plan, best.check.fidelity, request.params) : undefined;
  if (other && !triedAlready(other) && fitsInTime(other)) await retrace(other, other.kind === 'logo' ? RULES.fallThrough.minLogoGain : RETRACE_MARGIN);
  // Fail safe: a result whose first trace lost much of the picture is held against the tracer's own
  // plain trace, even where another way won part of it back (the best scores at least the first).
  const firstFidelity = (attempts[0] as Attempt).check.fidelity;
  const plain = options.noRetrace || asked ? undefined : plainPlan(best.plan, firstFidelity, request.params);
  if (plain && (options.untimed === true || clock.elapsedMs() < RETRACE_START_BEFORE_MS)) await retrace(plain, PLAIN_MARGIN, keepsDetailOfBest);
  // A test key's result: the watermark joins the model after the check (fidelity is the trace's),
  // so every format carries it.
  const page = pageOf(request.params);
  const traced = image.opacity === undefined ? best.output : { ...best.output, opacity: image.opacity };
  const output = request.watermark ? withWatermark(traced) : traced;
  const written = output !== best.output ? writeSvgDocument(output, best.decimals, { groupBy: request.params.groupBy, disjoint: request.params.stacking === 'cutouts', page }) : best;
  const file = request.format ? await writeFile(request.format, output, written.svg, best.decimals, page) : undefined;
  // The cut report describes the trace (a test key's watermark is no part of what is cut).
  const report = request.params.unit !== 'px' || request.params.preset !== undefined ? cutReport(best.output, best.decimals, page, best.removed) : undefined;
  return {
    ...(file ? { file } : {}),
    svg: written.svg,
    width: image.first.originalWidth,
    height: image.first.originalHeight,
    nodeCount: written.nodeCount,
    processingTimeMs: Math.round(performance.now() - started),
    fidelity: best.check.fidelity,
    chosen: { mode: best.plan.kind, curveMode: best.curveMode },
    check: {
      fidelity: best.check.fidelity,
      signatures: (attempts[0] as Attempt).check.signatures,
      remaining: best.check.signatures,
      // The flat-edged version of a trace is checked with it, not traced again.
      retraced: attempts.filter((a) => a.plan.reason !== 'soft-edges').length > 1,
      retraceMs: Math.round(retraceMs),
      attempts: attempts.map((a) => ({ kind: a.plan.kind, curveMode: a.curveMode, fidelity: a.check.fidelity, timeMs: Math.round(a.timeMs), reason: a.plan.reason ?? 'first' })),
    },
    ...(report ? { report } : {}),
  };
}

/**
 * The plain trace works at the check's size, the engine's own paths finer: where the decode is
 * finer than the check, the plain trace must also draw the image's most detailed part at its own
 * scale at least as well (check/detail.ts). Else its win at the check's size is the mean tone of
 * detail it lost (an etching's hatching traced as grey blotches).
 */
function keepsDetail(plain: Attempt, engine: Attempt, decoded: DecodedImage): boolean {
  const detail = detailReference(decoded, CHECK_PIXELS);
  if (!detail) return true;
  return detailFidelity(plain.svg, detail) >= detailFidelity(engine.svg, detail);
}

/** The largest decode made of the image: a JPEG is first decoded small, and decoded again larger for the kinds traced larger. */
function largestDecode(image: AnalysedImage): DecodedImage {
  let largest = image.first;
  for (const decoded of image.larger.values()) if (decoded.width * decoded.height > largest.width * largest.height) largest = decoded;
  return largest;
}

/** The physical size the params ask for (`unit`, `dpi`). */
function pageOf(params: TraceParams): PhysicalSize {
  return { unit: params.unit, dpi: params.dpi };
}

async function analyse(request: TraceRequest, options: ConvertOptions): Promise<AnalysedImage> {
  const firstDecodePixels = firstDecodePixelsOf(request.image);
  const decoded = await firstDecode(request.image, options.maxInputPixels);
  // Translucent artwork is analysed and traced as if its most opaque pixels were opaque.
  const opacity = translucentOpacity(decoded.first);
  const first = opacity === undefined ? decoded.first : stretchAlpha(decoded.first, opacity);
  const finer = opacity === undefined || !decoded.finer ? decoded.finer : stretchAlpha(decoded.finer, opacity);
  const stats = await statisticsOf(first);
  const kind = options.kind ?? resolveKind(request.params, stats, first);
  const doubt = options.kind || request.params.mode !== 'auto' || request.params.centerline ? undefined : doubtfulAlternative(kind, stats, first);
  const grid = ownGrid(first);
  const larger = new Map<number, DecodedImage>(finer ? [[POINT_PIXELS, finer]] : []);
  return { bytes: request.image, first, firstDecodePixels, larger, stats, kind, ...(doubt ? { doubt } : {}), ...(grid ? { ownGrid: grid } : {}), maxInputPixels: options.maxInputPixels, ...(opacity === undefined ? {} : { opacity }) };
}

/**
 * A JPEG of this many pixels or more is a photograph traced at 1 MP with its points of light found
 * at up to POINT_PIXELS (prepare.ts, trace/points.ts): it is decoded once at that size and the first
 * decode reduced from it, instead of decoding it three times (a progressive 24 MP JPEG takes 0.4 s
 * to decode at 0.4 MP, 0.5 s at 1 MP, 0.9 s at 6 MP).
 */
const SHARED_DECODE_PIXELS = 8_000_000;

/**
 * The image decoded at firstDecodePixelsOf's size, to be classified; for a large JPEG, reduced
 * from a decode at POINT_PIXELS, which is returned too (`finer`).
 */
export async function firstDecode(bytes: Buffer, maxInputPixels: number): Promise<{ first: DecodedImage; finer?: DecodedImage }> {
  const pixels = firstDecodePixelsOf(bytes);
  // The header alone; a file sharp cannot read is left to decodeImage, which names what is wrong.
  const header = sniffFormat(bytes) === 'jpeg' ? await sharp(bytes, { limitInputPixels: false }).metadata().catch(() => undefined) : undefined;
  const large = header?.width !== undefined && header.height !== undefined && header.width * header.height >= SHARED_DECODE_PIXELS;
  if (!large) return { first: await decodeImage(bytes, { maxInputPixels, maxWorkingPixels: pixels }) };
  const finer = await decodeImage(bytes, { maxInputPixels, maxWorkingPixels: POINT_PIXELS });
  return { first: await reducedDecode(finer, pixels), finer };
}

/**
 * The size an image is first decoded at, to be classified. JPEGs are mostly photos and decode
 * cheaply at reduced size (shrink-on-load), so they start small; PNG and WebP start at the logo
 * size, since decoding them twice costs more.
 */
export function firstDecodePixelsOf(image: Buffer): number {
  return sniffFormat(image) === 'jpeg' ? WORKING_PIXELS.photo : DECODE_PIXELS;
}

/**
 * The classifier's statistics of a decoded image, taken at most at CLASSIFY_PIXELS. Pixel art
 * enlarged by whole factors is measured on its own grid when that fits (measureImage finds it):
 * a smooth reduction of the enlargement would blend its pixels into anti-aliasing.
 */
export async function statisticsOf(decoded: DecodedImage): Promise<ImageStats> {
  const native = decoded.width === decoded.originalWidth && decoded.width * decoded.height > CLASSIFY_PIXELS ? blockSize(decoded.rgba, decoded.width, decoded.height) : undefined;
  const onItsGrid = native !== undefined && (decoded.width / native.width) * (decoded.height / native.height) <= CLASSIFY_PIXELS;
  const sample = onItsGrid ? decoded : await fitToPixels(decoded, CLASSIFY_PIXELS);
  const stats = measureImage(sample.rgba, sample.width, sample.height, { ink: mayBeInk(decoded) });
  // A sample that is the decode itself (fitToPixels returns the image when it fits) holds its own pixels already.
  const measured = sample === decoded ? stats : withPixelEvidenceOf(stats, decoded);
  // Decoded at its own grid (decode.ts): the blocks the decode took out count with any left in it.
  if (!decoded.enlargement) return measured;
  const blockWidth = measured.blockWidth * decoded.enlargement.width;
  const blockHeight = measured.blockHeight * decoded.enlargement.height;
  return { ...measured, blockWidth, blockHeight, pixelScale: Math.min(blockWidth, blockHeight) };
}

/**
 * Statistics taken on a reduction, with pixel art's evidence measured at the image's own pixels
 * where the decode holds them all, within what pixel art's trace takes whole, in a palette's
 * worth of colours (photographs and anti-aliased artwork stop the count within a few rows) or cut
 * out on transparency (a sheet of sprites shaded in thousands of colours, classify.ts).
 */
function withPixelEvidenceOf(reduced: ImageStats, decoded: DecodedImage): ImageStats {
  const whole = decoded.width === decoded.originalWidth || decoded.enlargement !== undefined;
  if (!whole || decoded.width * decoded.height > RULES.pixelArt.maxPixels) return reduced;
  const onTransparency = reduced.transparentShare >= RULES.pixelArt.minSheetTransparency;
  if (!onTransparency && !hasFewColours(pixelWords(decoded.rgba), RULES.pixelArt.maxColours)) return reduced;
  return withOwnPixelEvidence(reduced, measureImage(decoded.rgba, decoded.width, decoded.height, { ink: false }));
}

/** The decoded image at (at most) this many pixels: the first decode, or a larger one made once. */
async function decodedAt(image: AnalysedImage, pixels: number): Promise<DecodedImage> {
  const { first } = image;
  // At its own grid (an enlargement) or at full size, the first decode holds every source pixel.
  if (pixels <= image.firstDecodePixels || first.width === first.originalWidth || first.enlargement) return first;
  const budget = Math.min(pixels, first.originalWidth * first.originalHeight);
  let decoded = image.larger.get(budget);
  if (!decoded) {
    // A finer decode made already is reduced, not the source decoded once more.
    const finer = [...image.larger.values()].find((larger) => larger.width * larger.height > budget);
    if (finer) decoded = await reducedDecode(finer, budget);
    else {
      decoded = await decodeImage(image.bytes, { maxInputPixels: image.maxInputPixels, maxWorkingPixels: budget, findEnlargement: false });
      if (image.opacity !== undefined) decoded = stretchAlpha(decoded, image.opacity);
    }
    image.larger.set(budget, decoded);
  }
  return decoded;
}

/** A decode reduced to the size a decode of `pixels` would have. */
async function reducedDecode(decoded: DecodedImage, pixels: number): Promise<DecodedImage> {
  const size = workingSize(decoded.originalWidth, decoded.originalHeight, pixels);
  const reduced = await resizeTo(decoded, size.width, size.height);
  return { ...decoded, ...reduced };
}

/**
 * An image decoded whole that is an enlargement by whole factors (kx × ky blocks of one value):
 * its own grid, a pixel per block (undefined for any other image), which is the same picture for a fraction of the tracer's work,
 * and reduced to the working budget, if at all, from its own pixels. Pixel art of 1–2 MP is
 * decoded whole, and an enlargement of it was reduced to 1 MP with Lanczos, which blurred every
 * block into anti-aliasing (a 320 × 200 title picture shown 4×: 5.5 s, fidelity 0.979). Larger
 * enlargements are decoded at their own grid already (decode.ts). The blocks are found on the
 * decode itself: the classifier may have measured a reduced copy.
 */
export function ownGrid(decoded: DecodedImage): RgbaImage | undefined {
  const whole = decoded.width === decoded.originalWidth && decoded.height === decoded.originalHeight && !decoded.enlargement;
  if (!whole) return undefined;
  const blocks = blockSize(decoded.rgba, decoded.width, decoded.height);
  if (blocks.width * blocks.height === 1 || decoded.width % blocks.width !== 0 || decoded.height % blocks.height !== 0) return undefined;
  return blockCorners(decoded.rgba, decoded.width, decoded.height, blocks);
}

/**
 * Pixel art is compared at its own pixels, up to what its trace takes whole: reduced by a
 * fraction, its reference rings at every pixel edge where resvg draws the exact trace crisp (a
 * 320 × 806 sprite sheet, traced exactly: 0.873 at 0.25 MP, 1.000 at its own size).
 */
function checkPixelsFor(kind: ImageKind): number {
  return kind === 'pixelart' ? RULES.pixelArt.maxPixels : CHECK_PIXELS;
}

/** The source at the size the check compares at (at most `pixels`). */
async function checkReference(decoded: RgbaImage, pixels: number): Promise<CheckReference> {
  const reduced = await fitToPixels(decoded, pixels);
  return { rgba: reduced.rgba, width: reduced.width, height: reduced.height };
}

async function attempt(image: AnalysedImage, plan: TracePlan, params: TraceParams, reference: CheckReference, startClock: () => WorkClock): Promise<Attempt> {
  const started = performance.now();
  const clock = startClock();
  const kind = plan.kind;
  const workingPixels = params.centerline ? CENTERLINE_PIXELS : (plan.workingPixels ?? workingPixelsFor(kind, image.first.originalWidth * image.first.originalHeight));
  const spot = spotColourRequest(params);
  // A photograph traced coarser than its output: its points of light are found on a finer decode,
  // made first so that the working one is reduced from it.
  const originalPixels = image.first.originalWidth * image.first.originalHeight;
  const withPoints = kind === 'photo' && plan.reason !== 'plain' && !params.centerline && !spot && workingPixels < ROUND_BELOW_SCALE ** 2 * originalPixels;
  const fine = withPoints ? await decodedAt(image, POINT_PIXELS) : undefined;
  const decoded = await decodedAt(image, workingPixels);
  // Large images are traced at the working size of their kind, and the SVG scaled back.
  const onOwnGrid = kind === 'pixelart' && !params.centerline && decoded === image.first ? image.ownGrid : undefined;
  const working = await fitToPixels(onOwnGrid ?? decoded, workingPixels);
  const planned = { ...params, ...(plan.curveMode ? { curveMode: plan.curveMode } : {}) };
  const traced = plan.reason === 'plain'
    ? await tracePlain(await fitToPixels(working, PLAIN_PIXELS), image.stats)
    : params.centerline
    ? await traceCenterlineWorking(working, planned, decoded, spot)
    : spot && kind !== 'sketch'
      ? await traceSpotColourWorking(working, kind, planned, decoded, spot)
      : await traceWorking(working, kind, planned, decoded, image.stats, mayBeArtwork(image, kind), spot, plan.path, segmentPixelsFor(image, kind));
  if (fine && fine.width > traced.width) traced.shapes.push(...finePoints(fine, traced, params));
  const facts = { kind, curveMode: traced.curveMode, tracedScale: traced.width / decoded.originalWidth, pixelGrid: hasPixelGrid(image.stats, image.first) };
  const written = writeOutput(traced, decoded, kind, params);
  const check = checkSvg(written.svg, reference, facts);
  const result: Attempt = { plan, curveMode: traced.curveMode, ...written, tracedRegions: traced.regions === true, severalInks: traced.severalInks === true, digitalPage: traced.digitalPage === true, check, timeMs: performance.now() - started, workMs: clock.elapsedMs() };
  if (!traced.flatEdges) return result;
  // Soft edges are fitted to the alpha alone; the check, which sees colour and structure too,
  // decides whether the blurred shapes draw the picture better than the flat regions.
  const flatStarted = performance.now();
  const flatClock = startClock();
  const flatWritten = writeOutput({ ...traced, shapes: traced.flatEdges }, decoded, kind, params);
  const flat: Attempt = { plan: { ...plan, reason: 'soft-edges' }, curveMode: traced.curveMode, ...flatWritten, tracedRegions: traced.regions === true, severalInks: false, digitalPage: false, check: checkSvg(flatWritten.svg, reference, facts), timeMs: 0, workMs: 0 };
  flat.timeMs = performance.now() - flatStarted;
  flat.workMs = flatClock.elapsedMs();
  return { ...result, alternative: flat };
}

/**
 * A photograph traced coarser than its output loses its points of light (trace/points.ts): they
 * are found on a decode of at most this many pixels, a pixel of it for at most two along each
 * side of a 24 MP photograph's.
 */
const POINT_PIXELS = 6_000_000;

/** Dots for the points of light finer than the traced grid, found on a finer decode, on the traced grid. */
function finePoints(fine: DecodedImage, traced: TracedPicture, params: TraceParams): TracedShape[] {
  const scale = traced.width / fine.width;
  // No point finer than the written precision: rounded to it, a dot would lose its round shape or vanish.
  const decimals = decimalPlaces(params.pathPrecision, Math.max(fine.originalWidth, fine.originalHeight));
  const minRadius = (10 ** -decimals * traced.width) / fine.originalWidth;
  // Polygons asked for get polygons (octagons of the dots' area); pixel-exact outlines, none.
  if (traced.curveMode === 'none') return [];
  return pointShapes(findPoints(fine), scale, minRadius, traced.curveMode === 'spline');
}

/**
 * An attempt and the version of it with flat edges, if any, both listed; the one kept. Flat
 * edges win only by more than SOFT_EDGE_MARGIN.
 */
function settle(candidate: Attempt, attempts: Attempt[]): Attempt {
  attempts.push(candidate);
  const flat = candidate.alternative;
  if (!flat) return candidate;
  attempts.push(flat);
  return flat.check.fidelity > candidate.check.fidelity + SOFT_EDGE_MARGIN ? flat : candidate;
}

/** The traced picture at the original size, with the output options applied, as SVG. */
function writeOutput(traced: TracedPicture, decoded: DecodedImage, kind: ImageKind, params: TraceParams): { output: VectorImage; decimals: number; svg: string; nodeCount: number; removed: number } {
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
  let decimals = decimalPlaces(params.pathPrecision, Math.max(decoded.originalWidth, decoded.originalHeight));
  if (kind === 'sketch' && 10 ** -decimals > 1 / (traced.upscale ?? 1)) decimals += 1;
  // Output options, all from the same model.
  const cutouts = params.stacking === 'cutouts';
  const page = pageOf(params);
  const straight = withoutDegenerateSubpaths(withStraightLines(image, decimals), decimals);
  const written = largerThanIcon(decoded) ? straight : removeNarrowFeatures(straight, ICON_SLIVER_WIDTH, decimals, false).image;
  const cut = cutouts ? withoutDegenerateSubpaths(cutOutImage(written, decimals), decimals) : written;
  // minFeature is in the document's unit; pixels are what the geometry is in.
  const narrow = removeNarrowFeatures(cut, params.minFeature * pixelsPerUnit(page), decimals, cutouts);
  const output = narrow.image;
  const { svg, nodeCount } = writeSvgDocument(output, decimals, { groupBy: params.groupBy, disjoint: cutouts, page });
  return { output, decimals, svg, nodeCount, removed: narrow.removed };
}

interface TracedPicture {
  shapes: TracedShape[];
  /** The same picture with its soft edges' regions flat (artwork.ts): the check keeps one. */
  flatEdges?: TracedShape[];
  /** Size of the grid traced: the shapes' coordinates are in its pixels. */
  width: number;
  height: number;
  background?: Rgb;
  curveMode: ResolvedCurveMode;
  /** Traced pixels per working pixel of line art traced upscaled (1 otherwise). */
  upscale?: number;
  /** Artwork traced by its regions (trace/artwork.ts). */
  regions?: boolean;
  /** Line art painted in several inks (paint/ink-colours.ts). */
  severalInks?: boolean;
  /** Line art on a digital page: paper of one exact colour (analyse/paper-tones.ts). */
  digitalPage?: boolean;
}

/**
 * Whether a trace as `kind` may be of artwork, whose dense detail is content (prepareWithinBudget):
 * a logo, or an image the classifier took for a photograph only by elimination (a map saved as
 * JPEG). Ink or artwork traced again in tones is not: its second opinion as a photograph is one.
 */
function mayBeArtwork(image: AnalysedImage, kind: ImageKind): boolean {
  return kind === 'logo' || (kind === 'photo' && image.kind === 'photo' && photoByElimination(image.stats, image.first));
}

/**
 * Artwork goes the artwork path (artwork.ts: regions, gradients, edges from the anti-aliasing),
 * except dense artwork (maps, charts: finer detail than a reduced segmentation grid keeps), which
 * is traced pixel-exact from its palette like the other kinds, as is artwork a plan sends there
 * (`path: 'palette'`, retrace.ts).
 */
async function traceWorking(
  working: RgbaImage,
  kind: ImageKind,
  params: TraceParams,
  decoded: DecodedImage,
  stats: ImageStats,
  denseAsArtwork: boolean,
  spot: SpotColourRequest | undefined,
  path: TracePlan['path'],
  segmentPixels: number | undefined,
): Promise<TracedPicture> {
  if (path === 'alpha-bands') return traceAlphaBands(working, kind, params, decoded, stats);
  if (kind === 'logo' && path !== 'palette') {
    const curveMode = resolveCurveMode(params.curveMode, 'logo');
    const artwork = await traceArtworkOrFail(working, params, curveMode, segmentPixels);
    if (artwork) return { ...artwork, curveMode, regions: true };
  }
  const native = working.width === decoded.originalWidth;
  const sketchUpscale = kind === 'sketch' && native ? sketchUpscaleFactor(working.width * working.height) : 1;
  const source = params.inputEnhance && kind !== 'logo' ? await enhanceInput(working, kind) : working;
  // A translucent ground, panel or shadow under half alpha is traced opaque and given its opacity back.
  const translucency = kind === 'logo' || kind === 'photo' ? flatTranslucency(source) : undefined;
  const prepared = await prepareWithinBudget(translucency?.traced ?? source, kind, params.colorPrecision, sketchUpscale, params.inputEnhance, denseAsArtwork);
  const workingScale = prepared.width / decoded.originalWidth;
  const curveMode = resolveCurveMode(params.curveMode, kind);
  // Ink on its own pixel grid, and dense artwork (maps, charts) on a grid reduced to fit the
  // budget: exact pixel outlines from the tracer, fitted here (line-art.ts): their hairlines and
  // lettering keep their place, without the squares of pixel-exact outlines.
  const ownInkFit = (kind === 'sketch' && fitsInkOutlines(curveMode, sketchUpscale)) || (kind === 'logo' && prepared.dense && curveMode === 'spline');
  const config = buildTracerConfig(params, { kind, curveMode, workingScale, exactOutlines: ownInkFit, digitalPage: prepared.digitalPaper === true });

  // Pixel art's translucent pixels lie over nothing: traced apart from the opaque ones, so that no
  // opaque shape stacked under them shows through.
  const layers = prepared.translucent ? splitTranslucentPixels(prepared.rgba, prepared.translucent) : undefined;
  // Ink in several colours: each ink traced as a layer of its own (paint/ink-colours.ts); if the
  // tracer fails on one, the ink is traced whole in one ink, as below (a spot-colour request paints
  // one ink, in its palette).
  const inkLayers = kind === 'sketch' && !spot ? prepared.inkLayers : undefined;
  const layered = inkLayers ? await traceInkLayers(inkLayers, config, STRAIGHT_TOLERANCE).catch(() => undefined) : undefined;
  // A large photograph is traced in tiles (trace/tiles.ts), in under half the time.
  const tiled = kind === 'photo' && !layers && !layered && tracedInTiles(prepared.width * prepared.height, config);
  let tiledShapes: TracedShape[] | undefined;
  let tracerSvg = '';
  let translucentSvg: string | undefined;
  /** Ink traced by the colour mode after the binary mode failed: the paper's islands are among the shapes. */
  let inColour = false;
  try {
    if (tiled) tiledShapes = await traceInTiles(prepared.rgba, prepared.width, prepared.height, config, STRAIGHT_TOLERANCE);
    else if (!layered) tracerSvg = await runTracer(layers?.opaque ?? prepared.rgba, prepared.width, prepared.height, config);
    if (layers) translucentSvg = await runTracer(layers.translucent, prepared.width, prepared.height, config);
  } catch (error) {
    try {
      // Binary tracing fails outright on some ink (line-art.ts).
      if (kind !== 'sketch') throw error;
      ({ svg: tracerSvg, inColour } = await traceInkAgain(prepared.rgba, prepared.width, prepared.height, config));
    } catch {
      throw new EngineError('engine_failed', `the tracer failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  let shapes: TracedShape[];
  try {
    shapes = layered ?? tiledShapes ?? parseTracerSvg(tracerSvg, STRAIGHT_TOLERANCE);
    // The tracer stacks the translucent pixels' shapes as it stacks any: cut apart, no pixel shows
    // through another and compounds its opacity.
    if (translucentSvg && prepared.translucent) shapes = [...paintTranslucentPixels(cutOutTraced(parseTracerSvg(translucentSvg, STRAIGHT_TOLERANCE)), prepared.translucent), ...shapes];
  } catch (error) {
    throw new EngineError('engine_failed', `the tracer wrote unreadable SVG: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (ownInkFit) fitInkOutlines(shapes, params);
  // A photo traced coarser than its output gets round outlines in place of the tracer's mosaic (trace/rounded.ts).
  const rounded = roundsPolygons(params.curveMode, kind, workingScale);
  if (rounded) roundPolygons(shapes, tiled ? { width: prepared.width, height: prepared.height, edges: tileEdges(prepared.width, prepared.height) } : prepared);
  // Line art is opaque ink in the ink's colour, on one or two papers; colour shapes get their
  // opacity back (pixel art's translucent pixels were painted in theirs above).
  if (kind === 'sketch') {
    const islands = inColour ? paperIslandsOf(shapes) : undefined;
    if (islands && !prepared.background) shapes = shapes.filter((shape) => !islands.has(shape));
    shapes = await paintLineArt(shapes, layered ? { ...prepared, ink: undefined } : prepared, sketchUpscale, config, STRAIGHT_TOLERANCE);
    if (islands && prepared.background) for (const shape of islands) shape.fill = flat(prepared.background);
  }
  if (kind !== 'sketch' && !prepared.translucent && stats.partialAlphaShare > 0.005) {
    restoreOpacity(shapes, await resizeTo(translucency?.opacity ?? source, prepared.width, prepared.height), translucency ? 1 : undefined);
  }
  // A photo's large smooth areas: gradients in place of the palette's bands (paint/shading.ts).
  if (kind === 'photo') await shadeLargeShapes(shapes, source, prepared.width, prepared.height);
  if (kind === 'sketch' && spot) {
    const painted = spotColourLineArt(shapes, prepared, spot);
    return { shapes: painted.shapes, width: prepared.width, height: prepared.height, background: painted.background, curveMode, upscale: sketchUpscale };
  }
  return { shapes, width: prepared.width, height: prepared.height, background: prepared.background, curveMode: rounded ? 'spline' : curveMode, upscale: sketchUpscale, ...(layered && !inkLayers?.neutralOnly ? { severalInks: true } : {}), ...(prepared.digitalPaper ? { digitalPage: true } : {}) };
}

/**
 * Light drawn in alpha (paint/alpha-bands.ts): each alpha band's area traced as `kind` and
 * painted at the band's opacity. A band's shapes overlap where the tracer stacks them, which
 * would compound its opacity, so each band is cut into shapes that do not overlap first.
 */
async function traceAlphaBands(working: RgbaImage, kind: ImageKind, params: TraceParams, decoded: DecodedImage, stats: ImageStats): Promise<TracedPicture> {
  const shapes: TracedShape[] = [];
  let first: TracedPicture | undefined;
  for (const band of alphaBands(working)) {
    const traced = await traceWorking(band.layer, kind, params, decoded, stats, false, undefined, undefined, undefined);
    first ??= traced;
    // The tracer's budget may reduce a busier band more: every band is drawn on the first one's grid.
    const sx = first.width / traced.width;
    const sy = first.height / traced.height;
    for (const shape of cutOutTraced(traced.shapes)) {
      const onGrid = sx === 1 && sy === 1 ? shape : scaledShape(shape, sx, sy);
      shapes.push({ ...onGrid, opacity: shape.opacity * band.opacity });
    }
  }
  if (!first) throw new EngineError('engine_failed', 'the image has no visible pixels to trace');
  return { shapes, width: first.width, height: first.height, curveMode: first.curveMode };
}

/** The artwork path's segmentation grid: a logo trace as another kind's second opinion keeps the coarser one (trace/artwork.ts). */
function segmentPixelsFor(image: AnalysedImage, kind: ImageKind): number | undefined {
  return kind === 'logo' && image.kind !== 'logo' ? SECOND_OPINION_SEGMENT_PIXELS : undefined;
}

/** Rounded outlines (trace/rounded.ts) for a photo traced this much coarser than its output, unless polygons were asked for. */
function roundsPolygons(asked: CurveMode, kind: ImageKind, workingScale: number): boolean {
  return asked === 'auto' && kind === 'photo' && workingScale < ROUND_BELOW_SCALE;
}

/** The tracer alone at its defaults (plainTracerConfig), transparency keyed out and partial opacity restored as on the other paths. */
async function tracePlain(working: RgbaImage, stats: ImageStats): Promise<TracedPicture> {
  let shapes: TracedShape[];
  try {
    const svg = await runTracer(binariseAlpha(working.rgba), working.width, working.height, plainTracerConfig());
    shapes = parseTracerSvg(svg, STRAIGHT_TOLERANCE);
  } catch (error) {
    throw new EngineError('engine_failed', `the tracer failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (stats.partialAlphaShare > 0.005) restoreOpacity(shapes, working);
  return { shapes, width: working.width, height: working.height, curveMode: 'spline' };
}

/** `palette` and `maxColors` on colour pictures and pixel art: the picture in spot colours (trace/spot-colours.ts). */
async function traceSpotColourWorking(working: RgbaImage, kind: ImageKind, params: TraceParams, decoded: DecodedImage, spot: SpotColourRequest): Promise<TracedPicture> {
  const curveMode = resolveCurveMode(params.curveMode, kind);
  try {
    // Artwork: its regions (edges where the anti-aliasing puts them) each take a spot colour.
    if (kind === 'logo') {
      const artwork = await traceArtwork(working, params, curveMode, spotColourRegions(spot));
      if (artwork) return { ...artwork, curveMode };
    }
    const traced = await traceSpotColours(working, kind, params, spot, curveMode, working.width / decoded.originalWidth);
    return { shapes: traced.shapes, width: traced.width, height: traced.height, curveMode };
  } catch (error) {
    throw new EngineError('engine_failed', `the tracer failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** `centerline`: the ink as strokes along its lines, wide ink filled (trace/centerline.ts); no paper. */
async function traceCenterlineWorking(working: RgbaImage, params: TraceParams, decoded: DecodedImage, spot: SpotColourRequest | undefined): Promise<TracedPicture> {
  const curveMode = resolveCurveMode(params.curveMode, 'sketch');
  const config = (upscale: number) =>
    buildTracerConfig(params, { kind: 'sketch', curveMode: 'spline', workingScale: (working.width * upscale) / decoded.originalWidth });
  let traced;
  try {
    traced = await traceCenterline(working, params, config);
  } catch (error) {
    throw new EngineError('engine_failed', `the tracer failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  let shapes = traced.shapes;
  if (spot?.palette) shapes = spotColourLineArt(shapes, { ink: traced.ink }, spot).shapes;
  return { shapes, width: traced.width, height: traced.height, curveMode, upscale: traced.upscale };
}

async function traceArtworkOrFail(working: RgbaImage, params: TraceParams, curveMode: ResolvedCurveMode, segmentPixels?: number): Promise<ArtworkTrace | null> {
  try {
    return await traceArtwork(working, params, curveMode, undefined, segmentPixels);
  } catch (error) {
    throw new EngineError('engine_failed', `the tracer failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
