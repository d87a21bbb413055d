// Photographs traced on a grid coarser than their output get round outlines. The tracer's
// polygons of a photo's palette regions are ragged: patches of a few working pixels are squares,
// longer runs are shards with stair-stepped sides, and at 100 % of a large photo (each working
// pixel 2–5 original pixels) they show as a mosaic. Each polygon becomes the quadratic B-spline of
// its vertices: a patch of a few pixels turns into a round blot, a long side keeps its straight
// middle, and every corner is rounded over at most CORNER working pixels, except on the picture's
// frame. Quadratics are stored as cubics (the model's one curve) and written back as quadratics
// (write/svg.ts).

import { hypot, PathCommand, type PathGeometry, type TracedShape } from '../geometry.ts';

/** How far from a vertex (working pixels) its rounding reaches; a side twice as long keeps a straight middle. */
export const CORNER = 2;

/**
 * The grid traced: vertices on its frame keep their corners, so no background shows at the
 * picture's edge; so do vertices on the lines tiles were cut along (`edges`, trace/tiles.ts), so
 * that a tile's shapes reach its edge and show none of its own lower shapes there.
 */
export interface Frame {
  width: number;
  height: number;
  edges?: { xs: ReadonlySet<number>; ys: ReadonlySet<number> };
}

/** Rounds every subpath made only of straight lines, in place. */
export function roundPolygons(shapes: TracedShape[], frame: Frame, corner = CORNER): void {
  for (let s = 0; s < shapes.length; s++) {
    const shape = shapes[s] as TracedShape;
    const paths: PathGeometry[] = [];
    for (let p = 0; p < shape.paths.length; p++) paths.push(roundedPath(shape.paths[p] as PathGeometry, frame, corner));
    shape.paths = paths;
  }
}

/**
 * Rounded paths are written into these, reused from path to path, and each path's arrays copied
 * out at their final length: a photograph has 10⁵ polygons, and arrays grown point by point kept
 * the collector busy.
 */
interface Written {
  commands: number[];
  coords: number[];
  commandCount: number;
  coordCount: number;
}

const SCRATCH: Written = { commands: [], coords: [], commandCount: 0, coordCount: 0 };

function addCommand(out: Written, command: number): void {
  out.commands[out.commandCount++] = command;
}

function addPoint(out: Written, x: number, y: number): void {
  out.coords[out.coordCount++] = x;
  out.coords[out.coordCount++] = y;
}

function roundedPath(path: PathGeometry, frame: Frame, corner: number): PathGeometry {
  const { commands, coords } = path;
  const out = SCRATCH;
  out.commandCount = 0;
  out.coordCount = 0;
  let step = 0;
  let at = 0;
  while (step < commands.length) {
    // One subpath: a move, then lines and cubics, then perhaps a close.
    const first = step;
    const firstCoord = at;
    let onlyLines = true;
    at += 2;
    step++;
    while (step < commands.length && commands[step] !== PathCommand.move) {
      const command = commands[step];
      if (command === PathCommand.line) at += 2;
      else if (command === PathCommand.cubic) {
        onlyLines = false;
        at += 6;
      }
      step++;
    }
    let points = (at - firstCoord) / 2;
    // The tracer closes a polygon by repeating its first vertex.
    if (points > 1 && coords[firstCoord] === coords[at - 2] && coords[firstCoord + 1] === coords[at - 1]) points--;
    if (onlyLines && points >= 3) writeRounded(out, coords, firstCoord, points, frame, corner);
    else {
      for (let s = first; s < step; s++) addCommand(out, commands[s] as number);
      for (let c = firstCoord; c < at; c++) out.coords[out.coordCount++] = coords[c] as number;
    }
  }
  return { commands: out.commands.slice(0, out.commandCount), coords: out.coords.slice(0, out.coordCount) };
}

/**
 * Where the curve meets side v (from vertex v to v + 1) of the `count` vertices at coords[from]:
 * `corner` from either end (the midpoint of a short side). Written to ends[0–3]: entry x, y, exit x, y.
 */
function sideEnds(coords: number[], from: number, count: number, v: number, corner: number, ends: Float64Array): void {
  const a = from + 2 * (v % count);
  const b = from + 2 * ((v + 1) % count);
  const ax = coords[a] as number;
  const ay = coords[a + 1] as number;
  const bx = coords[b] as number;
  const by = coords[b + 1] as number;
  const length = hypot(bx - ax, by - ay);
  const t = length > 2 * corner ? corner / length : 0.5;
  ends[0] = ax + (bx - ax) * t;
  ends[1] = ay + (by - ay) * t;
  ends[2] = bx - (bx - ax) * t;
  ends[3] = by - (by - ay) * t;
}

/** Where a side's rounded corners end (sideEnds), reused from polygon to polygon. */
const SIDE = new Float64Array(4);

/** The closed quadratic B-spline of `count` vertices starting at coords[from], sides longer than 2 × corner kept straight in the middle. */
function writeRounded(out: Written, coords: number[], from: number, count: number, frame: Frame, corner: number): void {
  sideEnds(coords, from, count, 0, corner, SIDE);
  const startX = SIDE[0] as number;
  const startY = SIDE[1] as number;
  let entryX = startX;
  let entryY = startY;
  let exitX = SIDE[2] as number;
  let exitY = SIDE[3] as number;
  addCommand(out, PathCommand.move);
  addPoint(out, startX, startY);
  for (let v = 0; v < count; v++) {
    if (entryX !== exitX || entryY !== exitY) {
      addCommand(out, PathCommand.line);
      addPoint(out, exitX, exitY);
    }
    // Round the corner at the side's end: control point the vertex, to where the next side starts.
    const vertex = from + 2 * ((v + 1) % count);
    const cx = coords[vertex] as number;
    const cy = coords[vertex + 1] as number;
    const last = v + 1 >= count;
    if (!last) sideEnds(coords, from, count, v + 1, corner, SIDE);
    const toX = last ? startX : (SIDE[0] as number);
    const toY = last ? startY : (SIDE[1] as number);
    // Vertices on the picture's frame, and on the tiles' edges, stay sharp.
    if (cx <= 0 || cy <= 0 || cx >= frame.width || cy >= frame.height || (frame.edges !== undefined && (frame.edges.xs.has(cx) || frame.edges.ys.has(cy)))) {
      addCommand(out, PathCommand.line);
      addCommand(out, PathCommand.line);
      addPoint(out, cx, cy);
      addPoint(out, toX, toY);
    } else {
      addCommand(out, PathCommand.cubic);
      addPoint(out, exitX + ((cx - exitX) * 2) / 3, exitY + ((cy - exitY) * 2) / 3);
      addPoint(out, toX + ((cx - toX) * 2) / 3, toY + ((cy - toY) * 2) / 3);
      addPoint(out, toX, toY);
    }
    if (!last) {
      entryX = SIDE[0] as number;
      entryY = SIDE[1] as number;
      exitX = SIDE[2] as number;
      exitY = SIDE[3] as number;
    }
  }
  addCommand(out, PathCommand.close);
}
