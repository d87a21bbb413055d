// A rendered result against its source, pixel by pixel at one size: how much of the picture's
// structure (SSIM on Oklab lightness), colour (Oklab ΔE) and opaque coverage survived, as a
// whole and tile by tile. Both are composited on white and on black, and the worse is kept:
// light artwork on transparency vanishes on white, dark artwork on black.

import { hypot } from '../geometry.ts';
import { oklabOver } from './oklab.ts';

export interface Comparison {
  width: number;
  height: number;
  /** Mean SSIM of Oklab lightness (7 × 7 box windows), the lower of white and black grounds. */
  ssim: number;
  /** Mean Oklab ΔE over all pixels, the higher of the two grounds. */
  deltaE: number;
  /** Share of the image opaque (alpha ≥ ½) in the source and not in the result, and the reverse. */
  coverageLost: number;
  coverageGained: number;
  /** Share of the source opaque. */
  sourceCoverage: number;
  /**
   * Share of the image in a clear colour in the source (Oklab chroma at least COLOURED, on white)
   * that the result moves two thirds of that chroma away: colour painted grey, black or another hue.
   */
  colourLost: number;
  /** Share of the image in flat fills of the source that the result moved by TONE_APART or more (tonesLost). */
  toneLost: number;
  /** Tiles (TILE_GRID per side at most, row by row) of the tile grid, each with its mean ΔE (worse ground) and its SSIM. */
  tiles: TileScores;
}

export interface TileScores {
  columns: number;
  rows: number;
  /** Pixels per tile side, about: tiles split the image evenly, so none is a sliver along an edge. */
  size: number;
  deltaE: Float32Array;
  ssim: Float32Array;
  /** Share of the tile's pixels that are opaque in the source or the result (tiles of nothing weigh nothing). */
  content: Float32Array;
}

/** Tiles per long side: regions about the size of a feature a person looks at (an eye, a letter). */
export const TILE_GRID = 16;
const WINDOW_RADIUS = 3;
/** Oklab chroma from which a colour is clear: a saturated fill or line, not yellowed paper or a tint. */
export const COLOURED = 0.1;
/** A neighbourhood whose Oklab lightness spans less than this is flat: a fill, not an edge or texture. */
const FLAT_RANGE = 0.02;
/** Oklab lightness apart from which a flat tone is another tone (about ten just-noticeable steps). */
const TONE_APART = 0.1;
/** A fill at least this much of which moved by TONE_APART is a tone lost (tonesLost). */
const LOST_FILL_SHARE = 0.5;
const C1 = 0.01 * 0.01;
const C2 = 0.03 * 0.03;

/** Compares two straight-alpha RGBA images of one size; `tones` measures toneLost (0 otherwise: only ink needs it). */
export function compareImages(source: Uint8Array, result: Uint8Array, width: number, height: number, options: { tones?: boolean } = {}): Comparison {
  if (source.length !== width * height * 4 || result.length !== source.length) throw new Error('compareImages: sizes differ');
  const pixels = width * height;
  let sourceOpaque = 0;
  let lost = 0;
  let gained = 0;
  for (let p = 0; p < pixels; p++) {
    const s = (source[p * 4 + 3] as number) >= 128;
    const r = (result[p * 4 + 3] as number) >= 128;
    if (s) sourceOpaque++;
    if (s && !r) lost++;
    else if (r && !s) gained++;
  }
  const long = Math.max(width, height);
  const size = Math.max(4, Math.ceil(long / TILE_GRID));
  const columns = Math.max(1, Math.round(width / size));
  const rows = Math.max(1, Math.round(height / size));
  const tiles: TileScores = {
    columns,
    rows,
    size,
    deltaE: new Float32Array(columns * rows),
    ssim: new Float32Array(columns * rows).fill(1),
    content: new Float32Array(columns * rows),
  };
  const tileIndex = tileIndexOf(width, height, tiles);
  for (let p = 0; p < pixels; p++) {
    if ((source[p * 4 + 3] as number) >= 128 || (result[p * 4 + 3] as number) >= 128) {
      const t = tileIndex[p] as number;
      tiles.content[t] = (tiles.content[t] as number) + 1;
    }
  }
  let worstSsim = Infinity;
  let worstDeltaE = 0;
  // Opaque pixels look the same on any ground: two opaque images need only one, and the second
  // ground recomputes only the pixels that are not opaque.
  const grounds = isOpaque(source) && isOpaque(result) ? [1] : [1, 0];
  let previous: [Float32Array, Float32Array] | undefined;
  let colourLost = 0;
  let toneLost = 0;
  const deltaE = new Float32Array(pixels);
  const ssim = new SsimScratch(pixels);
  for (const ground of grounds) {
    const a = oklabOver(source, ground, previous?.[0]);
    const b = oklabOver(result, ground, previous?.[1]);
    previous = [a, b];
    let total = 0;
    for (let p = 0; p < pixels; p++) {
      const i = p * 3;
      const dl = (a[i] as number) - (b[i] as number);
      const da = (a[i + 1] as number) - (b[i + 1] as number);
      const db = (a[i + 2] as number) - (b[i + 2] as number);
      const d = Math.sqrt(dl * dl + da * da + db * db);
      deltaE[p] = d;
      total += d;
      if (ground === 1) {
        // Away from the source's colour by two thirds of its chroma: at most a third as colourful
        // in the same hue (grey, black), or another hue (ink of one colour over a chart's bars).
        const chroma = hypot(a[i + 1] as number, a[i + 2] as number);
        if (chroma >= COLOURED && hypot(da, db) * 3 >= 2 * chroma) colourLost++;
      }
    }
    if (ground === 1 && options.tones) toneLost = tonesLost(a, b, width, height);
    const ssimMap = lightnessSsim(a, b, width, height, ssim);
    let ssimTotal = 0;
    for (let p = 0; p < pixels; p++) ssimTotal += ssimMap[p] as number;
    worstSsim = Math.min(worstSsim, ssimTotal / pixels);
    worstDeltaE = Math.max(worstDeltaE, total / pixels);
    tileMeans(deltaE, tileIndex, width, height, tiles, tiles.deltaE, Math.max);
    tileMeans(ssimMap, tileIndex, width, height, tiles, tiles.ssim, Math.min);
  }
  for (let t = 0; t < tiles.content.length; t++) {
    const area = tileArea(t, width, height, tiles);
    tiles.content[t] = (tiles.content[t] as number) / area;
  }
  return {
    width,
    height,
    ssim: worstSsim,
    deltaE: worstDeltaE,
    coverageLost: lost / pixels,
    coverageGained: gained / pixels,
    sourceCoverage: sourceOpaque / pixels,
    colourLost: colourLost / pixels,
    toneLost,
    tiles,
  };
}

