// Curve fitting on the traced grid (curves.ts): which turns are corners. The grid here is
// 16 traced pixels per image pixel, as for a 32 px icon traced for 512 px.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CORNER_ISOLATION, fitOutlines, stairsFlattened, type CurveOptions } from '../../../src/engine/trace/curves.ts';
import { PathCommand, type PathGeometry } from '../../../src/engine/geometry.ts';

const PER_PIXEL = 16;
const OPTIONS: CurveOptions = {
  tolerance: 1.4,
  cornerAngle: 60,
  cornerSpan: 1.5 * PER_PIXEL,
  sampleStep: 1,
  spliceAngle: 45,
  smoothing: PER_PIXEL / 2,
  straightTolerance: 0.25 * PER_PIXEL,
  cornerIsolation: CORNER_ISOLATION,
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

test('a dot traced as a coarse polygon (a hexagon with sides a pixel and a half long) is drawn round', () => {
  // The tracer's polygon of an eye or a nose two or three pixels across: every vertex turns 60°,
  // as sharply as a corner, but so do its neighbours within the same window.
  const radius = 1.5 * PER_PIXEL;
  const hexagon: [number, number][] = [];
  for (let i = 0; i < 6; i++) {
    const angle = (2 * Math.PI * i) / 6;
    hexagon.push([100 + radius * Math.cos(angle), 100 + radius * Math.sin(angle)]);
  }
  const fitted = fitOutlines(polygon(hexagon), OPTIONS);
  assert.ok(fitted.commands.filter((command) => command === PathCommand.cubic).length >= 3, `drawn with curves: ${fitted.commands.join(',')}`);
  const turns = joinTurns(fitted);
  assert.ok(Math.max(...turns) < 35, `no corners: turns at the joins ${turns.map((turn) => turn.toFixed(0)).join(', ')}°`);
});

/** The change of direction (degrees) where each segment of a closed outline meets the next. */
function joinTurns(geometry: PathGeometry): number[] {
  const segments: { start: [number, number]; end: [number, number] }[] = [];
  let at = 0;
  let pen: [number, number] = [0, 0];
  let begin: [number, number] = [0, 0];
  const direction = (from: [number, number], to: [number, number]): [number, number] => [to[0] - from[0], to[1] - from[1]];
  for (const command of geometry.commands) {
    if (command === PathCommand.move) {
      pen = [geometry.coords[at] as number, geometry.coords[at + 1] as number];
      begin = pen;
      at += 2;
    } else if (command === PathCommand.line) {
      const to: [number, number] = [geometry.coords[at] as number, geometry.coords[at + 1] as number];
      segments.push({ start: direction(pen, to), end: direction(pen, to) });
      pen = to;
      at += 2;
    } else if (command === PathCommand.cubic) {
      const [x1, y1, x2, y2, x3, y3] = geometry.coords.slice(at, at + 6) as [number, number, number, number, number, number];
      segments.push({ start: direction(pen, [x1, y1]), end: direction([x2, y2], [x3, y3]) });
      pen = [x3, y3];
      at += 6;
    } else if (command === PathCommand.close && (pen[0] !== begin[0] || pen[1] !== begin[1])) {
      segments.push({ start: direction(pen, begin), end: direction(pen, begin) });
    }
  }
  return segments.map((segment, k) => {
    const next = segments[(k + 1) % segments.length] as { start: [number, number] };
    let turn = Math.atan2(next.start[1], next.start[0]) - Math.atan2(segment.end[1], segment.end[0]);
    while (turn > Math.PI) turn -= 2 * Math.PI;
    while (turn < -Math.PI) turn += 2 * Math.PI;
    return Math.abs((turn * 180) / Math.PI);
  });
}

test('a triangle as small keeps its three corners', () => {
  const side = 4 * PER_PIXEL;
  const corners: [number, number][] = [[100, 100], [100 + side, 100], [100 + side / 2, 100 + (side * Math.sqrt(3)) / 2]];
  const outline: [number, number][] = [];
  for (let k = 0; k < 3; k++) {
    const [ax, ay] = corners[k] as [number, number];
    const [bx, by] = corners[(k + 1) % 3] as [number, number];
    for (let i = 0; i < side; i++) outline.push([ax + ((bx - ax) * i) / side, ay + ((by - ay) * i) / side]);
  }
  const fitted = fitOutlines(polygon(outline), OPTIONS);
  const points = outlinePoints(fitted);
  for (const [cx, cy] of corners) {
    assert.ok(points.some(([x, y]) => Math.hypot(x - cx, y - cy) < 1.5), `a corner at ${cx},${cy}: ${JSON.stringify(points)}`);
  }
});

test('a staircase of the map’s pixels is drawn through the middles of its steps; a notch and a rectangle are left as they are', () => {
  // A triangle whose hypotenuse is a staircase of 2-traced-pixel steps (one segmented pixel on a
  // grid twice as fine): the diagonal an edge at 45° becomes where the anti-aliasing cannot place it.
  const stairs: [number, number][] = [[0, 0], [0, 20]];
  for (let k = 0; k < 10; k++) stairs.push([2 * k + 2, 20 - 2 * k], [2 * k + 2, 18 - 2 * k]);
  const flattened = stairsFlattened(stairs, 2);
  // Every inner vertex of the staircase gave way to an edge middle, all on the line x + y = 21;
  // the triangle's own corners stay.
  const corners = flattened.filter(([x, y]) => Math.abs(x + y - 21) > 1e-9);
  assert.deepEqual(corners, [[0, 0], [0, 20], [20, 0]], JSON.stringify(flattened));
  assert.equal(flattened.length - corners.length, 20, JSON.stringify(flattened));
  // Fitted with the grid's options, the hypotenuse has no corner on it: one line or smooth curves.
  const fitted = fitOutlines(polygon(stairs), { ...OPTIONS, cornerSpan: 3, smoothing: 1, straightTolerance: 0.5, stairStep: 2 });
  const turns = joinTurns(fitted);
  assert.ok(turns.filter((turn) => turn > 30).length <= 3, `corners only at the triangle's own: ${turns.map((turn) => turn.toFixed(0)).join(', ')}°`);

  // A shallow staircase: treads of 6, rises of 2.
  const shallow: [number, number][] = [[0, 0], [0, 10]];
  for (let k = 0; k < 5; k++) shallow.push([6 * k + 6, 10 - 2 * k], [6 * k + 6, 8 - 2 * k]);
  const flatter = stairsFlattened(shallow, 2);
  const steps = shallow.slice(3, -1);
  assert.ok(!steps.some(([x, y]) => flatter.some(([fx, fy]) => fx === x && fy === y)), `a shallow staircase is flattened too: ${JSON.stringify(flatter)}`);

  // Blocks stacked corner to corner (a stepped logo), every edge longer than a step but short
  // enough for a tread: not a staircase of the grid.
  const blocks: [number, number][] = [[0, 0], [20, 0], [20, 10], [40, 10], [40, 20], [60, 20], [60, 30], [80, 30], [80, 40], [0, 40]];
  assert.deepEqual(stairsFlattened(blocks, 4), blocks, 'stacked blocks keep their corners');

  // A round hole traced raw on a grid 4 times finer: its outline alternates axes all round, so
  // no edge of it starts a staircase. It is still flattened, and fitted as the circle it is.
  const disc = rasterCircle(40, 40, 30);
  const round = stairsFlattened(disc, 4);
  const unmoved = disc.filter(([x, y]) => round.some(([fx, fy]) => fx === x && fy === y));
  assert.ok(unmoved.length <= 8, `a round outline is flattened all round: ${unmoved.length} of ${disc.length} vertices left`);
  const circle = fitOutlines(polygon(disc), ICON_OPTIONS);
  assert.deepEqual(circle.commands, [PathCommand.move, PathCommand.cubic, PathCommand.cubic, PathCommand.cubic, PathCommand.cubic, PathCommand.close], 'fitted as one ellipse');

  const notch: [number, number][] = [[0, 0], [40, 0], [40, 20], [22, 20], [22, 22], [0, 22]];

  assert.deepEqual(stairsFlattened(notch, 2), notch, 'one step is a notch');
  const rectangle: [number, number][] = [[0, 0], [2, 0], [2, 2], [0, 2]];
  assert.deepEqual(stairsFlattened(rectangle, 2), rectangle, 'a square a step across');
});

/** The outline of the pixels whose centres lie within `r` of (cx, cy), traced along the pixels' edges, clockwise from the top row. */
function rasterCircle(cx: number, cy: number, r: number): [number, number][] {
  const rows: [number, number, number][] = [];
  for (let y = Math.floor(cy - r); y <= cy + r; y++) {
    const half = Math.sqrt(Math.max(0, r * r - (y + 0.5 - cy) ** 2));
    const x0 = Math.ceil(cx - half - 0.5);
    const x1 = Math.floor(cx + half - 0.5);
    if (x1 >= x0) rows.push([y, x0, x1 + 1]);
  }
  const outline: [number, number][] = [];
  for (const [y, , x1] of rows) outline.push([x1, y], [x1, y + 1]);
  for (const [y, x0] of rows.slice().reverse()) outline.push([x0, y + 1], [x0, y]);
  // Vertices on a straight run are not vertices of a traced outline.
  return outline.filter((point, i) => {
    const [ax, ay] = outline[(i - 1 + outline.length) % outline.length] as [number, number];
    const [bx, by] = outline[(i + 1) % outline.length] as [number, number];
    return !((ax === point[0] && point[0] === bx) || (ay === point[1] && point[1] === by));
  });
}

/** The fitting options of a grid 4 traced pixels per image pixel (a 128 px icon traced for 512 px), as artwork.ts sets them. */
const ICON_OPTIONS: CurveOptions = { ...OPTIONS, cornerSpan: 6, smoothing: 2, straightTolerance: 1, stairStep: 4 };

/** Whether every point of a fitted outline lies on the boundary of the box, and it is drawn in lines only. */
function onBox(fitted: PathGeometry, [x0, y0, x1, y1]: [number, number, number, number]): boolean {
  const near = (a: number, b: number) => Math.abs(a - b) < 1e-6;
  return (
    fitted.commands.every((command) => command !== PathCommand.cubic) &&
    outlinePoints(fitted).every(([x, y]) => ((near(x, x0) || near(x, x1)) && y >= y0 - 1e-6 && y <= y1 + 1e-6) || ((near(y, y0) || near(y, y1)) && x >= x0 - 1e-6 && x <= x1 + 1e-6))
  );
}

test('a line a pixel wide keeps its corners and straight sides: its ends are corners a pixel apart', () => {
  // 4 traced pixels high, 160 long. Its two corners at each end share a corner's window, and held
  // to CORNER_ISOLATION neither was a corner: the line was fitted as one smooth loop, its long
  // sides bowed out by more than a traced pixel and its ends rounded.
  const line: [number, number][] = [[20, 40], [180, 40], [180, 44], [20, 44]];
  const fitted = fitOutlines(polygon(line), ICON_OPTIONS);
  assert.ok(onBox(fitted, [20, 40, 180, 44]), JSON.stringify(outlinePoints(fitted).map(([x, y]) => [+x.toFixed(2), +y.toFixed(2)])));
});

test('a side along an axis is drawn where most of it lies, not through the notches at its corners', () => {
  // A highlight a pixel wide whose lower side dips a traced pixel at both ends, where the region
  // map meets an outline's corner: drawn as the chord between its corners, the whole side lay in
  // the dips, a quarter of the image's pixel low.
  const band: [number, number][] = [[10, 12], [110, 12], [110, 17], [106, 17], [106, 16], [14, 16], [14, 17], [10, 17]];
  const fitted = fitOutlines(polygon(band), ICON_OPTIONS);
  const points = outlinePoints(fitted);
  // Where the outline crosses x = 60 below the band's middle line.
  const lower: number[] = [];
  points.forEach(([ax, ay], i) => {
    const [bx, by] = points[(i + 1) % points.length] as [number, number];
    if ((ax - 60) * (bx - 60) <= 0 && ax !== bx) lower.push(ay + ((by - ay) * (60 - ax)) / (bx - ax));
  });
  const crossing = lower.filter((y) => y > 14);
  assert.ok(crossing.length === 1 && Math.abs((crossing[0] as number) - 16) < 0.05, `the lower side at ${crossing.map((y) => y.toFixed(2)).join(', ')}`);
});

test('short sides between corners are fitted to finite coordinates, whatever the corner span', () => {
  // A side a little over two corner spans long leaves no middle to level when the span is not a
  // whole number of samples (5 traced pixels a pixel: 7.5); its coordinates came out NaN.
  for (const perPixel of [4, 5, 13]) {
    const options: CurveOptions = { ...OPTIONS, cornerSpan: 1.5 * perPixel, smoothing: perPixel / 2, straightTolerance: 0.25 * perPixel, stairStep: perPixel };
    for (let side = 2; side <= 60; side++) {
      const fitted = fitOutlines(polygon([[10, 10], [10 + side, 10], [10 + side, 10 + 2 * side], [10, 10 + 2 * side]]), options);
      assert.ok(fitted.coords.length > 0 && fitted.coords.every(Number.isFinite), `${perPixel} a pixel, side ${side}: ${fitted.coords.join(', ')}`);
    }
  }
});
