// Artwork that is translucent as a whole: an overlay, a watermark, a wallpaper meant to lie over a
// desktop colour, its pixels at about one alpha. Its most opaque pixels are well short of opaque,
// so the tracer's binary alpha (a pixel under half alpha is transparent) drops much of it, and
// shapes stacked under one another, each given its own opacity, darken where they overlap. It is
// traced instead with its alpha stretched so that its most opaque pixels are opaque, and the
// drawing is given back the opacity it was stretched by, once, over all its shapes
// (docs/parameters.md, "Translucent artwork").

import type { RgbaImage } from './prepare.ts';

/** A pixel at least this opaque (0–255) is part of the artwork when the stretch is measured. */
const VISIBLE_ALPHA = 8;
/** The share of the visible pixels at or below the alpha taken as the artwork's own opacity. */
const OPACITY_QUANTILE = 0.99;
/** Artwork whose own opacity is at least this is opaque: anti-aliasing and soft edges are its own. */
export const TRANSLUCENT_BELOW = 0.9;
/**
 * At least this share of the visible pixels lie within UNIFORM_RANGE of that opacity: the layer is
 * translucent as a whole, and its colours carry the picture. Where alpha itself carries it (a white
 * wave fading from 0 to 0.6 alpha), stretching pushes the fade's top over the opaque silhouettes'
 * threshold, and the trace loses the fade (MATE's waves wallpaper: coverage +38 %).
 */
const UNIFORM_SHARE = 0.75;
/** ...where within means at least this share of the opacity. */
const UNIFORM_RANGE = 0.8;
/** Fewer visible pixels than this say nothing (a few specks on a transparent canvas). */
const MIN_VISIBLE_PIXELS = 64;
/** Alpha values sampled at most: the quantile needs no more. */
const MAX_SAMPLES = 200_000;

/**
 * The opacity (0–1) of artwork that is translucent as a whole: the alpha that all but 1 % of its
 * visible pixels stay at or under, when that is below TRANSLUCENT_BELOW and most of them are near
 * it (UNIFORM_SHARE); undefined for any other image (opaque pixels anywhere, alpha that fades
 * across the picture, or nothing visible).
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
      if (opacity >= TRANSLUCENT_BELOW) return undefined;
      let near = 0;
      for (let a = Math.ceil(UNIFORM_RANGE * alpha); a < 256; a++) near += histogram[a] as number;
      return near >= UNIFORM_SHARE * visible ? opacity : undefined;
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
