// Round outlines drawn as true ellipses (ellipse-fit.ts), and what is not round kept as it was.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { distanceToEllipse, ellipseCubics, fitEllipse, momentEllipse, type Point } from '../../../src/engine/trace/ellipse-fit.ts';
import { fitOutlines } from '../../../src/engine/trace/curves.ts';
import { curveOptions } from '../../../src/engine/trace/artwork.ts';
import { DEFAULT_PARAMS } from '../../../src/engine/params.ts';
import { PathCommand, type PathGeometry } from '../../../src/engine/geometry.ts';

/** An ellipse's outline as a polygon of `count` vertices, rounded to the traced grid when `grid`. */
function ellipseLoop(cx: number, cy: number, a: number, b: number, angle: number, count: number, grid = false): Point[] {
  const points: Point[] = [];
  for (let i = 0; i < count; i++) {
    const t = (2 * Math.PI * i) / count;
    const x = a * Math.cos(t);
    const y = b * Math.sin(t);
    const px = cx + x * Math.cos(angle) - y * Math.sin(angle);
    const py = cy + x * Math.sin(angle) + y * Math.cos(angle);
    points.push(grid ? [Math.round(px), Math.round(py)] : [px, py]);
  }
  return points;
}

function polygon(points: readonly Point[]): PathGeometry {
  const geometry: PathGeometry = { commands: [], coords: [] };
  points.forEach(([x, y], i) => {
    geometry.commands.push(i === 0 ? PathCommand.move : PathCommand.line);
    geometry.coords.push(x, y);
  });
  geometry.commands.push(PathCommand.close);
  return geometry;
}

/** A rectangle's outline with a vertex every traced pixel. */
function rectangleLoop(left: number, top: number, width: number, height: number): Point[] {
  const points: Point[] = [];
  for (let i = 0; i < width; i++) points.push([left + i, top]);
  for (let i = 0; i < height; i++) points.push([left + width, top + i]);
  for (let i = 0; i < width; i++) points.push([left + width - i, top + height]);
  for (let i = 0; i < height; i++) points.push([left, top + height - i]);
  return points;
}

test('the moment ellipse of an ellipse is that ellipse: centre, axes and direction', () => {
  const loop = ellipseLoop(240, 130, 40, 18, 0.6, 720);
  const ellipse = momentEllipse(loop);
  assert.ok(ellipse);
  assert.ok(Math.abs(ellipse.cx - 240) < 0.01 && Math.abs(ellipse.cy - 130) < 0.01, `centre ${ellipse.cx}, ${ellipse.cy}`);
  assert.ok(Math.abs(ellipse.a - 40) < 0.05 && Math.abs(ellipse.b - 18) < 0.05, `axes ${ellipse.a}, ${ellipse.b}`);
  assert.ok(Math.abs(ellipse.angle - 0.6) < 0.001, `direction ${ellipse.angle}`);
  // The same, whichever way round the loop runs.
  const reversed = momentEllipse([...loop].reverse());
  assert.ok(reversed && Math.abs(reversed.a - 40) < 0.05 && reversed.positive !== ellipse.positive);
});

test('a circle traced on the grid is found within tolerance; a rounded square, a stadium and a blob are not', () => {
  const circle = ellipseLoop(100, 100, 24, 24, 0, 150, true);
  const found = fitEllipse(circle, circle, 1.4);
  assert.ok(found, 'the circle is an ellipse');
  assert.ok(Math.abs(found.a - 24) < 0.6 && Math.abs(found.b - 24) < 0.6, `radius ${found.a}, ${found.b}`);

  const square = rectangleLoop(50, 50, 40, 40);
  assert.equal(fitEllipse(square, square, 1.4), null, 'a square');
  const stadium: Point[] = [];
  for (let i = 0; i <= 60; i++) stadium.push([40 + i, 40]);
  for (let i = 1; i < 30; i++) stadium.push([100 + 10 * Math.sin((Math.PI * i) / 30), 50 - 10 * Math.cos((Math.PI * i) / 30)]);
  for (let i = 0; i <= 60; i++) stadium.push([100 - i, 60]);
  for (let i = 1; i < 30; i++) stadium.push([40 - 10 * Math.sin((Math.PI * i) / 30), 50 + 10 * Math.cos((Math.PI * i) / 30)]);
  assert.equal(fitEllipse(stadium, stadium, 1.4), null, 'a stadium (a thick line with round ends)');
  // A circle with a bump on one side, a tenth of its radius high.
  const blob = ellipseLoop(100, 100, 30, 30, 0, 180).map(([x, y], i): Point => {
    const bump = i < 20 ? 3 * Math.sin((Math.PI * i) / 20) : 0;
    return [100 + (x - 100) * (1 + bump / 30), 100 + (y - 100) * (1 + bump / 30)];
  });
  assert.equal(fitEllipse(blob, blob, 1.4), null, 'a lumpy circle');
});

test('a dot a few pixels across is held to a tenth of its size, not to the whole tolerance', () => {
  // Fitted with the default tolerance (1.4 traced px), a shape 6 px across could be anything.
  const rounded = rectangleLoop(10, 10, 6, 6);
  assert.equal(fitEllipse(rounded, rounded, 1.4), null);
});

test('the four cubics of an ellipse stay on it and run the loop’s way', () => {
  for (const loop of [ellipseLoop(80, 60, 30, 12, -0.4, 200), ellipseLoop(80, 60, 30, 12, -0.4, 200).reverse()]) {
    const ellipse = momentEllipse(loop);
    assert.ok(ellipse);
    const { start, cubics } = ellipseCubics(ellipse);
    assert.equal(cubics.length, 24);
    let pen: Point = start;
    let area2 = 0;
    for (let k = 0; k < 4; k++) {
      const [x1, y1, x2, y2, x3, y3] = cubics.slice(6 * k, 6 * k + 6) as [number, number, number, number, number, number];
      for (let t = 0.05; t <= 1; t += 0.05) {
        const s = 1 - t;
        const point: Point = [
          s * s * s * pen[0] + 3 * s * s * t * x1 + 3 * s * t * t * x2 + t * t * t * x3,
          s * s * s * pen[1] + 3 * s * s * t * y1 + 3 * s * t * t * y2 + t * t * t * y3,
        ];
        // The cubic quarter strays from the true ellipse by at most 0.03 % of its radius.
        assert.ok(distanceToEllipse(point, ellipse) < 0.02, `off by ${distanceToEllipse(point, ellipse)}`);
      }
      area2 += pen[0] * y3 - x3 * pen[1];
      pen = [x3, y3];
    }
    assert.ok(Math.hypot(pen[0] - start[0], pen[1] - start[1]) < 1e-9, 'closed');
    assert.equal(area2 > 0, ellipse.positive, 'the same sense as the loop');
  }
});

test('fitOutlines draws a traced circle as one ellipse of four cubics, and a square with its corners', () => {
  const options = curveOptions(DEFAULT_PARAMS, 1);
  const circle = fitOutlines(polygon(ellipseLoop(200, 200, 40, 40, 0, 251, true)), options);
  assert.deepEqual(circle.commands, [PathCommand.move, PathCommand.cubic, PathCommand.cubic, PathCommand.cubic, PathCommand.cubic, PathCommand.close]);
  const square = fitOutlines(polygon(rectangleLoop(20, 20, 60, 60)), options);
  assert.ok(!square.commands.includes(PathCommand.cubic), `straight sides: ${square.commands.join(',')}`);
});
