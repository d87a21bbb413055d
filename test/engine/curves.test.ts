// Curve fitting on the traced grid (curves.ts): which turns are corners. The grid here is
// 16 traced pixels per image pixel, as for a 32 px icon traced for 512 px.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fitOutlines, type CurveOptions } from '../../src/engine/curves.ts';
import { PathCommand, type PathGeometry } from '../../src/engine/geometry.ts';

const PER_PIXEL = 16;
const OPTIONS: CurveOptions = {
  tolerance: 1.4,
  cornerAngle: 60,
  cornerSpan: 1.5 * PER_PIXEL,
  sampleStep: 1,
  spliceAngle: 45,
  smoothing: PER_PIXEL / 2,
  straightTolerance: 0.25 * PER_PIXEL,
};

/** A closed polygon through the points, each rounded to the traced grid as a tracer's would be. */
function polygon(points: [number, number][]): PathGeometry {
  const geometry: PathGeometry = { commands: [], coords: [] };
  points.forEach(([x, y], i) => {
    geometry.commands.push(i === 0 ? PathCommand.move : PathCommand.line);
    geometry.coords.push(Math.round(x), Math.round(y));
  });
  geometry.commands.push(PathCommand.close);
  return geometry;
}

/** The points of a fitted outline: line ends, and each cubic sampled along its length. */
function outlinePoints(geometry: PathGeometry): [number, number][] {
  const points: [number, number][] = [];
  let at = 0;
  let pen: [number, number] = [0, 0];
  for (const command of geometry.commands) {
    if (command === PathCommand.move || command === PathCommand.line) {
      pen = [geometry.coords[at] as number, geometry.coords[at + 1] as number];
      points.push(pen);
      at += 2;
    } else if (command === PathCommand.cubic) {
      const [x1, y1, x2, y2, x3, y3] = geometry.coords.slice(at, at + 6) as [number, number, number, number, number, number];
      for (let t = 0.1; t <= 1.0001; t += 0.1) {
        const s = 1 - t;
        points.push([
          s * s * s * pen[0] + 3 * s * s * t * x1 + 3 * s * t * t * x2 + t * t * t * x3,
          s * s * s * pen[1] + 3 * s * s * t * y1 + 3 * s * t * t * y2 + t * t * t * y3,
        ]);
      }
      pen = [x3, y3];
      at += 6;
    }
  }
  return points;
}

test('a dot three pixels across stays round: no corners, every point on the circle', () => {
  const radius = 1.6 * PER_PIXEL;
  const circle: [number, number][] = [];
  for (let i = 0; i < 160; i++) {
    const angle = (2 * Math.PI * i) / 160;
    circle.push([100 + radius * Math.cos(angle), 100 + radius * Math.sin(angle)]);
  }
  const fitted = fitOutlines(polygon(circle), OPTIONS);
  // Along a circle every window turns past the corner angle; an octagon of corners would stray 0.12 px from it.
  const cubics = fitted.commands.filter((command) => command === PathCommand.cubic).length;
  assert.ok(cubics >= 4, `drawn with curves: ${fitted.commands.join(',')}`);
  for (const [x, y] of outlinePoints(fitted)) {
    const off = Math.abs(Math.hypot(x - 100, y - 100) - radius);
    assert.ok(off < 0.07 * PER_PIXEL, `a point ${off.toFixed(2)} traced px off the circle`);
  }
});

test('a square as small keeps its four corners and straight sides', () => {
  const side = 3 * PER_PIXEL;
  const square: [number, number][] = [];
  for (let i = 0; i < side; i++) square.push([100 + i, 100]);
  for (let i = 0; i < side; i++) square.push([100 + side, 100 + i]);
  for (let i = 0; i < side; i++) square.push([100 + side - i, 100 + side]);
  for (let i = 0; i < side; i++) square.push([100, 100 + side - i]);
  const fitted = fitOutlines(polygon(square), OPTIONS);
  assert.ok(!fitted.commands.includes(PathCommand.cubic), `straight sides: ${fitted.commands.join(',')}`);
  const corners = outlinePoints(fitted);
  for (const [cx, cy] of [[100, 100], [100 + side, 100], [100 + side, 100 + side], [100, 100 + side]] as const) {
    assert.ok(corners.some(([x, y]) => Math.hypot(x - cx, y - cy) < 1), `a corner at ${cx},${cy}: ${JSON.stringify(corners)}`);
  }
});
