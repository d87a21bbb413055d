// Large images at 100 %: crops of the original at full resolution against the same crops of an
// SVG drawn at the original size. The baseline is what a user of raw VTracer would do with a large
// photo: shrink it to 1.5 MP, trace that, and show the SVG at the original size.
import { vectorizeRaw } from '@neplex/vectorizer';
import sharp from 'sharp';
import { compareImages, type Comparison, type RgbaImage } from './compare.ts';
import { MAX_INPUT_PIXELS, renderSvg, VTRACER_CLI_DEFAULTS } from './measure.ts';
import { croppedSvg } from '../src/engine/check/render.ts';
import { gaussianBlur } from '../src/engine/paint/soft-edges.ts';

export { croppedSvg };

/** Images of at least this many pixels are large: robust.ts leaves their copies out. */
export const LARGE_PIXELS = 8_000_000;
/**
 * Images of at least this many pixels are also compared at 100 %. Until the third round of issue
 * 18 it was LARGE_PIXELS: the 4.6 MP corpus map, traced at a working pixel for four of its own,
 * showed 4 px steps and merged buildings at 100 % that no measure saw.
 */
export const CROP_PIXELS = 4_000_000;
/** Side of each crop, in original pixels. */
export const CROP_SIDE = 512;
/** VTracer's baseline traces the image shrunk to this many pixels. */
export const SHRUNK_PIXELS = 1_500_000;
/** Tiles are ranked by detail on the image shrunk by this factor. */
const RANKING_SHRINK = 8;
/** A tile whose luma varies less than this (standard deviation, 0–255) is flat, not smooth. */
const FLAT_STD = 4;

export type CropName = 'centre' | 'detail' | 'smooth';

export interface Crop {
  name: CropName;
  left: number;
  top: number;
  width: number;
  height: number;
}

export const CROP_METHOD = [
  `Images of ${CROP_PIXELS / 1e6} MP or more are also compared at 100 %, in up to three ${CROP_SIDE}×${CROP_SIDE} crops of the original at`,
  'full resolution: the centre; the most detailed tile and the smoothest tile that is not flat, of a grid of',
  `${CROP_SIDE} px tiles ranked on the image shrunk ${RANKING_SHRINK}× by their mean luma gradient (flat: luma standard deviation`,
  `under ${FLAT_STD}; the smooth tile is where banding shows). Each SVG is drawn at the original size with resvg, only`,
  'the crop rendered (its viewBox narrowed to the crop). The baseline is raw VTracer on the image shrunk',
  `to ${SHRUNK_PIXELS / 1e6} MP (Lanczos 3), its SVG drawn at the original size.`,
];

/** The crops of an image of `width`×`height`: centre, most detailed tile, smoothest tile that is not flat. */
export async function chooseCrops(bytes: Buffer, width: number, height: number): Promise<Crop[]> {
  const side = Math.min(CROP_SIDE, width, height);
  const crops: Crop[] = [{ name: 'centre', left: Math.floor((width - side) / 2), top: Math.floor((height - side) / 2), width: side, height: side }];
  const smallWidth = Math.max(1, Math.round(width / RANKING_SHRINK));
  const smallHeight = Math.max(1, Math.round(height / RANKING_SHRINK));
  const { data } = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .resize(smallWidth, smallHeight, { fit: 'fill' })
    .flatten({ background: '#ffffff' })
    .greyscale()
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  const tile = Math.floor(side / RANKING_SHRINK);
  const tiles: { left: number; top: number; gradient: number; std: number }[] = [];
  for (let ty = 0; (ty + 1) * side <= height; ty++) {
    for (let tx = 0; (tx + 1) * side <= width; tx++) {
      let gradient = 0;
      let sum = 0;
      let squares = 0;
      let count = 0;
      const y0 = Math.floor((ty * side) / RANKING_SHRINK);
      const x0 = Math.floor((tx * side) / RANKING_SHRINK);
      for (let y = y0; y < Math.min(y0 + tile, smallHeight - 1); y++) {
        for (let x = x0; x < Math.min(x0 + tile, smallWidth - 1); x++) {
          const value = data[y * smallWidth + x] as number;
          gradient += Math.abs(value - (data[y * smallWidth + x + 1] as number)) + Math.abs(value - (data[(y + 1) * smallWidth + x] as number));
          sum += value;
          squares += value * value;
          count++;
        }
      }
      if (count === 0) continue;
      const mean = sum / count;
      tiles.push({ left: tx * side, top: ty * side, gradient: gradient / count, std: Math.sqrt(Math.max(0, squares / count - mean * mean)) });
    }
  }
  const overlapsChosen = (t: { left: number; top: number }): boolean =>
    crops.some((crop) => Math.abs(crop.left - t.left) < side && Math.abs(crop.top - t.top) < side);
  const detailed = [...tiles].sort((a, b) => b.gradient - a.gradient).find((t) => !overlapsChosen(t));
  if (detailed) crops.push({ name: 'detail', left: detailed.left, top: detailed.top, width: side, height: side });
  const smooth = [...tiles].filter((t) => t.std >= FLAT_STD).sort((a, b) => a.gradient - b.gradient).find((t) => !overlapsChosen(t));
  if (smooth) crops.push({ name: 'smooth', left: smooth.left, top: smooth.top, width: side, height: side });
  return crops;
}

