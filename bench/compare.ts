// How a candidate (a rendered SVG or an enlarged raster) is compared with its reference, pixel
// for pixel at one size. Both are composited on white and on black, so that artwork on
// transparency is judged on the backgrounds it will be shown on, and:
// - SSIM (bench/ssim.ts) on luma, the mean over the image: the lower of the two backgrounds;
// - the worst region: the image is cut into square windows (a sixteenth of the long side, at
//   least 8 px, overlapping by half); each window's mean Oklab colour difference (ΔE_ok, the per
//   pixel maximum of the two backgrounds) and mean SSIM (the per pixel minimum) are taken, and the
//   worst window is reported. A lost eye, a vanished light icon or a colour bled into its
//   neighbour is a few per cent of the image, which the mean hides and the worst window does not;
// - opaque coverage: the share of pixels with alpha ≥ 0.5, candidate minus reference.
// ΔE_ok is reported ×100 (a step of about 2 is just noticeable side by side).
import { srgbToLinear, linearSrgbToOklab } from './oklab.ts';
import { ssimMap, type GrayImage } from './ssim.ts';

/** RGBA pixels, straight (sharp) or premultiplied (resvg) alpha. */
export interface RgbaImage {
  data: Uint8Array;
  width: number;
  height: number;
  premultiplied: boolean;
}

export interface Comparison {
  /** Mean SSIM on luma, the lower of white and black backgrounds. */
  ssim: number;
  /** The lowest mean SSIM of any window. */
  worstSsim: number;
  /** Mean ΔE_ok × 100 over the image. */
  meanDe: number;
  /** The highest mean ΔE_ok × 100 of any window. */
  worstDe: number;
  /** Where that window is, in pixels of the compared images. */
  worstAt: WindowAt;
  /** Opaque coverage (alpha ≥ 0.5) of the candidate minus the reference's, as a share of the image (−1…1). */
  coverage: number;
  /** Smooth crops of large images only (crops.ts, stepSteepness): how much steeper the candidate's steepest tone changes are. */
  steps?: number;
}

const BACKGROUNDS = [255, 0] as const;

