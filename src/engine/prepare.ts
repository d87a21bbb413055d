// What the tracer sees: the image at the working resolution of its kind, optionally
// enhanced, then reduced to what the tracer handles well — binary ink for line art,
// a small palette with binary alpha for colour work, exact pixels for pixel art.

import sharp, { type Sharp } from 'sharp';
import type { ImageKind } from './classify.ts';
import { workingSize } from './decode.ts';
import { reducePalette } from './palette.ts';
import { binariseAlpha, binariseInk, binariseInkUpscaled, otsuThreshold } from './trace.ts';

export interface RgbaImage {
  rgba: Buffer;
  width: number;
  height: number;
}

/**
 * Pixels traced per kind. Binary tracing is cheap and thin strokes need resolution;
 * colour tracing costs grow with the number of regions, so photos get the least.
 */
export const WORKING_PIXELS: Record<ImageKind, number> = {
  sketch: 4_000_000,
  logo: 2_000_000,
  photo: 400_000,
  pixelart: 1_000_000,
};

/** PNG and WebP are decoded at this size, classified, then reduced per kind (line art decoded again, larger). */
export const DECODE_PIXELS = WORKING_PIXELS.logo;

/** Line art and small logos below this long side are upscaled 2× by inputEnhance. */
const UPSCALE_BELOW = 600;

function raw(image: RgbaImage): Sharp {
  return sharp(image.rgba, { raw: { width: image.width, height: image.height, channels: 4 } });
}

async function toImage(pipeline: Sharp): Promise<RgbaImage> {
  const { data, info } = await pipeline.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { rgba: data, width: info.width, height: info.height };
}

/** Resamples to exactly this size. */
export async function resizeTo(image: RgbaImage, width: number, height: number): Promise<RgbaImage> {
  if (width === image.width && height === image.height) return image;
  return toImage(raw(image).resize(width, height, { fit: 'fill', kernel: 'lanczos3' }));
}

/** Downscales to at most this many pixels (never upscales). */
export async function fitToPixels(image: RgbaImage, maxPixels: number): Promise<RgbaImage> {
  const size = workingSize(image.width, image.height, maxPixels);
  if (size.width === image.width && size.height === image.height) return image;
  return toImage(raw(image).resize(size.width, size.height, { fit: 'fill', kernel: 'lanczos3' }));
}

/**
 * Line art at its native size is traced upscaled (bilinear luma, then thresholded): stroke widths
 * land on half or quarter pixels instead of whole ones, so thin lines keep their weight.
 * Binary tracing is cheap enough for this; see docs/benchmarks.md.
 */
export function sketchUpscaleFactor(pixels: number): number {
  if (pixels * 16 <= 4_000_000) return 4;
  if (pixels * 4 <= 16_000_000) return 2;
  return 1;
}

/** Brings the image to the working size of its kind (line art is upscaled later, while thresholding). */
export function fitToBudget(image: RgbaImage, kind: ImageKind): Promise<RgbaImage> {
  return fitToPixels(image, WORKING_PIXELS[kind]);
}

/**
 * inputEnhance: a median filter removes JPEG ringing and scanner noise before clustering
 * (fewer stray shapes), and small line art and logos are upscaled so thin strokes survive.
 * Pixel art is left alone: every pixel is meant.
 */
export async function enhanceInput(image: RgbaImage, kind: ImageKind): Promise<RgbaImage> {
  switch (kind) {
    case 'pixelart':
      return image;
    case 'photo':
      return toImage(raw(image).median(3));
    case 'logo':
    case 'sketch': {
      let current = image;
      if (Math.max(image.width, image.height) < UPSCALE_BELOW) {
        current = await toImage(raw(image).resize(image.width * 2, image.height * 2, { kernel: 'lanczos3' }));
      }
      return kind === 'sketch' ? toImage(raw(current).median(3)) : current;
    }
  }
}

/** colorPrecision 1–8 onto the palette size the colour image is reduced to before tracing. */
export const PALETTE_COLOURS = [2, 4, 8, 16, 32, 64, 128, 256] as const;

