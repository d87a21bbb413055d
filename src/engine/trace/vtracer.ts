// Every VTracer configuration the engine uses, from the contract's TraceParams: the raster path's
// for each kind of picture, the artwork path's region map, and line art's second paper; and the tracer call.

import { ColorMode, Hierarchical, PathSimplifyMode, vectorizeRaw, type Config } from '@neplex/vectorizer';
import type { ImageKind } from '../analyse/classify.ts';
import type { CurveMode, TraceParams } from '../params.ts';

export type ResolvedCurveMode = Exclude<CurveMode, 'auto'>;

/**
 * layerDifference 0–5 onto VTracer's gradient step (0–255 colour distance between stacked
 * layers). Photos get finer steps: their shading is the picture, while flat artwork loses
 * nothing when near-identical palette colours merge.
 */
export const LAYER_DIFFERENCE_STEPS: Record<'photo' | 'other', readonly number[]> = {
  photo: [0, 4, 12, 24, 40, 64],
  other: [0, 12, 20, 32, 48, 64],
};

/** segmentLength 1–20 onto VTracer's length threshold, whose useful range is 3.5–10 px. */
export function lengthThreshold(segmentLength: number): number {
  return 3.5 + ((segmentLength - 1) * 6.5) / 19;
}

/**
 * pathPrecision 1–10 as significant digits of a coordinate: coordinates are rounded to
 * 10^(digits of the long side − pathPrecision) original pixels. At the default 4, a 400 px
 * image gets 0.1 px, a 1400 px one whole pixels — the same precision relative to the image.
 */
export function decimalPlaces(pathPrecision: number, longSide: number): number {
  const integerDigits = Math.floor(Math.log10(Math.max(1, longSide))) + 1;
  return Math.max(0, pathPrecision - integerDigits);
}

/**
 * Speckle side used when filterSpeckle is 0 (automatic), in working pixels. Photos and artwork
 * keep every patch: a photo's texture is the picture, and the palette has already flattened
 * sensor and JPEG noise (a 2×2 filter cost 0.01–0.12 SSIM on every corpus photo). Artwork traced
 * from its palette keeps its letters, symbols and hairlines: with any filter, the tracer merges a
 * patch into its neighbour by colour as well as by size, and a screenshot's text and check boxes,
 * a map's labels and a cartoon's fine lines went (SSIM 0.798 → 0.877, 0.782 → 0.868; the cartoon's
 * most detailed 100 % crop 0.732 → 0.848; docs/decisions.md). Upscaled line art never keeps specks
 * under about one and a half source pixels, a scan's dust and grain; a digital page's (`digitalPage`:
 * paper of one exact colour, analyse/paper-tones.ts) under three quarters of one: it has no dust,
 * and at 13 px a letter i's dot is about a pixel across (DIGITAL_PAGE_SPECK).
 */
export function automaticSpeckle(kind: ImageKind, workingScale: number, digitalPage = false): number {
  switch (kind) {
    case 'pixelart':
    case 'photo':
    case 'logo':
      return 0;
    case 'sketch':
      return Math.max(2, Math.round(workingScale * (digitalPage ? DIGITAL_PAGE_SPECK : SCAN_SPECK)));
  }
}

/** Line art's automatic speckle side, in source pixels: a scan's, and a digital page's (automaticSpeckle). */
const SCAN_SPECK = 1.5;
const DIGITAL_PAGE_SPECK = 0.75;

/**
 * curveMode auto. Pixel art stays pixel-exact; nothing else does, not even dense artwork (a map,
 * a chart) or a photograph, whose pixels would show as squares and stair-steps at 100 % once
 * traced on a grid coarser than the output. Photos get polygons: they fit the palette's ragged
 * region edges with a third of the bytes of splines at the same fidelity. Other artwork and line
 * art get splines; dense artwork's are fitted to its exact pixel outlines (convert.ts), as ink's
 * are, since VTracer's own would round its hairlines and lettering away.
 */
export function resolveCurveMode(curveMode: CurveMode, kind: ImageKind): ResolvedCurveMode {
  if (curveMode !== 'auto') return curveMode;
  if (kind === 'pixelart') return 'none';
  return kind === 'photo' ? 'polygon' : 'spline';
}