export interface WindowAt {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The window side for an image whose long side is `longSide` px. */
export function windowSide(longSide: number): number {
  return Math.max(8, Math.round(longSide / 16));
}

/** The image composited on a grey level `background` (0 or 255): sRGB values 0–255, three per pixel. */
export function composite(image: RgbaImage, background: number): Float32Array {
  const n = image.width * image.height;
  const out = new Float32Array(n * 3);
  const { data } = image;
  for (let i = 0; i < n; i++) {
    const alpha = (data[i * 4 + 3] as number) / 255;
    for (let c = 0; c < 3; c++) {
      const value = data[i * 4 + c] as number;
      out[i * 3 + c] = image.premultiplied ? value + (1 - alpha) * background : value * alpha + (1 - alpha) * background;
    }
  }
  return out;
}

/** BT.601 luma of composited pixels, as bench/ssim.ts's toGray computes it. */
function luma(rgb: Float32Array, width: number, height: number): GrayImage {
  const data = new Float64Array(width * height);
  for (let i = 0; i < data.length; i++) {
    data[i] = 0.299 * (rgb[i * 3] as number) + 0.587 * (rgb[i * 3 + 1] as number) + 0.114 * (rgb[i * 3 + 2] as number);
  }
  return { data, width, height };
}

/** Luma of the image composited on `background`, without keeping its colours (large images). */
function lumaOn(image: RgbaImage, background: number): GrayImage {
  const n = image.width * image.height;
  const data = new Float64Array(n);
  const weights = [0.299, 0.587, 0.114];
  for (let i = 0; i < n; i++) {
    const alpha = (image.data[i * 4 + 3] as number) / 255;
    let value = 0;
    for (let c = 0; c < 3; c++) {
      const channel = image.data[i * 4 + c] as number;
      value += (weights[c] as number) * (image.premultiplied ? channel + (1 - alpha) * background : channel * alpha + (1 - alpha) * background);
    }
    data[i] = value;
  }
  return { data, width: image.width, height: image.height };
}

/** Mean SSIM alone, the lower of white and black: the measure of the sections at full resolution. */
export function ssimOnBackgrounds(reference: RgbaImage, candidate: RgbaImage): number {
  if (candidate.width !== reference.width || candidate.height !== reference.height) {
    throw new Error(`compare: ${candidate.width}×${candidate.height} against ${reference.width}×${reference.height}`);
  }
  return Math.min(...BACKGROUNDS.map((background) => ssimMap(lumaOn(reference, background), lumaOn(candidate, background)).mean));
}

/** Oklab of composited pixels, three per pixel. */
function oklab(rgb: Float32Array): Float32Array {
  const out = new Float32Array(rgb.length);
  for (let i = 0; i < rgb.length; i += 3) {
    const [l, a, b] = linearSrgbToOklab(srgbToLinear(rgb[i] as number), srgbToLinear(rgb[i + 1] as number), srgbToLinear(rgb[i + 2] as number));
    out[i] = l;
    out[i + 1] = a;
    out[i + 2] = b;
  }
  return out;
}

/**
 * Means of `values` (width × height) over square windows of `side` px, `side / 2` apart, each
 * clipped to the image; returns the extreme one (the highest, or the lowest with `lowest`) and where.
 */
export function worstWindow(values: Float64Array, width: number, height: number, side: number, lowest = false): { value: number; at: WindowAt } {
  // Summed-area table, one row and column larger.
  const stride = width + 1;
  const sums = new Float64Array(stride * (height + 1));
  for (let y = 0; y < height; y++) {
    let row = 0;
    for (let x = 0; x < width; x++) {
      row += values[y * width + x] as number;
      sums[(y + 1) * stride + x + 1] = (sums[y * stride + x + 1] as number) + row;
    }
  }
  const windowWidth = Math.min(side, width);
  const windowHeight = Math.min(side, height);
  const step = Math.max(1, Math.floor(side / 2));
  const starts = (length: number, size: number): number[] => {
    const positions: number[] = [];
    for (let at = 0; at + size < length; at += step) positions.push(at);
    positions.push(length - size);
    return positions;
  };
  let worst = lowest ? Infinity : -Infinity;
  let at: WindowAt = { x: 0, y: 0, width: windowWidth, height: windowHeight };
  for (const y0 of starts(height, windowHeight)) {
    for (const x0 of starts(width, windowWidth)) {
      const y1 = y0 + windowHeight;
      const x1 = x0 + windowWidth;
      const sum = (sums[y1 * stride + x1] as number) - (sums[y0 * stride + x1] as number) - (sums[y1 * stride + x0] as number) + (sums[y0 * stride + x0] as number);
      const mean = sum / (windowWidth * windowHeight);
      if (lowest ? mean < worst : mean > worst) {
        worst = mean;
        at = { x: x0, y: y0, width: windowWidth, height: windowHeight };
      }
    }
  }
  return { value: worst, at };
}

function opaqueShare(image: RgbaImage): number {
  let opaque = 0;
  const n = image.width * image.height;
  for (let i = 0; i < n; i++) if ((image.data[i * 4 + 3] as number) >= 128) opaque++;
  return opaque / n;
}

/** Compares `candidate` with `reference`, which must be the same size. */
export function compareImages(reference: RgbaImage, candidate: RgbaImage): Comparison {
  const { width, height } = reference;
  if (candidate.width !== width || candidate.height !== height) {
    throw new Error(`compare: ${candidate.width}×${candidate.height} against ${width}×${height}`);
  }
  const n = width * height;
  const side = windowSide(Math.max(width, height));
  const deltaE = new Float64Array(n);
  let ssim = Infinity;
  let ssimPixels: Float64Array | null = null;
  let ssimWidth = 0;
  let ssimHeight = 0;
  for (const background of BACKGROUNDS) {
    const referenceRgb = composite(reference, background);
    const candidateRgb = composite(candidate, background);
    const referenceLab = oklab(referenceRgb);
    const candidateLab = oklab(candidateRgb);
    for (let i = 0; i < n; i++) {
      const dl = (referenceLab[i * 3] as number) - (candidateLab[i * 3] as number);
      const da = (referenceLab[i * 3 + 1] as number) - (candidateLab[i * 3 + 1] as number);
      const db = (referenceLab[i * 3 + 2] as number) - (candidateLab[i * 3 + 2] as number);
      deltaE[i] = Math.max(deltaE[i] as number, Math.sqrt(dl * dl + da * da + db * db) * 100);
    }
    const map = ssimMap(luma(referenceRgb, width, height), luma(candidateRgb, width, height));
    ssim = Math.min(ssim, map.mean);
    if (ssimPixels === null) {
      ssimPixels = map.data;
      ssimWidth = map.width;
      ssimHeight = map.height;
    } else {
      for (let i = 0; i < ssimPixels.length; i++) ssimPixels[i] = Math.min(ssimPixels[i] as number, map.data[i] as number);
    }
  }
  let deSum = 0;
  for (let i = 0; i < n; i++) deSum += deltaE[i] as number;
  const worstDe = worstWindow(deltaE, width, height, side);
  return {
    ssim,
    worstSsim: worstWindow(ssimPixels as Float64Array, ssimWidth, ssimHeight, side, true).value,
    meanDe: deSum / n,
    worstDe: worstDe.value,
    worstAt: worstDe.at,
    coverage: opaqueShare(candidate) - opaqueShare(reference),
  };
}
