import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countBoundaries, countRegions } from '../../src/engine/prepare.ts';

/** An RGBA image from rows of letters, one colour per letter. */
function image(rows: string[]): { rgba: Buffer; width: number; height: number } {
  const width = rows[0]?.length ?? 0;
  const rgba = Buffer.alloc(width * rows.length * 4);
  rows.forEach((row, y) => {
    for (let x = 0; x < width; x++) rgba.writeUInt32LE((row.charCodeAt(x) | 0xff000000) >>> 0, (y * width + x) * 4);
  });
  return { rgba, width, height: rows.length };
}

test('countRegions counts 4-connected areas of one colour', () => {
  const picture = image(['aab', 'bab', 'bba']);
  // a: the top-left L of three pixels, and the lone corner; b: the right column, and the lower-left L.
  assert.equal(countRegions(picture.rgba, picture.width, picture.height), 4);
  const flat = image(['aaa', 'aaa']);
  assert.equal(countRegions(flat.rgba, flat.width, flat.height), 1);
  const diagonal = image(['ab', 'ba']);
  assert.equal(countRegions(diagonal.rgba, diagonal.width, diagonal.height), 4, 'diagonal neighbours are not connected');
});

test('countBoundaries counts pixels whose right or lower neighbour differs', () => {
  const picture = image(['aab', 'aab', 'ccc']);
  // Inner pixels (2×2 block): (0,0) same right and below; (1,0) right differs; (0,1) below differs; (1,1) both differ.
  assert.equal(countBoundaries(picture.rgba, picture.width, picture.height), 3);
});
