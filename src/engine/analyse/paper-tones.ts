// Paper tones: the light fills a page of ink lies on besides its paper, as a digital document
// has them (a code listing's tinted box, a table's shaded rows, a highlighted line). Line art is
// traced as ink on one paper, so such fills came back as the paper. Here the ink is taken out of
// the page (each ink pixel filled from the paper around it), and what differs from the paper is
// gathered into a few flat tones, each a mask traced under the ink like a second paper.

import { oklabDistance, srgbToOklab } from '../check/oklab.ts';
import type { Rgb } from '../geometry.ts';
import { squareFilter, type SecondPaper } from './ink.ts';

/**
 * A page is digital, with paper of one exact colour, when at least this share of its opaque pixels
 * has exactly the paper's colour. A scan's paper varies (grain, light, JPEG noise), and its
 * shading is no fill to trace flat.
 */
const DIGITAL_PAPER_SHARE = 0.3;
/** A tone differs from the paper by at least this Oklab distance (a just-noticeable difference is about 0.02). */
const TONE_FROM_PAPER = 0.02;
/** Levels a pixel may differ from the paper's colour in a channel and still count as paper for the quick check. */
const PAPER_LEVELS = 4;
/** Tones within this Oklab distance are one. */
const SAME_TONE = 0.03;
/** A tone covering less than this share of the page is left as paper. */
const MIN_TONE_SHARE = 0.002;
/** The tones are found on a grid of at most this many cells (a larger page is reduced by a whole factor). */
const TONE_GRID_PIXELS = 2_000_000;
/**
 * A tone is a fill: its mask is opened (eroded, then dilated) over a square of 2·radius + 1 cells,
 * which leaves a tinted box whole and takes out what lies along the ink in threads (a scan's
 * ringing, the blend of anti-aliasing the ink's threshold left).
 */
const FILL_RADIUS = 2;
/**
 * A tone is kept only if its pixels off the ink are this flat (luma's standard deviation): a
 * digital page's fills 0–2 (JPEG), a pencil drawing's shading and dense hatching far more.
 */
const FLAT_SPREAD = 3;
/** Filling the ink from the paper around it stops after this many passes (a stroke twice as wide). */
const FILL_PASSES = 12;

/** Pixels sampled for the paper's exact colour: every this many. */
const PAPER_SAMPLE_STEP = 7;

/**
 * The paper's exact colour when the opaque page is digital (DIGITAL_PAPER_SHARE of its pixels
 * in its commonest colour), else undefined.
 */
