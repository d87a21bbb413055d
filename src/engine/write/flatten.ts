// Curves as polygons: cubic Béziers subdivided until every chord lies within a tolerance of
// the curve. Used where a format or an operation has no curves (DXF polylines, cut-outs).

import { PathCommand, type PathGeometry } from '../geometry.ts';

/** Subdivisions of one cubic, at most (2^MAX_DEPTH pieces). */
const MAX_DEPTH = 10;

/**
 * Appends the points of a cubic from (x0, y0) to (x3, y3), excluding the start, so that no
 * piece strays more than `tolerance` from the curve. The flatness test bounds the distance of
 * both control points from the chord (a cubic lies within ¾ of it).
 */
function flattenCubic(
  out: number[],
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  x2: number,
  y2: number,
  x3: number,
  y3: number,
  tolerance: number,
  depth: number,
): void {
  const ux = 3 * x1 - 2 * x0 - x3;
  const uy = 3 * y1 - 2 * y0 - y3;
  const vx = 3 * x2 - x0 - 2 * x3;
  const vy = 3 * y2 - y0 - 2 * y3;
  // Roger Willcocks' bound: max deviation² ≤ (max(ux², vx²) + max(uy², vy²)) / 16.
  const deviation = (Math.max(ux * ux, vx * vx) + Math.max(uy * uy, vy * vy)) / 16;
  if (depth >= MAX_DEPTH || deviation <= tolerance * tolerance) {
    out.push(x3, y3);
    return;
  }
  const ax = (x0 + x1) / 2;
  const ay = (y0 + y1) / 2;
  const bx = (x1 + x2) / 2;
  const by = (y1 + y2) / 2;
  const cx = (x2 + x3) / 2;
  const cy = (y2 + y3) / 2;
  const abx = (ax + bx) / 2;
  const aby = (ay + by) / 2;
  const bcx = (bx + cx) / 2;
  const bcy = (by + cy) / 2;
  const mx = (abx + bcx) / 2;
  const my = (aby + bcy) / 2;
  flattenCubic(out, x0, y0, ax, ay, abx, aby, mx, my, tolerance, depth + 1);
  flattenCubic(out, mx, my, bcx, bcy, cx, cy, x3, y3, tolerance, depth + 1);
}

/**
 * Each subpath of a geometry as a closed polygon (flat x, y pairs; the closing edge implied),
 * in the geometry's own coordinates. Subpaths of fewer than three points enclose nothing and
 * are left out, as the SVG writer leaves them out.
 */
export function flattenGeometry(geometry: PathGeometry, tolerance: number): number[][] {
  const polygons: number[][] = [];
  const { commands, coords } = geometry;
  let current: number[] = [];
  let at = 0;
  const finish = () => {
    // A last point on the start is the closing edge itself.
    const n = current.length;
    if (n >= 4 && current[n - 2] === current[0] && current[n - 1] === current[1]) current.length = n - 2;
    if (current.length >= 6) polygons.push(current);
    current = [];
  };
  for (const command of commands) {
    if (command === PathCommand.close) {
      finish();
      continue;
    }
    if (command === PathCommand.move) {
      finish();
      current.push(coords[at] as number, coords[at + 1] as number);
      at += 2;
      continue;
    }
    if (command === PathCommand.line) {
      current.push(coords[at] as number, coords[at + 1] as number);
      at += 2;
      continue;
    }
    const n = current.length;
    flattenCubic(
      current,
      current[n - 2] as number,
      current[n - 1] as number,
      coords[at] as number,
      coords[at + 1] as number,
      coords[at + 2] as number,
      coords[at + 3] as number,
      coords[at + 4] as number,
      coords[at + 5] as number,
      tolerance,
      0,
    );
    at += 6;
  }
  finish();
  return polygons;
}
