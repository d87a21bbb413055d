import assert from 'node:assert/strict';
import { test } from 'node:test';
import { warmUp } from '../../../src/engine/runtime/warm-up.ts';

test("the worker's warm-up goes through each of the engine's paths", async () => {
  // The photograph twice (polygon, spline), the drawing, the icon at two sizes, the sprite.
  assert.deepEqual(await warmUp(), ['photo', 'photo', 'sketch', 'logo', 'logo', 'pixelart']);
});
