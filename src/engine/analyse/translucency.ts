// Artwork that is translucent as a whole: an overlay, a watermark, a wallpaper meant to lie over a
// desktop colour. Its most opaque pixels are well short of opaque, so the tracer's binary alpha
// (a pixel under half alpha is transparent) drops much of it, and shapes stacked under one
// another, each given its own opacity, darken where they overlap. It is traced instead with its
// alpha stretched so that its most opaque pixels are opaque, and the drawing is given back the
// opacity it was stretched by, once, over all its shapes (docs/parameters.md, "Translucent artwork").

import type { RgbaImage } from './prepare.ts';

/** A pixel at least this opaque (0–255) is part of the artwork when the stretch is measured. */
const VISIBLE_ALPHA = 8;
/** The share of the visible pixels at or below the alpha taken as the artwork's own opacity. */
const OPACITY_QUANTILE = 0.99;
/** Artwork whose own opacity is at least this is opaque: anti-aliasing and soft edges are its own. */
export const TRANSLUCENT_BELOW = 0.9;
/** Fewer visible pixels than this say nothing (a few specks on a transparent canvas). */
const MIN_VISIBLE_PIXELS = 64;
/** Alpha values sampled at most: the quantile needs no more. */
const MAX_SAMPLES = 200_000;

/**
 * The opacity (0–1) of artwork that is translucent as a whole: the alpha that all but 1 % of its
 * visible pixels stay at or under, when that is below TRANSLUCENT_BELOW; undefined for any other
 * image (opaque pixels anywhere, or nothing visible).
 */
export function translucentOpacity(image: RgbaImage): number | undefined {
  const { rgba } = image;
  const pixels = rgba.length / 4;
  const stride = Math.max(1, Math.floor(pixels / MAX_SAMPLES));
  const histogram = new Uint32Array(256);
  let visible = 0;
  for (let i = 3; i < rgba.length; i += 4 * stride) {
    const alpha = rgba[i] as number;
    if (alpha < VISIBLE_ALPHA) continue;
    histogram[alpha] = (histogram[alpha] as number) + 1;
    visible++;
  }
  if (visible * stride < MIN_VISIBLE_PIXELS) return undefined;
  let below = 0;
  for (let alpha = VISIBLE_ALPHA; alpha < 256; alpha++) {
    below += histogram[alpha] as number;
    if (below >= OPACITY_QUANTILE * visible) {
      // Rounded as the SVG writes it, so that the stretch and the opacity drawn cancel.
      const opacity = Math.round((alpha / 255) * 1000) / 1000;
      return opacity < TRANSLUCENT_BELOW ? opacity : undefined;
    }
  }
  return undefined;
}

/** The image with each alpha divided by `opacity` (at most opaque): drawn at `opacity`, it is the image again. */
export function stretchAlpha<T extends RgbaImage>(image: T, opacity: number): T {
  const rgba = Buffer.from(image.rgba);
  for (let i = 3; i < rgba.length; i += 4) rgba[i] = Math.min(255, Math.round((rgba[i] as number) / opacity));
  return { ...image, rgba };
}