/**
 * Reduces the image to a palette without dithering (libimagequant through sharp, then
 * reducePalette for sizes sharp does not honour). VTracer merges smooth gradients into one
 * flat layer; a palette turns them into bands it keeps, and flattens JPEG noise that would
 * otherwise become thousands of specks.
 */
export async function quantiseColours(image: RgbaImage, colours: number): Promise<RgbaImage> {
  const png = await raw(image)
    .png({ palette: true, colours: Math.min(256, colours), dither: 0, effort: 1, compressionLevel: 0 })
    .toBuffer();
  const quantised = await toImage(sharp(png).toColourspace('srgb'));
  if (colours <= 16 || colours >= 256) return quantised;
  return { ...quantised, rgba: reducePalette(quantised.rgba, colours) };
}

export interface PreparedPixels {
  rgba: Buffer;
  /** Paper painted under the traced ink, for opaque line art. */
  background?: { r: number; g: number; b: number };
}

/**
 * Colour boundaries (pixels whose right or lower neighbour has another colour) the tracer
 * may get per kind: its time grows with them, so a busy image is traced smaller rather than slower.
 */
const BOUNDARY_BUDGET: Partial<Record<ImageKind, number>> = { photo: 260_000, logo: 300_000 };

export function countBoundaries(rgba: Buffer, width: number, height: number): number {
  let boundaries = 0;
  for (let y = 0; y + 1 < height; y++) {
    for (let x = 0; x + 1 < width; x++) {
      const i = (y * width + x) * 4;
      const here = rgba.readUInt32LE(i);
      if (here !== rgba.readUInt32LE(i + 4) || here !== rgba.readUInt32LE(i + width * 4)) boundaries++;
    }
  }
  return boundaries;
}

export interface PreparedImage extends PreparedPixels {
  width: number;
  height: number;
}

/** Prepares the pixels, shrinking a colour image whose boundaries exceed its kind's budget. */
export async function prepareWithinBudget(
  image: RgbaImage,
  kind: ImageKind,
  colorPrecision: number,
  sketchUpscale: number,
): Promise<PreparedImage> {
  if (kind === 'sketch') {
    const prepared = prepareLineArt(image, sketchUpscale);
    return { ...prepared, width: image.width * sketchUpscale, height: image.height * sketchUpscale };
  }
  let current = image;
  for (let attempt = 0; ; attempt++) {
    const prepared = await prepareForTracer(current, kind, colorPrecision);
    const budget = BOUNDARY_BUDGET[kind];
    // One shrink is enough: a second would cost another palette pass for little gain.
    if (budget === undefined || attempt === 1) return { ...prepared, width: current.width, height: current.height };
    const boundaries = countBoundaries(prepared.rgba, current.width, current.height);
    if (boundaries <= budget) return { ...prepared, width: current.width, height: current.height };
    // Boundaries shrink between linearly (edges) and with the area (noise) as the image shrinks.
    const pixels = current.width * current.height * (budget / boundaries) ** 1.5;
    current = await fitToPixels(current, Math.max(16_384, pixels));
  }
}

/** Line art: ink black, paper white (painted as a background when the source is opaque). */
function prepareLineArt(image: RgbaImage, upscale: number): PreparedPixels {
  let transparent = 0;
  for (let i = 3; i < image.rgba.length; i += 4) if ((image.rgba[i] as number) < 128) transparent++;
  const opaque = transparent / (image.width * image.height) < 0.01;
  const threshold = otsuThreshold(image.rgba);
  return {
    rgba:
      upscale > 1
        ? binariseInkUpscaled(image.rgba, image.width, image.height, upscale, threshold)
        : binariseInk(image.rgba, threshold),
    background: opaque ? { r: 255, g: 255, b: 255 } : undefined,
  };
}

export async function prepareForTracer(image: RgbaImage, kind: ImageKind, colorPrecision: number): Promise<PreparedPixels> {
  switch (kind) {
    case 'sketch':
      return prepareLineArt(image, 1);
    case 'pixelart':
      return { rgba: binariseAlpha(image.rgba) };
    case 'photo':
    case 'logo': {
      const colours = PALETTE_COLOURS[colorPrecision - 1] ?? 32;
      const quantised = await quantiseColours(image, colours);
      return { rgba: binariseAlpha(quantised.rgba) };
    }
  }
}
