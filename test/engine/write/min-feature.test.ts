// The grid minFeature, the cut report and an icon's sliver step measure widths on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flat } from '../../../src/engine/geometry.ts';
import { measuringGrid, removeNarrowFeatures } from '../../../src/engine/write/min-feature.ts';

const icon = { width: 32, height: 32, scaleX: 1, scaleY: 1, shapes: [] };

test('the measuring grid follows the output step, with at least 16 and at most 1000 units a pixel', () => {
  assert.equal(measuringGrid(icon, 0).unitsPerPixel, 16);
  assert.equal(measuringGrid(icon, 2).unitsPerPixel, 100);
  assert.equal(measuringGrid(icon, 3).unitsPerPixel, 1000);
  // pathPrecision 10 on a 32 px icon writes 8 decimals: measured on a grid of 10⁸ units a pixel,
  // its curves were flattened into so many points that one conversion took 35 s.
  assert.equal(measuringGrid(icon, 8).unitsPerPixel, 1000);
});

test('a sliver is found and a piece that holds the width is kept, however fine the output', () => {
  const square = { fill: flat({ r: 0, g: 0, b: 0 }), opacity: 1, paths: [{ commands: [0, 1, 1, 1, 3], coords: [4, 4, 20, 4, 20, 20, 4, 20] }] };
  const sliver = { fill: flat({ r: 0, g: 0, b: 0 }), opacity: 1, paths: [{ commands: [0, 1, 1, 3], coords: [6, 24, 7.92, 24, 6, 24.15] }] };
  for (const decimals of [2, 8]) {
    const result = removeNarrowFeatures({ ...icon, shapes: [square, sliver] }, 0.2, decimals, false);
    assert.equal(result.removed, 1, `decimals ${decimals}`);
    assert.deepEqual(result.image.shapes, [square]);
  }
});
