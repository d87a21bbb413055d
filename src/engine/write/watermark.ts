// The test-key watermark: the word TEST in block letters, repeated on diagonal rows over the
// whole picture, added to the geometry model before any writer runs, so SVG, PDF, EPS, DXF and
// PNG all carry the same marks. Each letter stroke is a rectangle: a white halo under a red
// bar, both translucent, so the mark shows on light, dark and red pictures alike. Strokes are
// clipped to the picture, so no format draws outside its page.

import { PathCommand, type PathGeometry, type TracedShape, type VectorImage, withOpacityPerShape } from '../geometry.ts';

/** Letter strokes on a 5 × 7 grid: [x, y, width, height], y downwards. */
const LETTERS: Record<'T' | 'E' | 'S', readonly (readonly [number, number, number, number])[]> = {
  T: [
    [0, 0, 5, 1],
    [2, 1, 1, 6],
  ],
  E: [
    [0, 0, 1, 7],
    [1, 0, 4, 1],
    [1, 3, 3, 1],
    [1, 6, 4, 1],
  ],
  S: [
    [0, 0, 5, 1],
    [0, 1, 1, 2],
    [0, 3, 5, 1],
    [4, 4, 1, 2],
    [0, 6, 5, 1],
  ],
};
const WORD = ['T', 'E', 'S', 'T'] as const;
const WORD_UNITS_WIDE = WORD.length * 5 + (WORD.length - 1);
const WORD_UNITS_HIGH = 7;
/** Rows rise at 30° from left to right. */
const ANGLE = (-30 * Math.PI) / 180;
export const WATERMARK_RED = { r: 214, g: 0, b: 28 } as const;
const HALO = { r: 255, g: 255, b: 255 } as const;
const RED_OPACITY = 0.55;
const HALO_OPACITY = 0.45;

type Point = [number, number];

/** Sutherland–Hodgman against the rectangle 0–w × 0–h (both polygons convex). */
function clipToRect(polygon: Point[], w: number, h: number): Point[] {
  const edges: ((p: Point) => number)[] = [(p) => p[0], (p) => w - p[0], (p) => p[1], (p) => h - p[1]];
  let out = polygon;
  for (const inside of edges) {
    const input = out;
    out = [];
    for (let i = 0; i < input.length; i++) {
      const a = input[i] as Point;
      const b = input[(i + 1) % input.length] as Point;
      const da = inside(a);
      const db = inside(b);
      if (da >= 0) out.push(a);
      if (da >= 0 !== db >= 0) {
        const t = da / (da - db);
        out.push([a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]);
      }
    }
    if (out.length === 0) break;
  }
  return out;
}

/** The stroke rectangles of every TEST on the picture, in original pixels, grown by `grow` units. */
function strokes(width: number, height: number, grow: number): Point[][] {
  // A word about 40 % of the shorter side wide, at least 2 px per unit.
  const unit = Math.max(2, (Math.min(width, height) * 0.4) / WORD_UNITS_WIDE);
  const wordW = WORD_UNITS_WIDE * unit;
  const wordH = WORD_UNITS_HIGH * unit;
  const stepX = wordW * 1.5;
  const stepY = wordH * 2.6;
  const cos = Math.cos(ANGLE);
  const sin = Math.sin(ANGLE);
  const cx = width / 2;
  const cy = height / 2;
  // Rows and columns of the rotated grid, enough to cover the picture's circumscribed circle.
  const reach = Math.hypot(width, height) / 2 + wordW;
  const columns = Math.ceil(reach / stepX);
  const rows = Math.ceil(reach / stepY);
  const out: Point[][] = [];
  for (let row = -rows; row <= rows; row++) {
    // Alternate rows shift by half a step, as a brick pattern.
    const shift = (row % 2 === 0 ? 0 : stepX / 2) - wordW / 2;
    for (let column = -columns; column <= columns; column++) {
      const ox = column * stepX + shift;
      const oy = row * stepY - wordH / 2;
      WORD.forEach((letter, index) => {
        for (const [x, y, w, h] of LETTERS[letter]) {
          const x0 = ox + (index * 6 + x - grow) * unit;
          const y0 = oy + (y - grow) * unit;
          const x1 = ox + (index * 6 + x + w + grow) * unit;
          const y1 = oy + (y + h + grow) * unit;
          const corners: Point[] = [
            [x0, y0],
            [x1, y0],
            [x1, y1],
            [x0, y1],
          ].map(([u, v]) => [cx + (u as number) * cos - (v as number) * sin, cy + (u as number) * sin + (v as number) * cos]);
          const clipped = clipToRect(corners, width, height);
          if (clipped.length >= 3) out.push(clipped);
        }
      });
    }
  }
  return out;
}

function shapeOf(polygons: Point[][], image: VectorImage): PathGeometry[] {
  return polygons.map((polygon) => {
    const commands: number[] = [];
    const coords: number[] = [];
    polygon.forEach(([x, y], i) => {
      commands.push(i === 0 ? PathCommand.move : PathCommand.line);
      // The model's coordinates are working pixels: original ÷ scale.
      coords.push(x / image.scaleX, y / image.scaleY);
    });
    commands.push(PathCommand.close);
    return { commands, coords };
  });
}

/**
 * The picture with the TEST watermark painted over everything else, at its full strength: a
 * translucent drawing's opacity moves onto its shapes (exact where they do not overlap), so that
 * it does not fade the watermark too.
 */
export function withWatermark(image: VectorImage): VectorImage {
  const drawing = withOpacityPerShape(image);
  const halo: TracedShape = { fill: { kind: 'flat', color: { ...HALO } }, opacity: HALO_OPACITY, paths: shapeOf(strokes(image.width, image.height, 0.3), image) };
  const red: TracedShape = { fill: { kind: 'flat', color: { ...WATERMARK_RED } }, opacity: RED_OPACITY, paths: shapeOf(strokes(image.width, image.height, 0), image) };
  return { ...drawing, shapes: [...drawing.shapes, halo, red] };
}
