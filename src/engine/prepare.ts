// What the tracer sees: optional enhancement of the input, then the pixels prepared for
// the tracer of the chosen kind (binary ink for line art, binary alpha for colour).

import sharp, { type Sharp } from 'sharp';
import type { ImageKind } from './classify.ts';
import { binariseAlpha, binariseInk, otsuThreshold } from './trace.ts';

export interface RgbaImage {
  rgba: Buffer;
  width: number;
  height: number;
}

/** Line art and small logos below this long side are upscaled 2× by inputEnhance. */
const UPSCALE_BELOW = 600;

function raw(image: RgbaImage): Sharp {
  return sharp(image.rgba, { raw: { width: image.width, height: image.height, channels: 4 } });
}

async function toImage(pipeline: Sharp): Promise<RgbaImage> {
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  return { rgba: data, width: info.width, height: info.height };
}

/**
 * inputEnhance: a median filter removes JPEG ringing and scanner noise before clustering
 * (fewer stray shapes), and small line art is upscaled so thin strokes survive thresholding.
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
      const longSide = Math.max(image.width, image.height);
      let pipeline = raw(image);
      if (longSide < UPSCALE_BELOW) {
        pipeline = sharp(
          await pipeline.resize(image.width * 2, image.height * 2, { kernel: 'lanczos3' }).raw().toBuffer(),
          { raw: { width: image.width * 2, height: image.height * 2, channels: 4 } },
        );
      }
      if (kind === 'sketch') pipeline = pipeline.median(3);
      return toImage(pipeline);
    }
  }
}

export interface PreparedPixels {
  rgba: Buffer;
  /** Paper painted under the traced ink, for opaque line art. */
  background?: { r: number; g: number; b: number };
}

export function prepareForTracer(image: RgbaImage, kind: ImageKind): PreparedPixels {
  if (kind !== 'sketch') return { rgba: binariseAlpha(image.rgba) };
  let transparent = 0;
  for (let i = 3; i < image.rgba.length; i += 4) if ((image.rgba[i] as number) < 128) transparent++;
  const opaque = transparent / (image.width * image.height) < 0.01;
  return {
    rgba: binariseInk(image.rgba, otsuThreshold(image.rgba)),
    background: opaque ? { r: 255, g: 255, b: 255 } : undefined,
  };
}
