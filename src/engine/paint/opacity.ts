// VTracer traces with binary alpha; a shape drawn from partly transparent pixels (a shadow,
// a glass highlight) gets its opacity back from the source alpha under it, or, for pixel art,
// from the colour its translucent pixels were traced in.

import type { RgbaImage } from '../analyse/prepare.ts';
import { flat, meanColour, shapeBox, type Rgb, type TracedShape } from '../geometry.ts';

/** Samples per shape at most; the mean alpha needs no more. */
const SAMPLES_PER_SHAPE = 4096;
/** Source colours farther than this (sum of channel differences) belong to other shapes. */
const COLOUR_TOLERANCE = 48;
/** Shapes this opaque are written opaque: anti-aliased edges alone lower the mean a little. */
const OPAQUE_ABOVE = 0.9;

export function restoreOpacity(shapes: TracedShape[], image: RgbaImage): void {
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
        if (a < 128) continue;
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
