// Photographs traced on a grid coarser than their output get round outlines. The tracer's
// polygons of a photo's palette regions are ragged: patches of a few working pixels are squares,
// longer runs are shards with stair-stepped sides, and at 100 % of a large photo (each working
// pixel 2–5 original pixels) they show as a mosaic. Each polygon becomes the quadratic B-spline of
// its vertices: a patch of a few pixels turns into a round blot, a long side keeps its straight
// middle, and every corner is rounded over at most CORNER working pixels, except on the picture's
// frame. Quadratics are stored as cubics (the model's one curve) and written back as quadratics
// (write/svg.ts).

import { PathCommand, type PathGeometry, type TracedShape } from '../geometry.ts';

/** How far from a vertex (working pixels) its rounding reaches; a side twice as long keeps a straight middle. */
export const CORNER = 2;

/** The grid traced: vertices on its frame keep their corners, so no background shows at the picture's edge. */
interface Frame {
  width: number;
  height: number;
}

/** Rounds every subpath made only of straight lines, in place. */
export function roundPolygons(shapes: TracedShape[], frame: Frame, corner = CORNER): void {
  for (const shape of shapes) shape.paths = shape.paths.map((path) => roundedPath(path, frame, corner));
}

function roundedPath(path: PathGeometry, frame: Frame, corner: number): PathGeometry {
  const { commands, coords } = path;
  const out: PathGeometry = { commands: [], coords: [] };
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
      for (let s = first; s < step; s++) out.commands.push(commands[s] as number);
      for (let c = firstCoord; c < at; c++) out.coords.push(coords[c] as number);
    }
  }
  return out;
}

/** The closed quadratic B-spline of `count` vertices starting at coords[from], sides longer than 2 × corner kept straight in the middle. */
function writeRounded(out: PathGeometry, coords: number[], from: number, count: number, frame: Frame, corner: number): void {
  const x = (v: number) => coords[from + 2 * (v % count)] as number;
  const y = (v: number) => coords[from + 2 * (v % count) + 1] as number;
  const onFrame = (v: number) => x(v) <= 0 || y(v) <= 0 || x(v) >= frame.width || y(v) >= frame.height;
  // Where the curve meets each side: `d` from either end (the midpoint of a short side).
  const sideEnds = (v: number): [number, number, number, number] => {
    const ax = x(v);
    const ay = y(v);
    const bx = x(v + 1);
    const by = y(v + 1);
    const length = Math.hypot(bx - ax, by - ay);
    const t = length > 2 * corner ? corner / length : 0.5;
    return [ax + (bx - ax) * t, ay + (by - ay) * t, bx - (bx - ax) * t, by - (by - ay) * t];
  };
  let side = sideEnds(0);
  const startX = side[0];
  const startY = side[1];
  out.commands.push(PathCommand.move);
  out.coords.push(startX, startY);
  for (let v = 0; v < count; v++) {
    const [, , exitX, exitY] = side;
    if (side[0] !== exitX || side[1] !== exitY) {
      out.commands.push(PathCommand.line);
      out.coords.push(exitX, exitY);
    }
    // Round the corner at the side's end: control point the vertex, to where the next side starts.
    const cx = x(v + 1);
    const cy = y(v + 1);
    const next = v + 1 < count ? sideEnds(v + 1) : undefined;
    const toX = next ? next[0] : startX;
    const toY = next ? next[1] : startY;
    if (onFrame(v + 1)) {
      out.commands.push(PathCommand.line, PathCommand.line);
      out.coords.push(cx, cy, toX, toY);
    } else {
      out.commands.push(PathCommand.cubic);
      out.coords.push(exitX + ((cx - exitX) * 2) / 3, exitY + ((cy - exitY) * 2) / 3, toX + ((cx - toX) * 2) / 3, toY + ((cy - toY) * 2) / 3, toX, toY);
    }
    if (next) side = next;
  }
  out.commands.push(PathCommand.close);
}
