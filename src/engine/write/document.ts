// What every writer other than SVG needs from the geometry model: coordinates in original
// pixels rounded as the SVG writer rounds them, gradients in original pixels with stops as
// SVG reads them, and shapes in paint order joined as the SVG writer joins them.

import type { GradientPaint, GradientStop, VectorImage } from '../geometry.ts';

/** Rounds working coordinates to original pixels at `decimals` places, as the SVG writer does. */
export interface CoordinateRounding {
  x(value: number): number;
  y(value: number): number;
}

export function coordinateRounding(image: VectorImage, decimals: number): CoordinateRounding {
  const unit = 10 ** decimals;
  const sx = image.scaleX * unit;
  const sy = image.scaleY * unit;
  return {
    x: (value) => Math.round(value * sx) / unit,
    y: (value) => Math.round(value * sy) / unit,
  };
}

export type DocumentGradient =
  | { kind: 'linear'; x1: number; y1: number; x2: number; y2: number; stops: GradientStop[] }
  | { kind: 'radial'; cx: number; cy: number; r: number; stops: GradientStop[] };

/**
 * Stops as SVG applies them: offsets clamped to 0–1 and never below the previous one, the
 * first colour padded back to 0 and the last forward to 1 (PDF and PostScript functions span
 * the whole domain).
 */
export function normaliseStops(stops: readonly GradientStop[]): GradientStop[] {
  const out: GradientStop[] = [];
  let previous = 0;
  for (const stop of stops) {
    const offset = Math.max(previous, Math.min(1, Math.max(0, stop.offset)));
    out.push({ ...stop, offset });
    previous = offset;
  }
  const first = out[0];
  const last = out[out.length - 1];
  if (!first || !last) return [];
  if (first.offset > 0) out.unshift({ ...first, offset: 0 });
  if (last.offset < 1) out.push({ ...last, offset: 1 });
  return out;
}

/** A gradient paint in original pixels (radial radius scaled by the mean of the two axes, as in SVG). */
export function documentGradient(paint: GradientPaint, image: VectorImage): DocumentGradient {
  const stops = normaliseStops(paint.stops);
  if (paint.kind === 'linear') {
    return {
      kind: 'linear',
      x1: paint.x1 * image.scaleX,
      y1: paint.y1 * image.scaleY,
      x2: paint.x2 * image.scaleX,
      y2: paint.y2 * image.scaleY,
      stops,
    };
  }
  return { kind: 'radial', cx: paint.cx * image.scaleX, cy: paint.cy * image.scaleY, r: (paint.r * (image.scaleX + image.scaleY)) / 2, stops };
}
