// What the segmentation passes measure of regions: transparency, thinness, hue distance.
import { meanOf, MOMENT_STRIDE, pixelCount, type Colour } from './moments.ts';

/** Regions whose mean alpha is below this (0–255) are not painted. */
export const TRANSPARENT_BELOW = 8;

/** A thin region is at most this wide (pixels): 2 × area ÷ perimeter. */
export const THIN_MAX_WIDTH = 2;

export function isClear(sums: Float64Array, region: number): boolean {
  return (meanOf(sums, region * MOMENT_STRIDE)[3] as number) < TRANSPARENT_BELOW;
}

export function isThin(sums: Float64Array, perimeter: Float64Array, region: number): boolean {
  const p = perimeter[region] as number;
  return p > 0 && (2 * pixelCount(sums, region * MOMENT_STRIDE)) / p <= THIN_MAX_WIDTH;
}

/** Pixel edges between each region and anything else (other regions or transparency), inside the image. */
export function perimeters(labels: Int32Array, count: number, width: number, height: number): Float64Array {
  const perimeter = new Float64Array(count);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const here = labels[i] as number;
      if (x + 1 < width && labels[i + 1] !== here) {
        if (here >= 0) perimeter[here] = (perimeter[here] as number) + 1;
        const right = labels[i + 1] as number;
        if (right >= 0) perimeter[right] = (perimeter[right] as number) + 1;
      }
      if (y + 1 < height && labels[i + width] !== here) {
        if (here >= 0) perimeter[here] = (perimeter[here] as number) + 1;
        const below = labels[i + width] as number;
        if (below >= 0) perimeter[below] = (perimeter[below] as number) + 1;
      }
    }
  }
  return perimeter;
}

/** A premultiplied colour's straight RGB, alpha divided out; null for a near-transparent one, whose colour is mostly rounding. */
export function straightRgb(colour: Colour): [number, number, number] | null {
  const alpha = colour[3];
  if (alpha < 16) return null;
  return [((colour[0] as number) * 255) / alpha, ((colour[1] as number) * 255) / alpha, ((colour[2] as number) * 255) / alpha];
}

/** Sum of RGB differences of two premultiplied colours once alpha is divided out; infinite for near-transparent ones. */
export function hueDistance(a: Colour, b: Colour): number {
  const straightA = straightRgb(a);
  const straightB = straightRgb(b);
  if (!straightA || !straightB) return Infinity;
  return Math.abs(straightA[0] - straightB[0]) + Math.abs(straightA[1] - straightB[1]) + Math.abs(straightA[2] - straightB[2]);
}
