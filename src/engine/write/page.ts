// The physical size of a document: `unit` and `dpi` of the params. A picture of W × H pixels is
// W ÷ dpi inches wide; the SVG keeps its viewBox in pixels and states its size in the unit, the
// PDF page and the EPS bounding box are that size in points, and DXF coordinates are in the unit.

export type Unit = 'px' | 'mm' | 'in';

export interface PhysicalSize {
  unit: Unit;
  dpi: number;
}

export const MM_PER_INCH = 25.4;
export const POINTS_PER_INCH = 72;

/** Lengths of the unit per pixel (1 for px). */
export function unitsPerPixel({ unit, dpi }: PhysicalSize): number {
  switch (unit) {
    case 'px':
      return 1;
    case 'mm':
      return MM_PER_INCH / dpi;
    case 'in':
      return 1 / dpi;
  }
}

/** A length in the unit as pixels. */
export function pixelsPerUnit(page: PhysicalSize): number {
  return 1 / unitsPerPixel(page);
}

/**
 * PDF and PostScript points per pixel: with `px`, one point per pixel (the contract's page at
 * 72 dpi); with a physical unit, the page is the picture's physical size.
 */
export function pointsPerPixel(page: PhysicalSize | undefined): number {
  if (!page || page.unit === 'px') return 1;
  return POINTS_PER_INCH / page.dpi;
}

/**
 * Decimal places that keep a coordinate rounded to `decimals` places of a pixel as fine in the
 * unit: one more for every factor of ten a pixel is larger than the unit's step.
 */
export function unitDecimals(decimals: number, page: PhysicalSize): number {
  const perPixel = unitsPerPixel(page);
  return Math.max(0, decimals + Math.max(0, Math.ceil(-Math.log10(perPixel))));
}

/** A length written for a document attribute: at most 4 decimals, no trailing zeros. */
export function formatLength(value: number, decimals = 4): string {
  const rounded = Number(value.toFixed(decimals));
  return String(Object.is(rounded, -0) ? 0 : rounded);
}
