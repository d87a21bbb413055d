import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PathCommand } from '../../../src/engine/geometry.ts';
import { findPoints, pointShapes, POINT_CONTRAST, type Point } from '../../../src/engine/trace/points.ts';
import { randomSequence } from '../fixtures.ts';

interface Star {
  x: number;
  y: number;
  sigma: number;
  peak: number;
}

/** An opaque grey image: a ground of `ground` ± `noise`/2, Gaussian spots added (negative peaks are dark). */
function sky(width: number, height: number, ground: number, noise: number, stars: readonly Star[], seed = 1): { rgba: Buffer; width: number; height: number } {
  const random = randomSequence(seed);
  const values = new Float64Array(width * height);
  for (let i = 0; i < values.length; i++) values[i] = ground + (random() - 0.5) * noise;
  for (const star of stars) {
    for (let y = Math.floor(star.y - 6); y <= star.y + 6; y++) {
      for (let x = Math.floor(star.x - 6); x <= star.x + 6; x++) {
        if (x < 0 || y < 0 || x >= width || y >= height) continue;
        const d2 = (x + 0.5 - star.x) ** 2 + (y + 0.5 - star.y) ** 2;
        values[y * width + x] = (values[y * width + x] as number) + star.peak * Math.exp(-d2 / (2 * star.sigma * star.sigma));
      }
    }
  }
  const rgba = Buffer.alloc(width * height * 4);
  for (let i = 0; i < values.length; i++) {
    const v = Math.max(0, Math.min(255, Math.round(values[i] as number)));
    rgba.fill(v, i * 4, i * 4 + 3);
    rgba[i * 4 + 3] = 255;
  }
  return { rgba, width, height };
}

test('findPoints finds every star on a quiet night sky, at its place, and nothing else', () => {
  const stars: Star[] = [];
  for (let i = 0; i < 24; i++) stars.push({ x: 20 + (i % 6) * 30 + 0.3 * (i % 3), y: 20 + Math.floor(i / 6) * 30 + 0.7, sigma: 0.5 + (i % 4) * 0.3, peak: 60 + (i % 5) * 40 });
  const points = findPoints(sky(200, 140, 30, 6, stars));
  assert.equal(points.length, stars.length);
  for (const star of stars) {
    const found = points.find((p) => Math.hypot(p.x - star.x, p.y - star.y) < 0.6);
    assert.ok(found, `the star at ${star.x}, ${star.y} is found near its centre`);
    assert.ok(found.colour.r > 30 + POINT_CONTRAST, 'drawn in its own light colour');
    assert.ok(Math.abs(found.surround.r - 30) < 3, 'over the sky it stands on');
    // The dot adds the star's light: its area times its contrast is the Gaussian's volume (to the tenth the grid and rounding allow).
    const volume = 2 * Math.PI * star.sigma ** 2 * star.peak;
    const drawn = Math.PI * found.radius ** 2 * (found.colour.r - found.surround.r);
    assert.ok(Math.abs(drawn - volume) < 0.25 * volume + 10, `light ${drawn.toFixed(0)} for ${volume.toFixed(0)}`);
  }
});

test('a dark point on a light sky is a point too', () => {
  const points = findPoints(sky(60, 60, 200, 4, [{ x: 30.5, y: 30.5, sigma: 0.8, peak: -150 }]));
  assert.equal(points.length, 1);
  assert.ok((points[0] as Point).colour.r < 200 - POINT_CONTRAST);
});

