import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hypot, scaledShape, type TracedShape } from '../../src/engine/geometry.ts';

test('hypot is Math.hypot of two numbers to the last bit, special values included', () => {
  const special = [0, -0, 1, -1, 0.1, 3, 4, 5e-324, -1e-320, 2 ** -1074, 1e308, -1.7976931348623157e308, 2 ** 1023, Infinity, -Infinity, NaN];
  for (const x of special) for (const y of special) assert.ok(Object.is(hypot(x, y), Math.hypot(x, y)), `hypot(${x}, ${y})`);
  // Coordinates as the engine meets them, and arbitrary bit patterns.
  const bits = new Float64Array(2);
  const words = new Uint32Array(bits.buffer);
  let seed = 1;
  const random = () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  for (let i = 0; i < 200_000; i++) {
    let x = (random() - 0.5) * 4000;
    let y = i % 2 ? Math.round((random() - 0.5) * 20) : (random() - 0.5) * 1e-3;
    if (i % 3 === 0) {
      for (let w = 0; w < 4; w++) words[w] = random() * 2 ** 32;
      x = bits[0] as number;
      y = bits[1] as number;
    }
    assert.ok(Object.is(hypot(x, y), Math.hypot(x, y)), `hypot(${x}, ${y})`);
  }
});

test('scaledShape moves a shape to another grid: its outline, its gradient, its stroke and blur', () => {
  const shape: TracedShape = {
    fill: { kind: 'linear', x1: 1, y1: 2, x2: 5, y2: 6, stops: [] },
    opacity: 0.5,
    paths: [{ commands: [0, 1, 1, 3], coords: [0, 0, 10, 0, 10, 4] }],
    stroke: { width: 2 },
    blur: 1,
  };
  const scaled = scaledShape(shape, 2, 0.5);
  assert.deepEqual(scaled.paths[0]?.coords, [0, 0, 20, 0, 20, 2]);
  assert.deepEqual(scaled.paths[0]?.commands, [0, 1, 1, 3]);
  assert.deepEqual(scaled.fill, { kind: 'linear', x1: 2, y1: 1, x2: 10, y2: 3, stops: [] });
  assert.equal(scaled.stroke?.width, 2);
  assert.equal(scaled.blur, 1);
  assert.equal(scaled.opacity, 0.5);
  const radial = scaledShape({ fill: { kind: 'radial', cx: 4, cy: 4, r: 2, stops: [] }, opacity: 1, paths: [] }, 3, 3);
  assert.deepEqual(radial.fill, { kind: 'radial', cx: 12, cy: 12, r: 6, stops: [] });
  assert.equal(shape.paths[0]?.coords[2], 10, 'the original is left as it was');
});
