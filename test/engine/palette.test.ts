import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reducePalette } from '../../src/engine/palette.ts';

function image(pixels: [number, number, number, number][]): Buffer {
  return Buffer.from(pixels.flat());
}

function distinct(rgba: Buffer): Set<number> {
  const colours = new Set<number>();
  for (let i = 0; i < rgba.length; i += 4) colours.add(rgba.readUInt32LE(i));
  return colours;
}

test('reducePalette merges the closest colours first and keeps distant ones', () => {
  const source = image([
    [250, 0, 0, 255],
    [252, 0, 0, 255],
    [0, 0, 250, 255],
    [0, 0, 252, 255],
    [0, 250, 0, 255],
  ]);
  const reduced = reducePalette(source, 3);
  assert.equal(distinct(reduced).size, 3);
  // the two reds became one red, the two blues one blue, green untouched
  assert.equal(reduced.readUInt32LE(0), reduced.readUInt32LE(4));
  assert.equal(reduced.readUInt32LE(8), reduced.readUInt32LE(12));
  assert.deepEqual([...reduced.subarray(16, 20)], [0, 250, 0, 255]);
});

test('reducePalette keeps transparent and opaque pixels apart', () => {
  const source = image([
    [0, 0, 0, 0],
    [10, 10, 10, 255],
    [200, 200, 200, 255],
    [210, 210, 210, 255],
  ]);
  const reduced = reducePalette(source, 3);
  assert.equal(reduced[3], 0, 'transparent stays transparent');
  assert.equal(reduced[7], 255);
  assert.equal(reduced.readUInt32LE(8), reduced.readUInt32LE(12));
});