function isOpaque(rgba: Uint8Array): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) return false;
  return true;
}

/** The tile of every pixel. */
function tileIndexOf(width: number, height: number, tiles: Pick<TileScores, 'columns' | 'rows'>): Int32Array {
  const column = new Int32Array(width);
  for (let x = 0; x < width; x++) column[x] = Math.floor((x * tiles.columns) / width);
  const index = new Int32Array(width * height);
  for (let y = 0; y < height; y++) {
    const row = Math.floor((y * tiles.rows) / height) * tiles.columns;
    for (let x = 0; x < width; x++) index[y * width + x] = row + (column[x] as number);
  }
  return index;
}

/** The tile a pixel lies in. */
export function tileOf(x: number, y: number, width: number, height: number, tiles: Pick<TileScores, 'columns' | 'rows'>): number {
  return Math.floor((y * tiles.rows) / height) * tiles.columns + Math.floor((x * tiles.columns) / width);
}

/** Pixels in a tile. */
export function tileArea(t: number, width: number, height: number, tiles: Pick<TileScores, 'columns' | 'rows'>): number {
  const column = t % tiles.columns;
  const row = Math.floor(t / tiles.columns);
  const span = (index: number, parts: number, length: number) => Math.ceil(((index + 1) * length) / parts) - Math.ceil((index * length) / parts);
  return span(column, tiles.columns, width) * span(row, tiles.rows, height);
}

/** Each tile's mean of `values`, merged into `into` with `pick` (the worse of two grounds). */
function tileMeans(values: Float32Array, tileIndex: Int32Array, width: number, height: number, tiles: TileScores, into: Float32Array, pick: (a: number, b: number) => number): void {
  const sums = new Float64Array(into.length);
  for (let p = 0; p < values.length; p++) {
    const t = tileIndex[p] as number;
    sums[t] = (sums[t] as number) + (values[p] as number);
  }
  for (let t = 0; t < into.length; t++) {
    const mean = (sums[t] as number) / tileArea(t, width, height, tiles);
    into[t] = pick(into[t] as number, mean);
  }
}

/** Buffers of lightnessSsim, reused for the second ground. */
class SsimScratch {
  readonly moments: [Float32Array, Float32Array, Float32Array, Float32Array, Float32Array];
  readonly line: Float32Array;
  readonly out: Float32Array;
  constructor(pixels: number) {
    this.moments = [new Float32Array(pixels), new Float32Array(pixels), new Float32Array(pixels), new Float32Array(pixels), new Float32Array(pixels)];
    this.line = new Float32Array(pixels);
    this.out = new Float32Array(pixels);
  }
}

/**
 * SSIM (Wang et al. 2004) of the Oklab lightness of two images, per pixel, over box windows
 * of (2 × WINDOW_RADIUS + 1)² pixels clipped at the borders: a box instead of the usual Gaussian,
 * so that each window costs a constant through running sums.
 */
