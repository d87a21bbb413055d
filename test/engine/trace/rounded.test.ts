import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flat, PathCommand, type PathGeometry, type TracedShape } from '../../../src/engine/geometry.ts';
import { CORNER, roundPolygons } from '../../../src/engine/trace/rounded.ts';
import { parseTracerSvg } from '../../../src/engine/trace/tracer-output.ts';
import { writePathData } from '../../../src/engine/write/svg.ts';

const FRAME = { width: 100, height: 100 };

function shapeOf(d: string): TracedShape {
  const [shape] = parseTracerSvg(`<svg><path d="${d}" fill="#000000"/></svg>`);
  assert.ok(shape);
  return shape;
}

/** Points along every segment of a path (cubics sampled), for bounds and distances. */
function sample(path: PathGeometry): [number, number][] {
  const points: [number, number][] = [];
  let at = 0;
  let x = 0;
  let y = 0;
  for (const command of path.commands) {
    if (command === PathCommand.move || command === PathCommand.line) {
      x = path.coords[at] as number;
      y = path.coords[at + 1] as number;
      at += 2;
      points.push([x, y]);
    } else if (command === PathCommand.cubic) {
      const [c1x, c1y, c2x, c2y, ex, ey] = path.coords.slice(at, at + 6) as [number, number, number, number, number, number];
      for (let t = 0.1; t <= 1.0001; t += 0.1) {
        const u = 1 - t;
        points.push([u * u * u * x + 3 * u * u * t * c1x + 3 * u * t * t * c2x + t * t * t * ex, u * u * u * y + 3 * u * u * t * c1y + 3 * u * t * t * c2y + t * t * t * ey]);
      }
      x = ex;
      y = ey;
      at += 6;
    }
  }
  return points;
}

test('a patch of a few pixels becomes a round blot inside its square, through the middles of its sides', () => {
  const shape = shapeOf('M10 10 L12 10 L12 12 L10 12 Z');
  roundPolygons([shape], FRAME);
  const [path] = shape.paths;
  assert.ok(path);
  assert.equal(path.commands.filter((c) => c === PathCommand.line).length, 0, 'no straight side left');
  assert.equal(path.commands.filter((c) => c === PathCommand.cubic).length, 4, 'one curve per corner');
  const points = sample(path);
  for (const [x, y] of points) assert.ok(x >= 10 && x <= 12 && y >= 10 && y <= 12, `(${x}, ${y}) stays inside the square`);
  // The corners are cut: the outline passes (11.75, 10.25) at the corner (12, 10), √2 / 4 from it (a circle would pass √2 − 1 away).
  const corners = [[10, 10], [12, 10], [12, 12], [10, 12]] as const;
  const nearestCorner = Math.min(...points.map(([x, y]) => Math.min(...corners.map(([cx, cy]) => Math.hypot(x - cx, y - cy)))));
  assert.ok(nearestCorner > 0.35, `corners cut: ${nearestCorner.toFixed(2)} from the nearest`);
  for (const middle of [[11, 10], [12, 11], [11, 12], [10, 11]]) {
    assert.ok(points.some(([x, y]) => Math.hypot(x - (middle[0] as number), y - (middle[1] as number)) < 1e-9), `passes through (${middle.join(', ')})`);
  }
});

test('a long side keeps its straight middle; corners are rounded over at most CORNER pixels', () => {
  const shape = shapeOf('M10 10 L50 10 L50 20 L10 20 Z');
  roundPolygons([shape], FRAME);
  const [path] = shape.paths;
  assert.ok(path);
  const ends: [number, number][] = [];
  let at = 0;
  for (const command of path.commands) {
    if (command === PathCommand.line) ends.push([path.coords[at] as number, path.coords[at + 1] as number]);
    at += command === PathCommand.cubic ? 6 : command === PathCommand.close ? 0 : 2;
  }
  // Each of the four sides is straight from CORNER after one corner to CORNER before the next.
  assert.deepEqual(ends, [[50 - CORNER, 10], [50, 20 - CORNER], [10 + CORNER, 20], [10, 10 + CORNER]]);
  for (const [x, y] of sample(path)) assert.ok(x >= 10 && x <= 50 && y >= 10 && y <= 20);
});

test('curved subpaths and holes are kept; the written data uses quadratics', () => {
  const shape: TracedShape = { fill: flat({ r: 0, g: 0, b: 0 }), opacity: 1, paths: [{ commands: [PathCommand.move, PathCommand.cubic, PathCommand.close], coords: [0, 0, 1, 0, 2, 1, 2, 2] }] };
  const before = structuredClone(shape.paths);
  roundPolygons([shape], FRAME);
  assert.deepEqual(shape.paths, before, 'a subpath with a curve is not a polygon');
  const square = shapeOf('M10 10 L14 10 L14 14 L10 14 Z M11 11 L11 13 L13 13 L13 11 Z');
  roundPolygons([square], FRAME);
  const { d } = writePathData(square.paths, { scaleX: 10, scaleY: 10, decimals: 0 });
  assert.match(d, /q/);
  assert.doesNotMatch(d, /c/, 'raised quadratics are written as quadratics');
  assert.equal((d.match(/m/g) ?? []).length, 2, 'the hole stays a subpath of its own');
});

test('corners on the frame of the picture stay sharp: no background shows at its edge', () => {
  const whole = shapeOf('M0 0 L100 0 L100 100 L0 100 Z');
  roundPolygons([whole], FRAME);
  const [path] = whole.paths;
  assert.ok(path);
  assert.ok(path.commands.every((c) => c !== PathCommand.cubic), 'the ground stays a rectangle');
  for (const corner of [[0, 0], [100, 0], [100, 100], [0, 100]]) {
    assert.ok(sample(path).some(([x, y]) => x === corner[0] && y === corner[1]), `keeps (${corner.join(', ')})`);
  }
  const edge = shapeOf('M0 40 L3 40 L3 42 L0 42 Z');
  roundPolygons([edge], FRAME);
  const points = sample(edge.paths[0] as PathGeometry);
  assert.ok(points.some(([x, y]) => x === 0 && y === 40) && points.some(([x, y]) => x === 0 && y === 42), 'a patch at the edge keeps its side on the frame');
});
