// VTracer traces with binary alpha; a shape drawn from partly transparent pixels (a shadow,
// a glass highlight) gets its opacity back from the source alpha under it, or, for pixel art,
// from the colour its translucent pixels were traced in.

import type { RgbaImage } from '../analyse/prepare.ts';
import { flat, meanColour, shapeBox, type Rgb, type TracedShape } from '../geometry.ts';
import { binariseAlpha } from '../trace/vtracer.ts';

/** Samples per shape at most; the mean alpha needs no more. */
const SAMPLES_PER_SHAPE = 4096;
/** Source colours farther than this (sum of channel differences) belong to other shapes. */
const COLOUR_TOLERANCE = 48;
/** Shapes this opaque are written opaque: anti-aliased edges alone lower the mean a little. */
const OPAQUE_ABOVE = 0.9;

export function restoreOpacity(shapes: TracedShape[], image: RgbaImage, minAlpha = 128): void {
  const { rgba, width, height } = image;
  for (const shape of shapes) {
    const box = shapeBox(shape);
    const x0 = Math.max(0, Math.floor(box.x0));
    const y0 = Math.max(0, Math.floor(box.y0));
    const x1 = Math.min(width, Math.ceil(box.x1));
    const y1 = Math.min(height, Math.ceil(box.y1));
    const area = (x1 - x0) * (y1 - y0);
    if (area <= 0) continue;
    const stride = Math.max(1, Math.floor(Math.sqrt(area / SAMPLES_PER_SHAPE)));
    const colour = meanColour(shape.fill);
    let alphaSum = 0;
    let count = 0;
    for (let y = y0; y < y1; y += stride) {
      for (let x = x0; x < x1; x += stride) {
        const i = (y * width + x) * 4;
        const a = rgba[i + 3] as number;
        if (a < minAlpha) continue;
        const distance =
          Math.abs((rgba[i] as number) - colour.r) + Math.abs((rgba[i + 1] as number) - colour.g) + Math.abs((rgba[i + 2] as number) - colour.b);
        if (distance > COLOUR_TOLERANCE) continue;
        alphaSum += a;
        count++;
      }
    }
    if (count === 0) continue;
    const opacity = alphaSum / count / 255;
    shape.opacity = opacity >= OPAQUE_ABOVE ? 1 : Math.round(opacity * 100) / 100;
  }
}

/**
 * The shapes of pixel art's translucent layer, traced in colours of their own (prepare.ts,
 * `translucent`, `splitTranslucentPixels`), each painted in its pixels' own colour and opacity;
 * a shape of any other colour (the layer's ground) is left out.
 */
export function paintTranslucentPixels(shapes: TracedShape[], translucent: ReadonlyMap<number, { color: Rgb; opacity: number }>): TracedShape[] {
  return shapes.flatMap((shape) => {
    if (shape.fill.kind !== 'flat') return [];
    const { r, g, b } = shape.fill.color;
    const paint = translucent.get((r << 16) | (g << 8) | b);
    return paint ? [{ ...shape, fill: flat(paint.color), opacity: Math.round(paint.opacity * 1000) / 1000 }] : [];
  });
}

/** Alpha from this (a sixteenth) to under a half may be a translucent area; below, it is rounding noise. */
const TRANSLUCENT_MIN_ALPHA = 16;
/** Neighbours' alpha this close (levels) is the same alpha: lossy formats round it apart. */
const SAME_ALPHA = 2;
/** Flat translucency over less than this share of the image is left to the binary alpha. */
const TRANSLUCENT_MIN_SHARE = 0.01;

/**
 * An image's flat translucency below half alpha: pixels from a sixteenth to under a half alpha
 * whose alpha a neighbour along each axis shares, as a translucent ground, panel or shadow drawn
 * flat has (anti-aliasing against transparency is a rim a pixel wide, whose alpha changes across
 * it). The tracer keys out everything under half alpha, so a map's sea at 35 % alpha, 44 % of the
 * picture, vanished whole (fidelity 0.38). `traced` has those pixels opaque, for the tracer;
 * `opacity` has them at their own alpha and every other pixel opaque or clear at half alpha, for
 * restoreOpacity with a minimum of 1. Undefined when such pixels cover under 1 % of the image.
 */
export function flatTranslucency(image: RgbaImage): { traced: RgbaImage; opacity: RgbaImage } | undefined {
  const { rgba, width, height } = image;
  const alphaAt = (x: number, y: number) => rgba[(y * width + x) * 4 + 3] as number;
  const same = (a: number, x: number, y: number) => x >= 0 && y >= 0 && x < width && y < height && Math.abs(alphaAt(x, y) - a) <= SAME_ALPHA;
  const flatPixels = new Uint8Array(width * height);
  let count = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const a = alphaAt(x, y);
      if (a < TRANSLUCENT_MIN_ALPHA || a >= 128) continue;
      if ((same(a, x - 1, y) || same(a, x + 1, y)) && (same(a, x, y - 1) || same(a, x, y + 1))) {
        flatPixels[y * width + x] = 1;
        count++;
      }
    }
  }
  if (count < TRANSLUCENT_MIN_SHARE * width * height) return undefined;
  const traced = Buffer.from(rgba);
  // The tracer's own binary alpha, the flat translucency given back its pixels.
  const opacity = binariseAlpha(rgba);
  for (let p = 0; p < width * height; p++) {
    if (!flatPixels[p]) continue;
    traced[p * 4 + 3] = 255;
    rgba.copy(opacity, p * 4, p * 4, p * 4 + 4);
  }
  return { traced: { rgba: traced, width, height }, opacity: { rgba: opacity, width, height } };
}
