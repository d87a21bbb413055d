// Union–find and connected components: areas of one exact colour are 4-connected, fully
// transparent pixels are one colour whatever their stored RGB, and relabelling splits a label
// into its 8-connected pieces.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { componentRoots, disjointSets, find, labelComponents, maxLabel, relabel, union } from '../../../src/engine/segment/components.ts';

/** RGBA pixels from rows of letters: '.' fully transparent, any other letter an opaque colour of its own. */
function pixels(rows: string[]): { rgba: Buffer; width: number; height: number } {
  const width = (rows[0] as string).length;
  const rgba = Buffer.alloc(width * rows.length * 4);
  rows.forEach((row, y) => {
    for (let x = 0; x < width; x++) {
      const letter = row.charCodeAt(x);
      if (row[x] !== '.') rgba.writeUInt32LE((letter | (letter << 8) | 0xff000000) >>> 0, (y * width + x) * 4);
    }
  });
  return { rgba, width, height: rows.length };
}

/** Labels as rows of digits ('.' for -1), so a whole map is compared at once. */
function rows(labels: Int32Array, width: number): string[] {
  const out: string[] = [];
  for (let y = 0; y < labels.length / width; y++) {
    out.push(Array.from(labels.subarray(y * width, (y + 1) * width), (label) => (label < 0 ? '.' : label.toString(36))).join(''));
  }
  return out;
}

test('union–find: each id starts alone, unions join sets, find gives one root per set', () => {
  const parent = disjointSets(6);
  assert.deepEqual([...parent], [0, 1, 2, 3, 4, 5]);
  union(parent, 0, 1);
  union(parent, 2, 3);
  union(parent, 3, 4);
  assert.equal(find(parent, 1), find(parent, 0));
  assert.equal(find(parent, 4), find(parent, 2));
  assert.notEqual(find(parent, 0), find(parent, 2));
  assert.equal(find(parent, 5), 5);
  union(parent, 1, 4);
  const root = find(parent, 0);
  for (const id of [1, 2, 3, 4]) assert.equal(find(parent, id), root, `id ${id}`);
  union(parent, 4, 0); // already one set: nothing changes
  assert.equal(find(parent, 3), root);
  assert.equal(find(parent, 5), 5);
});

test('find halves paths: a long chain gets shorter, the root stays', () => {
  const parent = disjointSets(64);
  for (let i = 1; i < 64; i++) parent[i] = i - 1; // a chain 63 → 62 → … → 0
  assert.equal(find(parent, 63), 0);
  let depth = 0;
  for (let i = 63; parent[i] !== i; i = parent[i] as number) depth++;
  assert.ok(depth <= 32, `the chain from 63 is ${depth} long after one find`);
  for (let i = 0; i < 64; i++) assert.equal(find(parent, i), 0);
});

test('labelComponents: 4-connected areas of one colour, numbered in scan order; diagonal pixels are separate', () => {
  const { rgba, width, height } = pixels(['aab', 'bab', 'bba']);
  const labels = labelComponents(rgba, width, height);
  // a: the top-left L; b: the right column; b: the lower-left L (touches the right column only
  // at a corner); a: the lone corner pixel.
  assert.deepEqual(rows(labels, width), ['001', '201', '223']);
  assert.equal(maxLabel(labels), 3);
  const checker = pixels(['ab', 'ba']);
  assert.deepEqual(rows(labelComponents(checker.rgba, 2, 2), 2), ['01', '23']);
});

test('labelComponents: every fully transparent pixel is one colour, whatever RGB it stores', () => {
  const width = 4;
  const rgba = Buffer.alloc(width * 2 * 4);
  // Row 0: four transparent pixels with different stored colours; row 1: two partly
  // transparent pixels of different alpha, then two opaque pixels of one colour.
  for (let x = 0; x < 4; x++) rgba.writeUInt32LE((0x00102030 * (x + 1)) & 0x00ffffff, x * 4);
  rgba.writeUInt32LE(0x80aabbcc, 16);
  rgba.writeUInt32LE(0x40aabbcc, 20);
  rgba.writeUInt32LE(0xffaabbcc, 24);
  rgba.writeUInt32LE(0xffaabbcc, 28);
  assert.deepEqual(rows(labelComponents(rgba, width, 2), width), ['0000', '1233']);
  // The input is read, not changed.
  assert.equal(rgba.readUInt32LE(4), 0x00204060);
});

test('componentRoots: every pixel points at a pixel of its own area', () => {
  // 1 1 3
  // 3 1 2
  // 3 3 2
  const words = new Uint32Array([1, 1, 3, 3, 1, 2, 3, 3, 2]);
  const roots = componentRoots(words, 3, 3);
  for (let i = 0; i < words.length; i++) {
    assert.equal(words[roots[i] as number], words[i], `pixel ${i}`);
    assert.equal(roots[roots[i] as number], roots[i], `pixel ${i}'s root is its own root`);
  }
  assert.equal(new Set(roots).size, 4); // the 1s, the 2s, the 3 at the top right, the 3s at the left
  assert.equal(roots[0], roots[4]);
  assert.equal(roots[3], roots[7]);
  assert.notEqual(roots[2], roots[3], 'the 3 at the top right touches the other 3s only at a corner');
});

test('relabel: a label in pieces becomes one label per 8-connected piece; -1 stays -1', () => {
  // Label 5 in three pieces: the left column, a diagonal chain (corners only), a lone pixel.
  // Label 7 fills the rest; -1 is transparency, which joins nothing.
  const width = 6;
  const labels = Int32Array.from([
    5, 7, 5, 7, 7, 7,
    5, 7, 7, 5, 7, 7,
    5, 7, 7, 7, 5, 7,
    -1, -1, 7, 7, 7, -1,
    5, -1, 7, 7, 7, 5,
  ]);
  const { labels: out, count } = relabel(labels, width);
  assert.deepEqual(rows(out, width), ['012111', '011211', '011121', '..111.', '3.1114']);
  assert.equal(count, 5);
  // The diagonal chain is one piece; the left column and the pixel below the gap are two.
  assert.equal(out[2], out[9]);
  assert.equal(out[9], out[16]);
  assert.notEqual(out[0], out[24]);
});

test('maxLabel: the largest label, -1 when every pixel is transparent', () => {
  assert.equal(maxLabel(Int32Array.from([0, 4, 2, -1])), 4);
  assert.equal(maxLabel(Int32Array.from([-1, -1])), -1);
});