const SIMPLIFY_MODE: Record<ResolvedCurveMode, PathSimplifyMode> = {
  none: PathSimplifyMode.None,
  polygon: PathSimplifyMode.Polygon,
  spline: PathSimplifyMode.Spline,
};

export interface TraceSettings {
  /** Exact pixel outlines (no simplification), fitted afterwards by the engine (ink on its own grid). */
  exactOutlines?: boolean;
  kind: ImageKind;
  curveMode: ResolvedCurveMode;
  /** Working pixels per original pixel (≤ 1). */
  workingScale: number;
  /** Line art on a digital page (automaticSpeckle). */
  digitalPage?: boolean;
}

/** The VTracer configuration for these params on this kind of picture. */
export function buildTracerConfig(params: TraceParams, settings: TraceSettings): Config {
  // Automatic speckle is in working pixels, but never finer than one source pixel of upscaled line art.
  const speckle =
    params.filterSpeckle === 0
      ? automaticSpeckle(settings.kind, settings.workingScale, settings.digitalPage)
      : Math.max(1, Math.round(params.filterSpeckle * settings.workingScale));
  // Colour images arrive reduced to a palette (prepare.ts), pixel art with its own colours:
  // either way the tracer must keep every colour it is given.
  return {
    colorMode: settings.kind === 'sketch' ? ColorMode.Binary : ColorMode.Color,
    // Stacked layers overlap their neighbours, so no background shows through between shapes.
    hierarchical: Hierarchical.Stacked,
    filterSpeckle: speckle,
    colorPrecision: 8,
    layerDifference:
      settings.kind === 'pixelart'
        ? 0
        : (LAYER_DIFFERENCE_STEPS[settings.kind === 'photo' ? 'photo' : 'other'][params.layerDifference] ?? 12),
    mode: settings.exactOutlines ? PathSimplifyMode.None : SIMPLIFY_MODE[settings.curveMode],
    cornerThreshold: params.cornerThreshold,
    lengthThreshold: lengthThreshold(params.segmentLength),
    maxIterations: 10,
    spliceThreshold: params.spliceThreshold,
    // Rounding happens once, in original-pixel units; the tracer's own output only needs to be finer.
    pathPrecision: 2,
    // Key out transparency whenever there is any, not only when it touches the border.
    keyingThreshold: 0,
  };
}

/**
 * VTracer at its command-line defaults (colour, stacked, speckle 4, colour precision 6, gradient
 * step 16, splines, corner 60°, segment length 4, splice 45°): the plain trace the self-check
 * holds every result against (check/retrace.ts, plainPlan). Transparency is keyed out as
 * everywhere else in the engine (binariseAlpha).
 */
export function plainTracerConfig(): Config {
  return {
    colorMode: ColorMode.Color,
    hierarchical: Hierarchical.Stacked,
    filterSpeckle: 4,
    colorPrecision: 6,
    layerDifference: 16,
    mode: PathSimplifyMode.Spline,
    cornerThreshold: 60,
    lengthThreshold: 4,
    maxIterations: 10,
    spliceThreshold: 45,
    pathPrecision: 2,
    keyingThreshold: 0,
  };
}

/**
 * Line art's configuration in VTracer's colour mode, ink and paper both opaque: the binary mode
 * fails outright on some hatching and halftones even with its corner contacts joined, and so does
 * the colour mode with the paper keyed out or cut out, where this one does not (line-art.ts,
 * traceInkAgain). The corpus etching traced so scores as the binary mode does (0.622 and 0.619).
 */
export function inkInColourConfig(inkConfig: Config): Config {
  return { ...inkConfig, colorMode: ColorMode.Color, colorPrecision: 8, layerDifference: 0 };
}

/** The finest traced grid (traced pixels per segmented pixel) that may filter specks: see regionMapTracerConfig. */
const MIN_SPECKLE_FACTOR = 3;

