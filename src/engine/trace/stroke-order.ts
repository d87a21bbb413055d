// Strokes in the order a pen plotter draws them with little travel between them: greedy nearest
// neighbour from the pen's position (a stroke may be drawn either way, a closed loop entered at
// its nearest point), found through a grid of stroke ends so a page of thousands of strokes
// orders in milliseconds. Greedy ordering is within about 25 % of the optimum on random points
// (Johnson and McGeoch, "The traveling salesman problem: a case study in local optimization",
// 1997) and does far better than a scan order on drawings, whose strokes continue one another.

import { hypot } from '../geometry.ts';

export type Point = [number, number];

/** An open polyline, or a closed loop (first point repeated at the end). */
export interface Stroke {
  points: Point[];
  closed: boolean;
}

function distance(a: Point, b: Point): number {
  return hypot(a[0] - b[0], a[1] - b[1]);
}

/** Pen-up travel: from `start` to the first stroke, then from each stroke's end to the next one's start. */
export function penUpTravel(strokes: readonly Stroke[], start: Point = [0, 0]): number {
  let pen = start;
  let travel = 0;
  for (const stroke of strokes) {
    travel += distance(pen, stroke.points[0] as Point);
    pen = stroke.points[stroke.points.length - 1] as Point;
  }
  return travel;
}

/** A closed loop started (and ended) at its vertex `at`. */
function rotateLoop(points: Point[], at: number): Point[] {
  if (at === 0) return points;
  const open = points.slice(0, -1);
  const rotated = [...open.slice(at), ...open.slice(0, at)];
  rotated.push(rotated[0] as Point);
  return rotated;
}

/** Where a stroke may be entered: both ends of an open one, every vertex of a loop. */
function entries(stroke: Stroke): Point[] {
  return stroke.closed ? stroke.points.slice(0, -1) : [stroke.points[0] as Point, stroke.points[stroke.points.length - 1] as Point];
}

/** The strokes reordered (and turned round or re-entered where that is shorter) for short pen-up travel. */
export function orderStrokes(strokes: readonly Stroke[], start: Point = [0, 0]): Stroke[] {
  if (strokes.length <= 1) return [...strokes];
  // A grid of the places strokes may be entered, about two per cell.
  const places: { stroke: number; entry: number; at: Point }[] = [];
  strokes.forEach((stroke, index) => entries(stroke).forEach((at, entry) => places.push({ stroke: index, entry, at })));
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const { at } of places) {
    x0 = Math.min(x0, at[0]);
    y0 = Math.min(y0, at[1]);
    x1 = Math.max(x1, at[0]);
    y1 = Math.max(y1, at[1]);
  }
  const cell = Math.max(1e-6, Math.sqrt(((x1 - x0 + 1) * (y1 - y0 + 1)) / Math.max(1, places.length / 2)));
  const columns = Math.floor((x1 - x0) / cell) + 1;
  const rows = Math.floor((y1 - y0) / cell) + 1;
  const cells: number[][] = Array.from({ length: columns * rows }, () => []);
  const cellOf = (at: Point) => [Math.min(columns - 1, Math.max(0, Math.floor((at[0] - x0) / cell))), Math.min(rows - 1, Math.max(0, Math.floor((at[1] - y0) / cell)))] as const;
  places.forEach((place, index) => {
    const [cx, cy] = cellOf(place.at);
    (cells[cy * columns + cx] as number[]).push(index);
  });
  const done = new Uint8Array(strokes.length);
  const ordered: Stroke[] = [];
  let pen = start;
  for (let left = strokes.length; left > 0; left--) {
    // Rings of cells round the pen, outwards, until no nearer place can lie beyond the ring.
    const [px, py] = cellOf(pen);
    let best = -1;
    let bestDistance = Infinity;
    for (let radius = 0; radius <= columns + rows; radius++) {
      for (let cy = py - radius; cy <= py + radius; cy++) {
        if (cy < 0 || cy >= rows) continue;
        const step = cy === py - radius || cy === py + radius ? 1 : 2 * radius;
        for (let cx = px - radius; cx <= px + radius; cx += Math.max(1, step)) {
          if (cx < 0 || cx >= columns) continue;
          for (const index of cells[cy * columns + cx] as number[]) {
            const place = places[index] as (typeof places)[number];
            if (done[place.stroke]) continue;
            const d = distance(pen, place.at);
            if (d < bestDistance) {
              bestDistance = d;
              best = index;
            }
          }
        }
      }
      // Every place beyond this ring is at least `radius` cells from the pen's cell.
      if (best >= 0 && bestDistance <= radius * cell) break;
    }
    const place = places[best] as (typeof places)[number];
    const stroke = strokes[place.stroke] as Stroke;
    done[place.stroke] = 1;
    let points = stroke.points;
    if (stroke.closed) points = rotateLoop(points, place.entry);
    else if (place.entry === 1) points = [...points].reverse();
    ordered.push({ points, closed: stroke.closed });
    pen = points[points.length - 1] as Point;
  }
  return ordered;
}
