// Maps the contract's TraceParams onto VTracer's Config for one kind of picture,
// prepares the pixels the tracer sees, and runs the tracer.

import { ColorMode, Hierarchical, PathSimplifyMode, vectorizeRaw, type Config } from '@neplex/vectorizer';
import type { ImageKind } from './classify.ts';
import { luma } from './classify.ts';
import type { CurveMode, TraceParams } from './params.ts';

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
 * Speckle side used when filterSpeckle is 0 (automatic), in working pixels. Photos keep every
 * patch: their texture is the picture, and the palette has already flattened sensor and JPEG
 * noise (a 2×2 filter cost 0.01–0.12 SSIM on every corpus photo). Flat artwork loses its
 * anti-aliasing specks, except when it had to be traced reduced for its detail (maps, charts):
 * there a one-pixel patch is a symbol or a line. Upscaled line art never keeps specks under
 * about one and a half source pixels.
 */
export function automaticSpeckle(kind: ImageKind, workingScale: number, dense: boolean): number {
  switch (kind) {
    case 'pixelart':
    case 'photo':
      return 0;
    case 'logo':
      return dense ? 0 : 2;
    case 'sketch':
      return Math.max(2, Math.round(workingScale * 1.5));
  }
}

/**
 * curveMode auto. Pixel art stays pixel-exact, and so does dense artwork (a map or chart,
 * shrunk to under half its pixels to fit the tracer budget): its buildings, lettering and hairlines
 * are then a few working pixels, which polygon and spline fitting round away (on the corpus map,
 * SSIM 0.87 as polygons, 0.94 pixel-exact). Photos get polygons: they fit the palette's ragged
 * region edges with a third of the bytes of splines at the same fidelity. Other artwork and line
 * art get splines.
 */
export function resolveCurveMode(curveMode: CurveMode, kind: ImageKind, dense: boolean): ResolvedCurveMode {
  if (curveMode !== 'auto') return curveMode;
  if (kind === 'pixelart' || (kind === 'logo' && dense)) return 'none';
  return kind === 'photo' ? 'polygon' : 'spline';
}

const SIMPLIFY_MODE: Record<ResolvedCurveMode, PathSimplifyMode> = {
  none: PathSimplifyMode.None,
  polygon: PathSimplifyMode.Polygon,
  spline: PathSimplifyMode.Spline,
};

export interface TraceSettings {
  kind: ImageKind;
  curveMode: ResolvedCurveMode;
  /** Working pixels per original pixel (≤ 1). */
  workingScale: number;
  /** Shrunk to under half its pixels to fit the tracer budget (prepare.ts, PreparedImage.dense). */
  dense: boolean;
}

