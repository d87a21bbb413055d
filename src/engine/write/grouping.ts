// Joins shapes of one paint into one element where paint order allows it.

import type { Box, Paint, PathGeometry, TracedShape } from '../geometry.ts';

/**
 * Flat fills group by colour, opacity and blur (by colour and blur alone with `anyOpacity`); a
 * gradient only with shapes sharing the same gradient object; strokes by colour and width
 * (hundredths of a working pixel), apart from fills.
 */
function paintKey(shape: TracedShape, anyOpacity: boolean): number | Paint {
  if (shape.fill.kind !== 'flat') return shape.fill;
  const { r, g, b } = shape.fill.color;
  const colour = ((r << 16) | (g << 8) | b) >>> 0;
  if (shape.stroke) return -(colour * 100_000 + Math.round(shape.stroke.width * 100)) - 1;
  // Blurred shapes group only with shapes of the same blur (2^34 is past colour × 1024).
  return colour * 1024 + (anyOpacity ? 0 : Math.round(shape.opacity * 1000)) + Math.round((shape.blur ?? 0) * 100) * 2 ** 34;
}

/** Cells of the occupancy grid used by groupShapesByFill, at most. */
const GROUPING_GRID_CELLS = 1 << 18;

/**
 * Gathers shapes of the same paint where paint order allows it: a shape may move back to the
 * latest group of its paint when it touches no group painted after that one. "Touches" is
 * decided on a coarse grid of cells, each remembering the latest group whose bounding boxes
 * cover it: conservative (shapes in one cell count as touching), so no overlap can change what
 * is painted on top, or the fill by winding; and linear in the covered cells, where comparing
 * boxes pairwise was quadratic on photos of 10⁵ specks. Shapes known not to overlap at all
 * (`disjoint`, as cut-outs are) may move anywhere: one group per paint. With `anyOpacity`, flat
 * fills of one colour group whatever their opacity (groupBy color: each path keeps its own).
 * Returns the groups in paint order, each listing its shapes in their order.
 */
export function gatherByPaint(shapes: TracedShape[], options: { disjoint?: boolean; anyOpacity?: boolean } = {}): TracedShape[][] {
  const boxes = shapeBoxes(shapes);
  const extent: Box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  for (let index = 0; index < shapes.length; index++) {
    const x0 = boxes[4 * index] as number;
    if (!Number.isFinite(x0)) continue;
    extent.x0 = Math.min(extent.x0, x0);
    extent.y0 = Math.min(extent.y0, boxes[4 * index + 1] as number);
    extent.x1 = Math.max(extent.x1, boxes[4 * index + 2] as number);
    extent.y1 = Math.max(extent.y1, boxes[4 * index + 3] as number);
  }
  if (!Number.isFinite(extent.x0)) return [];
  // A few cells per shape is enough to tell shapes apart; more only costs clearing the grid.
  const cells = Math.min(GROUPING_GRID_CELLS, Math.max(1024, shapes.length * 16));
  const cell = Math.max(1, Math.sqrt(((extent.x1 - extent.x0) * (extent.y1 - extent.y0)) / cells));
  const columns = Math.floor((extent.x1 - extent.x0) / cell) + 1;
  const rows = Math.floor((extent.y1 - extent.y0) / cell) + 1;
  const latestGroupAt = new Int32Array(columns * rows).fill(-1);
  const latestGroupOf = new Map<number | Paint, number>();
  const groups: TracedShape[][] = [];
  for (let index = 0; index < shapes.length; index++) {
    const shape = shapes[index] as TracedShape;
    const x0 = boxes[4 * index] as number;
    if (!Number.isFinite(x0)) continue;
    const c0 = Math.floor((x0 - extent.x0) / cell);
    const c1 = Math.floor(((boxes[4 * index + 2] as number) - extent.x0) / cell);
    const r0 = Math.floor(((boxes[4 * index + 1] as number) - extent.y0) / cell);
    const r1 = Math.floor(((boxes[4 * index + 3] as number) - extent.y0) / cell);
    let touched = -1;
    for (let row = r0; row <= r1; row++) {
      for (let column = c0; column <= c1; column++) touched = Math.max(touched, latestGroupAt[row * columns + column] as number);
    }
    const key = paintKey(shape, options.anyOpacity === true);
    let target = latestGroupOf.get(key) ?? -1;
    if (target >= 0 && (options.disjoint || target > touched)) {
      (groups[target] as TracedShape[]).push(shape);
    } else {
      target = groups.length;
      groups.push([shape]);
      latestGroupOf.set(key, target);
    }
    for (let row = r0; row <= r1; row++) {
      for (let column = c0; column <= c1; column++) {
        const at = row * columns + column;
        if ((latestGroupAt[at] as number) < target) latestGroupAt[at] = target;
      }
    }
  }
  return groups;
}

/** Each shape's shapeBox as x0, y0, x1, y1 in one array: no object per shape (a photograph has 10⁵). */
function shapeBoxes(shapes: TracedShape[]): Float64Array {
  const boxes = new Float64Array(4 * shapes.length);
  for (let index = 0; index < shapes.length; index++) {
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (const { coords } of (shapes[index] as TracedShape).paths) {
      for (let at = 0; at + 1 < coords.length; at += 2) {
        const x = coords[at] as number;
        const y = coords[at + 1] as number;
        if (x < x0) x0 = x;
        if (y < y0) y0 = y;
        if (x > x1) x1 = x;
        if (y > y1) y1 = y;
      }
    }
    boxes[4 * index] = x0;
    boxes[4 * index + 1] = y0;
    boxes[4 * index + 2] = x1;
    boxes[4 * index + 3] = y1;
  }
  return boxes;
}

/**
 * Joins shapes of the same paint into one path element where paint order allows it (see
 * gatherByPaint). Saves an element per shape; pixel art, photos and logos have many small
 * same-coloured shapes.
 */
export function groupShapesByFill(shapes: TracedShape[]): TracedShape[] {
  return gatherByPaint(shapes).map((group) => {
    const first = group[0] as TracedShape;
    // Members set one by one: spreading optional ones cost an object each, 10⁵ times over.
    const joined: TracedShape = { fill: first.fill, opacity: first.opacity, paths: pathsOf(group) };
    if (first.stroke) joined.stroke = first.stroke;
    if (first.blur) joined.blur = first.blur;
    return joined;
  });
}

/** The paths of a group's shapes in order, in one array (flatMap's callback and spreading cost more, 10⁵ times over). */
function pathsOf(group: TracedShape[]): PathGeometry[] {
  const paths: PathGeometry[] = [];
  for (const shape of group) for (const path of shape.paths) paths.push(path);
  return paths;
}
