import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mapToPalette, paletteOf, reducePalette } from '../../../src/engine/analyse/palette.ts';

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

test('paletteOf lists each colour of a quantised image once', () => {
  const source = image([
    [1, 2, 3, 255],
    [1, 2, 3, 255],
    [9, 9, 9, 0],
    [1, 2, 3, 255],
  ]);
  assert.deepEqual([...paletteOf(source)].sort(), [...distinct(source)].sort());
  assert.equal(paletteOf(source).length, 2);
});

test('mapToPalette maps each pixel onto the nearest palette colour, alpha included', () => {
  const palette = paletteOf(
    image([
      [255, 0, 0, 255],
      [0, 0, 255, 255],
      [0, 0, 0, 0],
    ]),
  );
  const mapped = mapToPalette(
    image([
      [240, 20, 10, 255],
      [30, 10, 200, 255],
      [250, 0, 0, 10],
      [0, 0, 250, 250],
    ]),
    palette,
  );
  assert.deepEqual([...mapped], [255, 0, 0, 255, 0, 0, 255, 255, 0, 0, 0, 0, 0, 0, 255, 255]);
});

test('mapToPalette finds the exact nearest colour, as a search over the whole palette would', () => {
  // A fixed pseudo-random sequence: near-identical palette colours make the colour cells' candidate lists matter.
  let seed = 7;
  const next = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed >> 8;
  };
  const paletteImage = Buffer.alloc(64 * 4);
  for (let i = 0; i < paletteImage.length; i++) paletteImage[i] = i % 4 === 3 ? [0, 255, 255, 128][next() % 4] ?? 255 : 96 + (next() % 64);
  const palette = paletteOf(paletteImage);
  const pixels = Buffer.alloc(20_000 * 4);
  for (let i = 0; i < pixels.length; i++) pixels[i] = i % 4 === 3 ? [0, 255, 255, 200][next() % 4] ?? 255 : 80 + (next() % 96);
  const mapped = mapToPalette(pixels, palette);
  for (let p = 0; p < pixels.length; p += 4) {
    let best = Infinity;
    let nearest = 0;
    for (const word of palette) {
      const dr = (pixels[p] as number) - (word & 255);
      const dg = (pixels[p + 1] as number) - ((word >>> 8) & 255);
      const db = (pixels[p + 2] as number) - ((word >>> 16) & 255);
      const da = ((pixels[p + 3] as number) - (word >>> 24)) * 4;
      const distance = dr * dr + dg * dg + db * db + da * da;
      if (distance < best) {
        best = distance;
        nearest = word;
      }
    }
    assert.equal(mapped.readUInt32LE(p), nearest, `pixel ${p / 4}`);
  }
});