/**
 * The traced grids (traced pixels per segmented pixel) whose region map is handed to the fitting
 * as raw pixel outlines rather than the tracer's polygons. The tracer cleans a polygon of its
 * staircases to within a traced pixel, keeping its own vertices: a side whose ends dip a pixel
 * (where the map places a line's ends) is drawn straight through the dips, a whole traced pixel
 * off along its length. Four to eight traced pixels a pixel, that is a quarter to an eighth of the
 * image's pixel, and an icon's outlines and highlights a pixel wide came out a quarter wider or
 * narrower: the gradient icons at 128 px, the tune part's icons of 48–128 px and the corpus's
 * small artwork scored 0.003–0.014 higher at 512 px in raw outlines, for 1–9 % more bytes. The
 * fitting's own stair flattening and smoothing (curves.ts) take the raw outlines' steps out.
 * Coarser grids keep the polygons (at 1–3, raw outlines kept the source's staircases: the corpus
 * cityscape's SVG grew fourfold, a street map lost 0.04); so do finer ones (at 12–16, 24–32 px
 * icons: as many lost as gained, up to 0.016). Figures in docs/decisions.md.
 */
export const RAW_OUTLINE_FACTORS = { min: 4, max: 8 } as const;

/**
 * VTracer on a map of distinct colours: every colour is kept (precision 8, no layer merging),
 * stacked so no background shows between shapes.
 */
export function regionMapTracerConfig(params: TraceParams, curveMode: ResolvedCurveMode, factor: number): Config {
  const rawOutlines = factor >= RAW_OUTLINE_FACTORS.min && factor <= RAW_OUTLINE_FACTORS.max;
  return {
    colorMode: ColorMode.Color,
    hierarchical: Hierarchical.Stacked,
    // Patches under a quarter of a segmented pixel are resampling noise of the finer grid. But
    // with any speckle filter the tracer also drops every cluster at most 2 pixels wide, however
    // long: a region a segmented pixel wide (a line) is kept only on a grid at least 3 times finer.
    filterSpeckle: factor >= MIN_SPECKLE_FACTOR ? Math.max(1, Math.round(factor / 2)) : 0,
    colorPrecision: 8,
    layerDifference: 0,
    // Splines are fitted here (curves.ts), to polygons the tracer has cleaned of staircases, or
    // to the raw outlines on the grids where that cleaning moves a side by too much of a pixel.
    mode: curveMode === 'spline' ? (rawOutlines ? PathSimplifyMode.None : PathSimplifyMode.Polygon) : SIMPLIFY_MODE[curveMode],
    cornerThreshold: params.cornerThreshold,
    lengthThreshold: lengthThreshold(params.segmentLength),
    maxIterations: 10,
    spliceThreshold: params.spliceThreshold,
    pathPrecision: 2,
    keyingThreshold: 0,
  };
}

/**
 * VTracer on a picture of spot colours (`palette`, `maxColors`): every colour kept exactly (precision
 * 8, no layer merging, which would mix colours), stacked, with `speckle` traced pixels as its
 * speck filter. Splines are fitted afterwards (curves.ts), to the tracer's polygons.
 */
export function spotColourTracerConfig(params: TraceParams, curveMode: ResolvedCurveMode, speckle: number): Config {
  return { ...regionMapTracerConfig(params, curveMode, 1), filterSpeckle: speckle };
}

/** Islands of the second paper smaller than this many mask pixels across are dropped (two paper-grid cells). */
const SECOND_PAPER_SPECKLE = 8;

/** Line art's second paper tone, traced from its mask with the ink's settings but coarser specks. */
export function secondPaperTracerConfig(inkConfig: Config): Config {
  return { ...inkConfig, filterSpeckle: SECOND_PAPER_SPECKLE };
}

/**
 * Alpha is made binary for the tracer (VTracer keys out alpha 0 and ignores alpha otherwise);
 * partly transparent layers get their opacity back afterwards from the source alpha.
 */
export function binariseAlpha(rgba: Buffer): Buffer {
  const out = Buffer.from(rgba);
  for (let i = 3; i < out.length; i += 4) {
    if ((out[i] as number) < 128) {
      out[i - 3] = 0;
      out[i - 2] = 0;
      out[i - 1] = 0;
      out[i] = 0;
    } else {
      out[i] = 255;
    }
  }
  return out;
}

export async function runTracer(rgba: Buffer, width: number, height: number, config: Config): Promise<string> {
  return vectorizeRaw(rgba, { width, height }, config);
}