/** The VTracer configuration for these params on this kind of picture. */
export function buildTracerConfig(params: TraceParams, settings: TraceSettings): Config {
  // Automatic speckle is in working pixels, but never finer than one source pixel of upscaled line art.
  const speckle =
    params.filterSpeckle === 0
      ? automaticSpeckle(settings.kind, settings.workingScale, settings.dense)
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
    mode: SIMPLIFY_MODE[settings.curveMode],
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

/** Otsu's threshold over the luma of opaque pixels. */
export function otsuThreshold(rgba: Buffer): number {
  const histogram = new Float64Array(256);
  let total = 0;
  for (let i = 0; i < rgba.length; i += 4) {
    if ((rgba[i + 3] as number) < 128) continue;
    const bin = Math.round(luma(rgba[i] as number, rgba[i + 1] as number, rgba[i + 2] as number));
    histogram[bin] = (histogram[bin] as number) + 1;
    total++;
  }
  if (total === 0) return 128;
  let sum = 0;
  for (let t = 0; t < 256; t++) sum += t * (histogram[t] as number);
  let backgroundWeight = 0;
  let backgroundSum = 0;
  let best = 128;
  let bestVariance = -1;
  for (let t = 0; t < 256; t++) {
    backgroundWeight += histogram[t] as number;
    if (backgroundWeight === 0) continue;
    const foregroundWeight = total - backgroundWeight;
    if (foregroundWeight === 0) break;
    backgroundSum += t * (histogram[t] as number);
    const meanDifference = backgroundSum / backgroundWeight - (sum - backgroundSum) / foregroundWeight;
    const variance = backgroundWeight * foregroundWeight * meanDifference * meanDifference;
    if (variance > bestVariance) {
      bestVariance = variance;
      best = t;
    }
  }
  return best + 0.5;
}

/** Line art for the binary tracer: ink black, paper white, transparent stays transparent. */
export function binariseInk(rgba: Buffer, threshold: number): Buffer {
  // Transparent pixels count as paper: the binary tracer has no notion of alpha.
  const out = Buffer.alloc(rgba.length, 255);
  for (let i = 0; i < rgba.length; i += 4) {
    if ((rgba[i + 3] as number) < 128) continue;
    const ink = luma(rgba[i] as number, rgba[i + 1] as number, rgba[i + 2] as number) < threshold;
    const value = ink ? 0 : 255;
    out[i] = value;
    out[i + 1] = value;
    out[i + 2] = value;
    out[i + 3] = 255;
  }
  return out;
}

/**
 * Line art upscaled by an integer factor and thresholded in one pass: bilinear luma, so the
 * threshold crosses between source pixels and stroke edges land on sub-pixels. Much cheaper
 * than resampling RGBA first (the output is up to 16 times the source).
 */
export function binariseInkUpscaled(rgba: Buffer, width: number, height: number, factor: number, threshold: number): Buffer {
  const lumaPlane = new Float32Array(width * height);
  for (let p = 0, i = 0; p < lumaPlane.length; p++, i += 4) {
    // Transparent pixels count as paper.
    lumaPlane[p] = (rgba[i + 3] as number) < 128 ? 255 : luma(rgba[i] as number, rgba[i + 1] as number, rgba[i + 2] as number);
  }
  const outWidth = width * factor;
  const outHeight = height * factor;
  const axis = (size: number, outSize: number) => {
    const low = new Int32Array(outSize);
    const high = new Int32Array(outSize);
    const fraction = new Float32Array(outSize);
    for (let o = 0; o < outSize; o++) {
      const position = Math.min(size - 1, Math.max(0, (o + 0.5) / factor - 0.5));
      const base = Math.floor(position);
      low[o] = base;
      high[o] = Math.min(size - 1, base + 1);
      fraction[o] = position - base;
    }
    return { low, high, fraction };
  };
  const xs = axis(width, outWidth);
  const ys = axis(height, outHeight);
  const out = Buffer.alloc(outWidth * outHeight * 4);
  const pixels = new Uint32Array(out.buffer, out.byteOffset, outWidth * outHeight);
  // RGBA bytes read as a little-endian 32-bit word.
  const black = 0xff000000;
  const white = 0xffffffff;
  for (let y = 0; y < outHeight; y++) {
    const row0 = (ys.low[y] as number) * width;
    const row1 = (ys.high[y] as number) * width;
    const fy = ys.fraction[y] as number;
    const rowOut = y * outWidth;
    for (let x = 0; x < outWidth; x++) {
      const x0 = xs.low[x] as number;
      const x1 = xs.high[x] as number;
      const fx = xs.fraction[x] as number;
      const top = (lumaPlane[row0 + x0] as number) * (1 - fx) + (lumaPlane[row0 + x1] as number) * fx;
      const bottom = (lumaPlane[row1 + x0] as number) * (1 - fx) + (lumaPlane[row1 + x1] as number) * fx;
      pixels[rowOut + x] = top * (1 - fy) + bottom * fy < threshold ? black : white;
    }
  }
  return out;
}

export async function runTracer(rgba: Buffer, width: number, height: number, config: Config): Promise<string> {
  return vectorizeRaw(rgba, { width, height }, config);
}