export function digitalPaperOf(rgba: Buffer): Rgb | undefined {
  const counts = new Map<number, number>();
  let sampled = 0;
  for (let i = 0; i < rgba.length; i += 4 * PAPER_SAMPLE_STEP) {
    if ((rgba[i + 3] as number) < 128) continue;
    sampled++;
    const key = ((rgba[i] as number) << 16) | ((rgba[i + 1] as number) << 8) | (rgba[i + 2] as number);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let commonest = -1;
  let most = 0;
  for (const [key, count] of counts) {
    if (count > most) {
      most = count;
      commonest = key;
    }
  }
  if (commonest < 0) return undefined;
  const paper = { r: commonest >> 16, g: (commonest >> 8) & 0xff, b: commonest & 0xff };
  return most >= DIGITAL_PAPER_SHARE * sampled ? paper : undefined;
}

/**
 * The page's tones other than its paper, largest first, each as a mask (black on white) on a grid
 * of `pixelsPerMaskPixel` image pixels. `ink` marks the ink pixels (1) at the image's size; they
 * and the pixels beside them (their anti-aliasing) are filled from the page around them first.
 */
export function paperTonesOf(rgba: Buffer, width: number, height: number, ink: Uint8Array, paper: Rgb): SecondPaper[] {
  const factor = Math.max(1, Math.ceil(Math.sqrt((width * height) / TONE_GRID_PIXELS)));
  const columns = Math.ceil(width / factor);
  const rows = Math.ceil(height / factor);
  const cells = columns * rows;
  // Each cell's mean colour over its pixels that are neither ink nor beside ink; NaN where none is.
  const near = dilated(ink, width, height);
  // Most pages have no fill: their pixels off the ink are the paper's, give or take a level.
  if (offPaperPixels(rgba, near, paper) < MIN_TONE_SHARE * width * height) return [];
  const colour = cellColours(rgba, width, height, near, factor, columns, rows);
  fillFromNeighbours(colour, columns, rows, paper);

  // The tones: cells' colours binned (5 bits a channel); bins far enough from the paper gathered
  // greedily, the most common first.
  const paperLab = new Float32Array(3);
  srgbToOklab(Math.round(paper.r), Math.round(paper.g), Math.round(paper.b), paperLab, 0);
  const binOf = new Int32Array(cells);
  const binSums = new Float64Array(32768 * 4);
  for (let c = 0; c < cells; c++) {
    const r = colour[c * 3] as number;
    const g = colour[c * 3 + 1] as number;
    const b = colour[c * 3 + 2] as number;
    const key = (r >> 3) * 1024 + (g >> 3) * 32 + (b >> 3);
    binOf[c] = key;
    binSums[key * 4] = (binSums[key * 4] as number) + r;
    binSums[key * 4 + 1] = (binSums[key * 4 + 1] as number) + g;
    binSums[key * 4 + 2] = (binSums[key * 4 + 2] as number) + b;
    binSums[key * 4 + 3] = (binSums[key * 4 + 3] as number) + 1;
  }
  const bins: [number, { count: number; r: number; g: number; b: number; lab: Float32Array }][] = [];
  for (let key = 0; key < 32768; key++) {
    const count = binSums[key * 4 + 3] as number;
    if (count === 0) continue;
    const bin = { count, r: binSums[key * 4] as number, g: binSums[key * 4 + 1] as number, b: binSums[key * 4 + 2] as number, lab: new Float32Array(3) };
    srgbToOklab(Math.round(bin.r / count), Math.round(bin.g / count), Math.round(bin.b / count), bin.lab, 0);
    if (oklabDistance(bin.lab, paperLab) >= TONE_FROM_PAPER) bins.push([key, bin]);
  }
  if (bins.length === 0) return [];
  const tones: { lab: Float32Array; count: number; r: number; g: number; b: number }[] = [];
  const toneOfBin = new Map<number, number>();
  for (const [key, bin] of bins.sort((a, b) => b[1].count - a[1].count)) {
    const binLab = bin.lab;
    let chosen = -1;
    let nearest = SAME_TONE;
    tones.forEach((tone, index) => {
      const d = oklabDistance(binLab, tone.lab);
      if (d < nearest) {
        nearest = d;
        chosen = index;
      }
    });
    if (chosen < 0) {
      chosen = tones.length;
      tones.push({ lab: binLab, count: 0, r: 0, g: 0, b: 0 });
    }
    const tone = tones[chosen] as (typeof tones)[number];
    tone.count += bin.count;
    tone.r += bin.r;
    tone.g += bin.g;
    tone.b += bin.b;
    toneOfBin.set(key, chosen);
  }
  const kept = tones.map((tone, index) => ({ tone, index })).filter(({ tone }) => tone.count >= MIN_TONE_SHARE * cells);
  kept.sort((a, b) => b.tone.count - a.tone.count);
  // A tone too small to keep (the fill under faint text, a blend along a fill's edge) joins the
  // nearest kept one where that is nearer than the paper.
  const target = tones.map((tone, index) => {
    if (kept.some((k) => k.index === index)) return index;
    let nearest = oklabDistance(tone.lab, paperLab);
    let chosen = -1;
    for (const k of kept) {
      const d = oklabDistance(tone.lab, k.tone.lab);
      if (d < nearest) {
        nearest = d;
        chosen = k.index;
      }
    }
    return chosen;
  });
  const masks: SecondPaper[] = [];
  for (const { tone, index } of kept) {
    const inTone = new Uint8Array(cells);
    for (let c = 0; c < cells; c++) {
      const binTone = toneOfBin.get(binOf[c] as number);
      if (binTone !== undefined && target[binTone] === index) inTone[c] = 1;
    }
    const solid = opened(inTone, columns, rows, FILL_RADIUS);
    if (!solid.includes(1) || !isFlat(rgba, width, height, near, solid, factor, columns)) continue;
    const mask = Buffer.alloc(cells * 4, 255);
    for (let c = 0; c < cells; c++) if (solid[c] === 1) mask.fill(0, c * 4, c * 4 + 3);
    masks.push({ colour: { r: tone.r / tone.count, g: tone.g / tone.count, b: tone.b / tone.count }, mask, maskWidth: columns, maskHeight: rows, pixelsPerMaskPixel: factor });
  }
  return masks;
}


/**
 * Whether the pixels of a tone's cells, off the ink, are one flat colour (their luma's standard
 * deviation at most FLAT_SPREAD): a digital page's fill is, give or take JPEG's noise; shading cut
 * into steps of tone (dense hatching's grey, a pencil drawing's soft shadow) is not.
 */
function isFlat(rgba: Buffer, width: number, height: number, near: Uint8Array, cells: Uint8Array, factor: number, columns: number): boolean {
  let count = 0;
  let sum = 0;
  let squares = 0;
  for (let y = 0; y < height; y++) {
    const cellRow = Math.floor(y / factor) * columns;
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      if (near[p] === 1 || cells[cellRow + Math.floor(x / factor)] !== 1) continue;
      const i = p * 4;
      const luma = 0.299 * (rgba[i] as number) + 0.587 * (rgba[i + 1] as number) + 0.114 * (rgba[i + 2] as number);
      count++;
      sum += luma;
      squares += luma * luma;
    }
  }
  if (count === 0) return false;
  const mean = sum / count;
  return Math.sqrt(Math.max(0, squares / count - mean * mean)) <= FLAT_SPREAD;
}

