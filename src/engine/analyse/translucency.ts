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
/**
 * An overlay with opaque details (a translucent pause screen with an opaque title): where the
 * 99th percentile is opaque, the layer's opacity is its commonest alpha, if it is under
 * TRANSLUCENT_BELOW and UNIFORM_SHARE of the visible pixels are near it as above, and drawing the
 * details at it loses little: on average at most MAX_MEAN_LOSS of opacity over the visible pixels,
 * and more than MAX_PIXEL_LOSS at no more than MAX_LOST_SHARE of them (an opaque object on a faint
 * shadow would be drawn faint). Traced as it was, the layer's stacked shapes, each at its own
 * opacity, compounded to opaque and the check, comparing them with the translucent picture, kept
 * a trace of smears (0.50) over the photograph's (0.34).
 */
const MAX_MEAN_LOSS = 0.03;
const MAX_PIXEL_LOSS = 0.15;
const MAX_LOST_SHARE = 0.01;
/** The commonest alpha is taken over bins this many levels either side: lossless formats round an overlay's alpha apart by a level or two. */
const MODE_RADIUS = 2;
/** Fewer visible pixels than this say nothing (a few specks on a transparent canvas). */
const MIN_VISIBLE_PIXELS = 64;
/** Alpha values sampled at most: the quantile needs no more. */
const MAX_SAMPLES = 200_000;

/**
 * The opacity (0–1) of artwork that is translucent as a whole: the alpha that all but 1 % of its
 * visible pixels stay at or under, when that is below TRANSLUCENT_BELOW and most of them are near
 * it (UNIFORM_SHARE), or an overlay's with opaque details (overlayOpacity); undefined for any
 * other image (opaque artwork, alpha that fades across the picture, or nothing visible).
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
      if (opacity >= TRANSLUCENT_BELOW) return overlayOpacity(histogram, visible);
      return isUniform(histogram, visible, alpha) ? opacity : undefined;
    }
  }
  return undefined;
}

/** Whether UNIFORM_SHARE of the `visible` pixels of `histogram` lie within UNIFORM_RANGE of `alpha` or above it. */
function isUniform(histogram: Uint32Array, visible: number, alpha: number): boolean {
  let near = 0;
  for (let a = Math.ceil(UNIFORM_RANGE * alpha); a < 256; a++) near += histogram[a] as number;
  return near >= UNIFORM_SHARE * visible;
}

/** The opacity of an overlay with opaque details (MAX_MEAN_LOSS), or undefined. */
function overlayOpacity(histogram: Uint32Array, visible: number): number | undefined {
  let mode = VISIBLE_ALPHA;
  let modeCount = -1;
  for (let alpha = VISIBLE_ALPHA; alpha < 256; alpha++) {
    let count = 0;
    for (let a = Math.max(VISIBLE_ALPHA, alpha - MODE_RADIUS); a <= Math.min(255, alpha + MODE_RADIUS); a++) count += histogram[a] as number;
    if (count > modeCount || (count === modeCount && (histogram[alpha] as number) > (histogram[mode] as number))) {
      mode = alpha;
      modeCount = count;
    }
  }
  const opacity = Math.round((mode / 255) * 1000) / 1000;
  if (opacity >= TRANSLUCENT_BELOW || !isUniform(histogram, visible, mode)) return undefined;
  let loss = 0;
  let lost = 0;
  for (let a = mode + 1; a < 256; a++) {
    loss += ((histogram[a] as number) * (a - mode)) / 255;
    if ((a - mode) / 255 > MAX_PIXEL_LOSS) lost += histogram[a] as number;
  }
  return loss <= MAX_MEAN_LOSS * visible && lost <= MAX_LOST_SHARE * visible ? opacity : undefined;
}

/** The image with each alpha divided by `opacity` (at most opaque): drawn at `opacity`, it is the image again. */
export function stretchAlpha<T extends RgbaImage>(image: T, opacity: number): T {
  const rgba = Buffer.from(image.rgba);
  for (let i = 3; i < rgba.length; i += 4) rgba[i] = Math.min(255, Math.round((rgba[i] as number) / opacity));
  return { ...image, rgba };
}
