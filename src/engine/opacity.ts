// VTracer traces with binary alpha; a shape drawn from partly transparent pixels (a shadow,
// a glass highlight) gets its opacity back from the source alpha under it.

import type { RgbaImage } from './prepare.ts';
import type { TracedShape } from './svg.ts';

/** Samples per shape at most; the mean alpha needs no more. */
const SAMPLES_PER_SHAPE = 4096;
/** Source colours farther than this (sum of channel differences) belong to other shapes. */
const COLOUR_TOLERANCE = 48;
/** Shapes this opaque are written opaque: anti-aliased edges alone lower the mean a little. */
const OPAQUE_ABOVE = 0.9;

function boundingBox(shape: TracedShape): { x0: number; y0: number; x1: number; y1: number } {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  const include = (p: readonly [number, number]): void => {
    x0 = Math.min(x0, p[0]);
    y0 = Math.min(y0, p[1]);
    x1 = Math.max(x1, p[0]);
    y1 = Math.max(y1, p[1]);
  };
  for (const subpath of shape.subpaths) {
    include(subpath.start);
    for (const segment of subpath.segments) include(segment.to);
  }
  return { x0, y0, x1, y1 };
}

export function restoreOpacity(shapes: TracedShape[], image: RgbaImage): void {
  const { rgba, width, height } = image;
  for (const shape of shapes) {
    const box = boundingBox(shape);
    const x0 = Math.max(0, Math.floor(box.x0));
    const y0 = Math.max(0, Math.floor(box.y0));
    const x1 = Math.min(width, Math.ceil(box.x1));
    const y1 = Math.min(height, Math.ceil(box.y1));
    const area = (x1 - x0) * (y1 - y0);
    if (area <= 0) continue;
    const stride = Math.max(1, Math.floor(Math.sqrt(area / SAMPLES_PER_SHAPE)));
    let alphaSum = 0;
    let count = 0;
    for (let y = y0; y < y1; y += stride) {
      for (let x = x0; x < x1; x += stride) {
        const i = (y * width + x) * 4;
        const a = rgba[i + 3] as number;
        if (a < 128) continue;
        const distance =
          Math.abs((rgba[i] as number) - shape.fill.r) +
          Math.abs((rgba[i + 1] as number) - shape.fill.g) +
          Math.abs((rgba[i + 2] as number) - shape.fill.b);
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
