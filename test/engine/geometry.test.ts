import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hypot } from '../../src/engine/geometry.ts';

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