/** The crop of the original at full resolution, straight RGBA. */
export async function originalCrop(bytes: Buffer, crop: Crop): Promise<RgbaImage> {
  const { data, info } = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .extract({ left: crop.left, top: crop.top, width: crop.width, height: crop.height })
    .toColourspace('srgb')
    .ensureAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, premultiplied: false };
}

/** An SVG of an image of `width`×`height` rendered at 100 % in `crop`. */
export function svgCrop(svg: string, width: number, height: number, crop: Crop): RgbaImage {
  const image = renderSvg(croppedSvg(svg, width, height, crop), crop.width);
  if (image.height === crop.height) return image;
  throw new Error(`svgCrop: rendered ${image.width}×${image.height} for a ${crop.width}×${crop.height} crop`);
}

/** Compares every crop of `svg` with the original's; the smooth crop's steps too (stepSteepness). */
export async function compareCrops(bytes: Buffer, svg: string, width: number, height: number, crops: Crop[]): Promise<Comparison[]> {
  const comparisons: Comparison[] = [];
  for (const crop of crops) {
    const original = await originalCrop(bytes, crop);
    const drawn = svgCrop(svg, width, height, crop);
    const comparison = compareImages(original, drawn);
    comparisons.push(crop.name === 'smooth' ? { ...comparison, steps: stepSteepness(original, drawn) } : comparison);
  }
  return comparisons;
}

/** The blur (px) under which grain averages out before tones are compared. */
const STEP_BLUR_SIGMA = 4.5;
/** The share of pixels whose tone changes most: the steps, where a smooth crop has them. */
const STEP_QUANTILE = 0.99;

export const STEP_METHOD = [
  'Steps: a smooth tile traced as bands of flat colour a few shades apart (a sky in stripes) scores within a hundredth',
  'of SSIM of the same tile traced as a ramp, since the grain of the original weighs more. So the smooth crop also gets',
  `\`steps\`: on luma under a Gaussian blur of ${STEP_BLUR_SIGMA} px (grain averaged out), the ${STEP_QUANTILE * 100}th percentile of`,
  'the tone gradient\'s length, the trace\'s divided by the original\'s. About 1: tones change as steeply as in the original;',
  '2: the trace has steps twice as steep as anything there.',
];

/** Straight RGBA (sharp) or premultiplied (resvg) pixels as luma on white. */
function lumaOnWhite(image: RgbaImage): Float64Array {
  const out = new Float64Array(image.width * image.height);
  for (let p = 0; p < out.length; p++) {
    const o = p * 4;
    const alpha = (image.data[o + 3] as number) / 255;
    const luma = 0.299 * (image.data[o] as number) + 0.587 * (image.data[o + 1] as number) + 0.114 * (image.data[o + 2] as number);
    out[p] = image.premultiplied ? luma + 255 * (1 - alpha) : luma * alpha + 255 * (1 - alpha);
  }
  return out;
}

/** The STEP_QUANTILE of the blurred luma's gradient length, away from the crop's border. */
function steepestChange(image: RgbaImage): number {
  const { width, height } = image;
  const blurred = gaussianBlur(lumaOnWhite(image), width, height, STEP_BLUR_SIGMA);
  // The blur fades to clear beyond the crop: its border is left out.
  const margin = Math.ceil(3 * STEP_BLUR_SIGMA);
  const lengths: number[] = [];
  for (let y = margin; y < height - margin - 1; y++) {
    for (let x = margin; x < width - margin - 1; x++) {
      const i = y * width + x;
      lengths.push(Math.hypot((blurred[i + 1] as number) - (blurred[i] as number), (blurred[i + width] as number) - (blurred[i] as number)));
    }
  }
  lengths.sort((a, b) => a - b);
  return lengths[Math.floor(lengths.length * STEP_QUANTILE)] ?? 0;
}

/** How much steeper the candidate's steepest tone changes are than the reference's (STEP_METHOD). */
export function stepSteepness(reference: RgbaImage, candidate: RgbaImage): number {
  // A tenth of a level per pixel: below it the original counts as even, not as infinitely smoother.
  return steepestChange(candidate) / Math.max(0.1, steepestChange(reference));
}

/** Raw VTracer on the image shrunk to SHRUNK_PIXELS, at its command-line defaults. */
export async function traceShrunkWithVtracer(bytes: Buffer, width: number, height: number): Promise<{ svg: string; timeMs: number }> {
  const started = performance.now();
  const scale = Math.min(1, Math.sqrt(SHRUNK_PIXELS / (width * height)));
  const { data, info } = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .resize(Math.round(width * scale), Math.round(height * scale), { fit: 'fill', kernel: 'lanczos3' })
    .toColourspace('srgb')
    .ensureAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  const svg = await vectorizeRaw(data, { width: info.width, height: info.height }, VTRACER_CLI_DEFAULTS);
  return { svg, timeMs: performance.now() - started };
}