/** Pixels not marked in `near` more than PAPER_LEVELS from the paper's colour in some channel. */
function offPaperPixels(rgba: Buffer, near: Uint8Array, paper: Rgb): number {
  const low = [paper.r - PAPER_LEVELS, paper.g - PAPER_LEVELS, paper.b - PAPER_LEVELS] as const;
  const high = [paper.r + PAPER_LEVELS, paper.g + PAPER_LEVELS, paper.b + PAPER_LEVELS] as const;
  let off = 0;
  for (let p = 0, i = 0; p < near.length; p++, i += 4) {
    if (near[p] === 1) continue;
    const r = rgba[i] as number;
    const g = rgba[i + 1] as number;
    const b = rgba[i + 2] as number;
    if (r < low[0] || r > high[0] || g < low[1] || g > high[1] || b < low[2] || b > high[2]) off++;
  }
  return off;
}

/** Each cell's mean colour over its pixels not marked in `near`; NaN where every pixel is. */
function cellColours(rgba: Buffer, width: number, height: number, near: Uint8Array, factor: number, columns: number, rows: number): Float32Array {
  const cells = columns * rows;
  const colour = new Float32Array(cells * 3).fill(Number.NaN);
  const counts = new Float64Array(cells);
  const sums = new Float64Array(cells * 3);
  for (let y = 0; y < height; y++) {
    const cellRow = Math.floor(y / factor) * columns;
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      if (near[p] === 1) continue;
      const cell = cellRow + Math.floor(x / factor);
      const i = p * 4;
      sums[cell * 3] = (sums[cell * 3] as number) + (rgba[i] as number);
      sums[cell * 3 + 1] = (sums[cell * 3 + 1] as number) + (rgba[i + 1] as number);
      sums[cell * 3 + 2] = (sums[cell * 3 + 2] as number) + (rgba[i + 2] as number);
      counts[cell] = (counts[cell] as number) + 1;
    }
  }
  for (let c = 0; c < cells; c++) {
    const count = counts[c] as number;
    if (count === 0) continue;
    colour[c * 3] = (sums[c * 3] as number) / count;
    colour[c * 3 + 1] = (sums[c * 3 + 1] as number) / count;
    colour[c * 3 + 2] = (sums[c * 3 + 2] as number) / count;
  }
  return colour;
}

/** The ink and the pixels beside it (8 neighbours), as a row pass then a column pass. */
function dilated(ink: Uint8Array, width: number, height: number): Uint8Array {
  const rows = new Uint8Array(ink.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0, p = y * width; x < width; x++, p++) {
      if (ink[p] === 1 || (x > 0 && ink[p - 1] === 1) || (x + 1 < width && ink[p + 1] === 1)) rows[p] = 1;
    }
  }
  const out = new Uint8Array(ink.length);
  for (let p = 0; p < ink.length; p++) {
    if (rows[p] === 1 || (p >= width && rows[p - width] === 1) || (p + width < ink.length && rows[p + width] === 1)) out[p] = 1;
  }
  return out;
}

/** Cells without a colour take the mean of their coloured neighbours, pass by pass; any left over take the paper's. */
function fillFromNeighbours(colour: Float32Array, columns: number, rows: number, paper: Rgb): void {
  let missing: number[] = [];
  for (let c = 0; c < colour.length / 3; c++) if (Number.isNaN(colour[c * 3] as number)) missing.push(c);
  const filled: number[] = [];
  const values: number[] = [];
  for (let pass = 0; pass < FILL_PASSES && missing.length > 0; pass++) {
    const still: number[] = [];
    filled.length = 0;
    values.length = 0;
    for (const c of missing) {
      const x = c % columns;
      const y = (c - x) / columns;
      let count = 0;
      let r = 0;
      let g = 0;
      let b = 0;
      for (let yy = Math.max(0, y - 1); yy <= Math.min(rows - 1, y + 1); yy++) {
        for (let xx = Math.max(0, x - 1); xx <= Math.min(columns - 1, x + 1); xx++) {
          const n = (yy * columns + xx) * 3;
          if (Number.isNaN(colour[n] as number)) continue;
          count++;
          r += colour[n] as number;
          g += colour[n + 1] as number;
          b += colour[n + 2] as number;
        }
      }
      if (count === 0) still.push(c);
      else {
        filled.push(c);
        values.push(r / count, g / count, b / count);
      }
    }
    // Filled after the pass, so that each pass reads only the colours of the one before.
    filled.forEach((c, k) => colour.set([values[k * 3] as number, values[k * 3 + 1] as number, values[k * 3 + 2] as number], c * 3));
    missing = still;
  }
  for (const c of missing) colour.set([paper.r, paper.g, paper.b], c * 3);
}

/** A binary grid opened over a (2·radius + 1)² square: its minimum, then the maximum of that (ink.ts, squareFilter). */
function opened(grid: Uint8Array, columns: number, rows: number, radius: number): Uint8Array {
  const eroded = squareFilter(Float32Array.from(grid), columns, rows, radius, -1);
  return Uint8Array.from(squareFilter(eroded, columns, rows, radius, 1));
}