function lightnessSsim(a: Float32Array, b: Float32Array, width: number, height: number, scratch: SsimScratch): Float32Array {
  const pixels = width * height;
  const [muA, muB, sAA, sBB, sAB] = scratch.moments;
  for (let p = 0; p < pixels; p++) {
    const x = a[p * 3] as number;
    const y = b[p * 3] as number;
    muA[p] = x;
    muB[p] = y;
    sAA[p] = x * x;
    sBB[p] = y * y;
    sAB[p] = x * y;
  }
  for (const moment of scratch.moments) boxMean(moment, width, height, WINDOW_RADIUS, scratch.line);
  const out = scratch.out;
  for (let p = 0; p < pixels; p++) {
    const ma = muA[p] as number;
    const mb = muB[p] as number;
    const varA = Math.max(0, (sAA[p] as number) - ma * ma);
    const varB = Math.max(0, (sBB[p] as number) - mb * mb);
    const cov = (sAB[p] as number) - ma * mb;
    out[p] = ((2 * ma * mb + C1) * (2 * cov + C2)) / ((ma * ma + mb * mb + C1) * (varA + varB + C2));
  }
  return out;
}

/** In place: the mean over the (2r+1)² box around each pixel, clipped at the borders (separable running sums). */
function boxMean(values: Float32Array, width: number, height: number, radius: number, horizontal: Float32Array): void {
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let sum = 0;
    let count = 0;
    for (let x = 0; x < Math.min(radius, width); x++) {
      sum += values[row + x] as number;
      count++;
    }
    for (let x = 0; x < width; x++) {
      const enter = x + radius;
      if (enter < width) {
        sum += values[row + enter] as number;
        count++;
      }
      const leave = x - radius - 1;
      if (leave >= 0) {
        sum -= values[row + leave] as number;
        count--;
      }
      horizontal[row + x] = sum / count;
    }
  }
  // Down the columns, a row at a time (running sums per column), so memory is read in order.
  const sums = new Float64Array(width);
  let count = 0;
  for (let y = 0; y < Math.min(radius, height); y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) sums[x] = (sums[x] as number) + (horizontal[row + x] as number);
    count++;
  }
  for (let y = 0; y < height; y++) {
    const enter = y + radius;
    if (enter < height) {
      const row = enter * width;
      for (let x = 0; x < width; x++) sums[x] = (sums[x] as number) + (horizontal[row + x] as number);
      count++;
    }
    const leave = y - radius - 1;
    if (leave >= 0) {
      const row = leave * width;
      for (let x = 0; x < width; x++) sums[x] = (sums[x] as number) - (horizontal[row + x] as number);
      count--;
    }
    const row = y * width;
    for (let x = 0; x < width; x++) values[row + x] = (sums[x] as number) / count;
  }
}

/**
 * The share of the image in flat fills of the source whose lightness the result moved by
 * TONE_APART or more: a fill painted as paper or as ink. A pixel is flat when its 3 × 3
 * neighbourhood's Oklab lightness spans less than FLAT_RANGE; flat pixels that touch make a fill.
 * A fill counts when at least LOST_FILL_SHARE of it moved: the ears of a grey elephant, bounded by
 * its outline, move whole, where a page's paper lit unevenly is one fill, drawn as one paper, whose
 * shadowed part moves without an edge between it and the rest. Anti-aliasing, texture and noise
 * are not flat.
 */
function tonesLost(a: Float32Array, b: Float32Array, width: number, height: number): number {
  const pixels = width * height;
  const flat = new Uint8Array(pixels);
  for (let y = 1; y + 1 < height; y++) {
    for (let x = 1; x + 1 < width; x++) {
      const p = y * width + x;
      let lowest = a[p * 3] as number;
      let highest = lowest;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const neighbour = a[(p + dy * width + dx) * 3] as number;
          if (neighbour < lowest) lowest = neighbour;
          else if (neighbour > highest) highest = neighbour;
        }
      }
      if (highest - lowest < FLAT_RANGE) flat[p] = 1;
    }
  }
  // Each fill walked once (4-connected flat pixels); flat marks 2 once a pixel is queued.
  const queue = new Int32Array(pixels);
  let tail = 0;
  const visit = (q: number) => {
    if (flat[q] !== 1) return;
    flat[q] = 2;
    queue[tail++] = q;
  };
  let lost = 0;
  for (let start = 0; start < pixels; start++) {
    if (flat[start] !== 1) continue;
    tail = 0;
    visit(start);
    let head = 0;
    let moved = 0;
    while (head < tail) {
      const p = queue[head++] as number;
      if (Math.abs((a[p * 3] as number) - (b[p * 3] as number)) >= TONE_APART) moved++;
      const x = p % width;
      if (x > 0) visit(p - 1);
      if (x + 1 < width) visit(p + 1);
      if (p >= width) visit(p - width);
      if (p + width < pixels) visit(p + width);
    }
    if (moved >= LOST_FILL_SHARE * tail) lost += moved;
  }
  return lost / pixels;
}