test('specks on texture, faint specks and shapes wider than a point are not points', () => {
  // Bright specks on a rough ground (a rock face's grain): the texture, which the trace draws as tone.
  const specks: Star[] = [];
  for (let i = 0; i < 16; i++) specks.push({ x: 15 + (i % 4) * 30, y: 15 + Math.floor(i / 4) * 30, sigma: 0.7, peak: 120 });
  assert.equal(findPoints(sky(130, 130, 90, 60, specks)).length, 0, 'specks on texture');
  // A speck under the contrast JPEG's ringing and a sky's grain reach.
  assert.equal(findPoints(sky(60, 60, 30, 6, [{ x: 30.5, y: 30.5, sigma: 0.7, peak: 15 }])).length, 0, 'a faint speck');
  // A moon: a disc wider than a point, which the trace draws as a shape.
  assert.equal(findPoints(sky(60, 60, 30, 6, [{ x: 30.5, y: 30.5, sigma: 4, peak: 200 }])).length, 0, 'a disc');
  // Two stars side by side are a pair the trace may not draw either, but neither stands alone on a smooth ground.
  assert.equal(findPoints(sky(60, 60, 30, 6, [{ x: 28, y: 30, sigma: 0.7, peak: 200 }, { x: 33, y: 30, sigma: 0.7, peak: 200 }])).length, 0, 'a close pair');
  // Points on transparency are the artwork's.
  const clear = sky(60, 60, 30, 6, [{ x: 30.5, y: 30.5, sigma: 0.8, peak: 200 }]);
  for (let i = 3; i < clear.rgba.length; i += 4) clear.rgba[i] = 128;
  assert.equal(findPoints(clear).length, 0, 'on transparency');
});

test('pointShapes draws round dots on the traced grid, at least the written precision across, keeping their light', () => {
  const point = (x: number, radius: number, r: number): Point => ({ x, y: 10, radius, colour: { r, g: r, b: r }, surround: { r: 16, g: 16, b: 16 }, strength: 1 });
  // Two white points and one grey; the traced grid is a quarter of the decode's.
  const shapes = pointShapes([point(10, 2, 255), point(30, 2, 255), point(50, 0.8, 208)], 0.25, 0.25);
  assert.equal(shapes.length, 2, 'dots of one colour share a shape');
  const white = shapes.find((s) => s.fill.kind === 'flat' && s.fill.color.r === 255);
  assert.ok(white);
  const path = white.paths[0];
  assert.ok(path);
  assert.deepEqual(path.commands, [0, 2, 2, 2, 2, 3, 0, 2, 2, 2, 2, 3].map((c) => [PathCommand.move, PathCommand.line, PathCommand.cubic, PathCommand.close][c]));
  // A circle of radius 0.5 (2 × 0.25) about (2.5, 2.5): every end point on it.
  for (let c = 0; c < 2 + 4 * 6; c += c === 0 ? 2 : 6) {
    const [ex, ey] = c === 0 ? [path.coords[0], path.coords[1]] : [path.coords[c + 4], path.coords[c + 5]];
    assert.ok(Math.abs(Math.hypot((ex as number) - 2.5, (ey as number) - 2.5) - 0.5) < 1e-9);
  }
  // The grey point is 0.2 traced pixels across, drawn at 0.25: its colour lies nearer the sky's so that it adds the same light.
  const grey = shapes.find((s) => s !== white);
  assert.ok(grey && grey.fill.kind === 'flat');
  const expected = 16 + (208 - 16) * (0.2 / 0.25) ** 2;
  assert.ok(Math.abs(grey.fill.color.r - expected) <= 8, `grey ${grey.fill.color.r}, expected about ${expected}`);
  // Asked for polygons: octagons of the same area, lines only.
  const [octagon] = pointShapes([point(10, 2, 255)], 0.25, 0.25, false);
  const outline = octagon?.paths[0];
  assert.ok(outline);
  assert.deepEqual(outline.commands, [PathCommand.move, ...Array<number>(7).fill(PathCommand.line), PathCommand.close]);
  let twiceArea = 0;
  for (let k = 0; k < 8; k++) {
    const j = (k + 1) % 8;
    twiceArea += (outline.coords[2 * k] as number) * (outline.coords[2 * j + 1] as number) - (outline.coords[2 * j] as number) * (outline.coords[2 * k + 1] as number);
  }
  assert.ok(Math.abs(Math.abs(twiceArea) / 2 - Math.PI * 0.25) < 1e-9, 'the area of the circle it stands for');
});
