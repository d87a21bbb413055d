// Connected components of a pixel grid, and the union–find they are built with (also used by
// analyse/prepare.ts to count a palette's regions).

/** A forest of `size` singletons: each id its own root. */
export function disjointSets(size: number): Int32Array {
  const parent = new Int32Array(size);
  for (let i = 0; i < size; i++) parent[i] = i;
  return parent;
}

/** The root of `start`'s set, halving the path on the way. */
export function find(parent: Int32Array, start: number): number {
  let i = start;
  while (parent[i] !== i) {
    const grandparent = parent[parent[i] as number] as number;
    parent[i] = grandparent;
    i = grandparent;
  }
  return i;
}

export function union(parent: Int32Array, a: number, b: number): void {
  const ra = find(parent, a);
  const rb = find(parent, b);
  if (ra !== rb) parent[rb] = ra;
}

/**
 * The union–find forest of the 8-connected areas of the pixels `member` accepts (every other pixel
 * stays a singleton): an ink's pieces, as anti-aliasing joins a glyph's strokes diagonally.
 */
export function eightConnected(width: number, height: number, member: (i: number) => boolean): Int32Array {
  const parent = disjointSets(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0, i = y * width; x < width; x++, i++) {
      if (!member(i)) continue;
      if (x + 1 < width && member(i + 1)) union(parent, i, i + 1);
      if (y + 1 < height) {
        if (member(i + width)) union(parent, i, i + width);
        if (x + 1 < width && member(i + width + 1)) union(parent, i, i + width + 1);
        if (x > 0 && member(i + width - 1)) union(parent, i, i + width - 1);
      }
    }
  }
  return parent;
}

/** Each pixel's 4-connected area of one exact word, as the index of one pixel of it. */
export function componentRoots(words: Uint32Array, width: number, height: number): Int32Array {
  const parent = disjointSets(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (x + 1 < width && words[i] === words[i + 1]) union(parent, i, i + 1);
      if (y + 1 < height && words[i] === words[i + width]) union(parent, i, i + width);
    }
  }
  for (let i = 0; i < parent.length; i++) parent[i] = find(parent, i);
  return parent;
}

/** 4-connected areas of one exact RGBA word, numbered from 0; every fully transparent pixel counts as one colour. */
export function labelComponents(quantised: Buffer, width: number, height: number): Int32Array {
  const words = new Uint32Array(quantised.buffer, quantised.byteOffset, width * height).map((word) => (word >>> 24 === 0 ? 0 : word));
  const roots = componentRoots(words, width, height);
  const labels = new Int32Array(width * height);
  const compact = new Int32Array(width * height).fill(-1);
  let next = 0;
  for (let i = 0; i < labels.length; i++) {
    const root = roots[i] as number;
    if (compact[root] === -1) compact[root] = next++;
    labels[i] = compact[root] as number;
  }
  return labels;
}

export function maxLabel(labels: Int32Array): number {
  let max = -1;
  for (const label of labels) if (label > max) max = label;
  return max;
}

/** Labels renumbered 0..count-1 by 8-connected area (a label split by dissolving becomes several). */
export function relabel(labels: Int32Array, width: number): { labels: Int32Array; count: number } {
  const height = labels.length / width;
  const parent = disjointSets(labels.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const label = labels[i] as number;
      if (label < 0) continue;
      if (x + 1 < width && labels[i + 1] === label) union(parent, i, i + 1);
      if (y + 1 < height) {
        if (labels[i + width] === label) union(parent, i, i + width);
        if (x + 1 < width && labels[i + width + 1] === label) union(parent, i, i + width + 1);
        if (x > 0 && labels[i + width - 1] === label) union(parent, i, i + width - 1);
      }
    }
  }
  const out = new Int32Array(labels.length);
  const compact = new Int32Array(labels.length).fill(-1);
  let next = 0;
  for (let i = 0; i < labels.length; i++) {
    if ((labels[i] as number) < 0) {
      out[i] = -1;
      continue;
    }
    const root = find(parent, i);
    if (compact[root] === -1) compact[root] = next++;
    out[i] = compact[root] as number;
  }
  return { labels: out, count: next };
}
