// Ink on paper. The paper's brightness is estimated locally, so that ink is found under uneven
// light, on yellowed or stained paper and on a sheet lying on a lighter mount; luma divided by
// it (flat-field correction) leaves ink dark and paper at 255 everywhere. Used by the classifier
// (is this ink on paper?) and by the line-art preparation (where is the ink, what colours are
// ink and paper?).

import sharp from 'sharp';
import type { Rgb } from '../geometry.ts';

/** BT.601 luma, 0–255. */
export function luma(r: number, g: number, b: number): number {
  return 0.299 * r + 0.587 * g + 0.114 * b;
}

/** Opaque pixels are those with alpha ≥ 128, as the tracer sees them; transparent ones count as paper. */
function isOpaque(rgba: Buffer, p: number): boolean {
  return (rgba[p * 4 + 3] as number) >= 128;
}

function lumaAt(rgba: Buffer, p: number): number {
  const i = p * 4;
  return 0.299 * (rgba[i] as number) + 0.587 * (rgba[i + 1] as number) + 0.114 * (rgba[i + 2] as number);
}

/**
 * What ink is found by: luma, or for ink in colours luma less 0.3 of the chroma (the spread of the
 * channels). A red or green word is far from white paper in colour, where its luma lay near the
 * threshold and the word came back thin and broken; a light tint (a yellow highlight, a lavender
 * box) has little chroma and stays near the paper, as its luma has it (its darkest channel alone
 * would make a yellow highlight ink). Luma stays the measure for ink in one colour: grey and black
 * ink read the same either way.
 */
export type InkTone = 'luma' | 'colour';

/**
 * Share of a pixel's chroma (max − min channel) taken off its luma, for InkTone `colour`. At 0.5 a
 * light but saturated fill (a symbol's sky blue, 128/224/255) fell under the threshold and came
 * back as black ink round its outline; at 0.3 it stays a fill, and red, green and blue words
 * (luma 90–130, chroma 130–200) come out 40–90, well inside the ink.
 */
const CHROMA_AS_DARKNESS = 0.3;

function colourToneAt(rgba: Buffer, p: number): number {
  const i = p * 4;
  const r = rgba[i] as number;
  const g = rgba[i + 1] as number;
  const b = rgba[i + 2] as number;
  return Math.max(0, 0.299 * r + 0.587 * g + 0.114 * b - CHROMA_AS_DARKNESS * (Math.max(r, g, b) - Math.min(r, g, b)));
}

/**
 * The paper is estimated on a grid of this many cells along the long side: each cell takes a
 * high percentile of its pixels (the paper, not the ink on it, and not the brightest speck).
 */
const PAPER_GRID_CELLS = 128;
const PAPER_PERCENTILE = 0.9;
/**
 * Cells covered by ink (a thick stroke, a dense word) are filled from paper up to this many cells
 * away by a grey-level closing (maximum, then minimum, over a square of 2·radius + 1 cells: about
 * 1/25 of the long side). The closing keeps a step between two papers (a sheet on a mount) where
 * it is, which a blur would smear into a band of false ink along the sheet's edge.
 */
const PAPER_CLOSING_RADIUS = 2;
/**
 * Paper is never darker than this share of the image's main paper level: a darker area wider than
 * the closing (a black frame, a solid label, a filled silhouette) is ink, not paper in shadow.
 */
const PAPER_FLOOR = 0.4;

/** The value below which `share` of a cell's `count` pixels lie, walking down from the top (paper is light). */
function percentileFromTop(histogram: Uint32Array, count: number, share: number): number {
  let seen = 0;
  const wanted = count * (1 - share);
  for (let value = histogram.length - 1; value > 0; value--) {
    seen += histogram[value] as number;
    if (seen > wanted) return value;
  }
  return 0;
}

/**
 * Maximum (sign 1) or minimum (sign −1) over a (2·radius + 1)² square of a grid, as a row pass
 * then a column pass. Cells without pixels hold −∞ for the maximum and +∞ for the minimum.
 */
export function squareFilter(grid: Float32Array, columns: number, rows: number, radius: number, sign: 1 | -1): Float32Array {
  const rowPass = new Float32Array(grid.length);
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < columns; x++) {
      let best = -Infinity;
      for (let xx = Math.max(0, x - radius); xx <= Math.min(columns - 1, x + radius); xx++) {
        const value = sign * (grid[y * columns + xx] as number);
        if (value > best) best = value;
      }
      rowPass[y * columns + x] = best;
    }
  }
  const out = new Float32Array(grid.length);
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < columns; x++) {
      let best = -Infinity;
      for (let yy = Math.max(0, y - radius); yy <= Math.min(rows - 1, y + radius); yy++) {
        const value = rowPass[yy * columns + x] as number;
        if (value > best) best = value;
      }
      out[y * columns + x] = sign * best;
    }
  }
  return out;
}

/** For each output position, the two grid cells around it and the weight of the second. */
function bilinearAxis(size: number, cellSize: number, cells: number): { low: Int32Array; high: Int32Array; fraction: Float32Array } {
  const low = new Int32Array(size);
  const high = new Int32Array(size);
  const fraction = new Float32Array(size);
  for (let o = 0; o < size; o++) {
    const position = Math.min(cells - 1, Math.max(0, (o + 0.5) / cellSize - 0.5));
    const base = Math.floor(position);
    low[o] = base;
    high[o] = Math.min(cells - 1, base + 1);
    fraction[o] = position - base;
  }
  return { low, high, fraction };
}

/** Luma relative to the local paper: flat-field correction. */
export interface NormalisedLuma {
  /** Per pixel, 0–255 with paper at 255; transparent pixels count as paper. One byte a pixel: line art is traced at up to 16 MP. */
  normalised: Uint8Array;
  /** Histogram of `normalised` over the opaque pixels. */
  histogram: Float64Array;
  /** The main paper level (raw luma): the median of the paper grid's cells, which are equal areas. */
  paperLevel: number;
  /** The paper estimate itself: raw luma per grid cell (at least PAPER_FLOOR × paperLevel). */
  paper: PaperGrid;
}

/** The paper's luma on a grid of cellSize × cellSize pixel cells. */
export interface PaperGrid {
  cells: Float32Array;
  columns: number;
  rows: number;
  cellSize: number;
}

/**
 * The paper's luma on a coarse grid (a high percentile per cell, then a closing), interpolated
 * bilinearly under every pixel, kept at least PAPER_FLOOR of the main level, and divided out.
 */
export function normaliseToPaper(rgba: Buffer, width: number, height: number, tone: InkTone = 'luma'): NormalisedLuma {
  const toneAt = tone === 'luma' ? lumaAt : colourToneAt;
  const cellSize = Math.max(1, Math.ceil(Math.max(width, height) / PAPER_GRID_CELLS));
  const columns = Math.ceil(width / cellSize);
  const rows = Math.ceil(height / cellSize);
  let grid: Float32Array = new Float32Array(columns * rows);
  const cellHistogram = new Uint32Array(256);
  for (let gy = 0; gy < rows; gy++) {
    const y0 = gy * cellSize;
    const y1 = Math.min(height, y0 + cellSize);
    for (let gx = 0; gx < columns; gx++) {
      const x0 = gx * cellSize;
      const x1 = Math.min(width, x0 + cellSize);
      let count = 0;
      for (let y = y0; y < y1; y++) {
        for (let p = y * width + x0, end = y * width + x1; p < end; p++) {
          if (!isOpaque(rgba, p)) continue;
          const bin = (toneAt(rgba, p) + 0.5) | 0;
          cellHistogram[bin] = (cellHistogram[bin] as number) + 1;
          count++;
        }
      }
      grid[gy * columns + gx] = count === 0 ? -Infinity : percentileFromTop(cellHistogram, count, PAPER_PERCENTILE);
      cellHistogram.fill(0);
    }
  }
  grid = squareFilter(grid, columns, rows, PAPER_CLOSING_RADIUS, 1);
  grid = squareFilter(grid, columns, rows, PAPER_CLOSING_RADIUS, -1);
  // Cells with no opaque pixel anywhere near (still infinite) hold no paper; their pixels are transparent.
  const known = grid.filter((value) => Number.isFinite(value)).sort();
  const paperLevel = Math.max(1, known[Math.floor(known.length / 2)] ?? 255);
  const floor = PAPER_FLOOR * paperLevel;
  const paper = new Float32Array(grid.length);
  for (let i = 0; i < grid.length; i++) {
    const cell = grid[i] as number;
    paper[i] = Math.max(floor, Number.isFinite(cell) ? cell : paperLevel);
    // Each cell as a factor from luma to normalised luma.
    grid[i] = 255 / (paper[i] as number);
  }

  const normalised = new Uint8Array(width * height);
  const histogram = new Float64Array(256);
  const xs = bilinearAxis(width, cellSize, columns);
  const ys = bilinearAxis(height, cellSize, rows);
  const row = new Float32Array(columns);
  for (let y = 0; y < height; y++) {
    const row0 = (ys.low[y] as number) * columns;
    const row1 = (ys.high[y] as number) * columns;
    const fy = ys.fraction[y] as number;
    for (let x = 0; x < columns; x++) row[x] = (grid[row0 + x] as number) * (1 - fy) + (grid[row1 + x] as number) * fy;
    for (let x = 0, p = y * width; x < width; x++, p++) {
      if (!isOpaque(rgba, p)) {
        normalised[p] = 255;
        continue;
      }
      const fx = xs.fraction[x] as number;
      const factor = (row[xs.low[x] as number] as number) * (1 - fx) + (row[xs.high[x] as number] as number) * fx;
      const value = Math.min(255, (toneAt(rgba, p) * factor + 0.5) | 0);
      normalised[p] = value;
      histogram[value] = (histogram[value] as number) + 1;
    }
  }
  return { normalised, histogram, paperLevel, paper: { cells: paper, columns, rows, cellSize } };
}

/**
 * Otsu's threshold over a 256-bin histogram: the cut (bin + 0.5) that maximises the between-class
 * variance. Where a range of cuts ties (no pixels between two levels, as in a 1-bit scan), the
 * middle of the range: the first cut would put the threshold against the dark level, and an
 * upscaled plane thresholded there loses a pixel of every stroke.
 */
export function otsuOfHistogram(histogram: ArrayLike<number>): number {
  let total = 0;
  let sum = 0;
  for (let t = 0; t < 256; t++) {
    total += histogram[t] as number;
    sum += t * (histogram[t] as number);
  }
  if (total === 0) return 128;
  let backgroundWeight = 0;
  let backgroundSum = 0;
  let bestFirst = 127;
  let bestLast = 127;
  let bestVariance = -1;
  for (let t = 0; t < 256; t++) {
    backgroundWeight += histogram[t] as number;
    if (backgroundWeight === 0) continue;
    const foregroundWeight = total - backgroundWeight;
    if (foregroundWeight === 0) break;
    backgroundSum += t * (histogram[t] as number);
    const meanDifference = backgroundSum / backgroundWeight - (sum - backgroundSum) / foregroundWeight;
    const variance = backgroundWeight * foregroundWeight * meanDifference * meanDifference;
    if (variance > bestVariance * (1 + 1e-12)) {
      bestVariance = variance;
      bestFirst = t;
      bestLast = t;
    } else if (variance >= bestVariance * (1 - 1e-12) && bestLast === t - 1) {
      bestLast = t;
    }
  }
  return (bestFirst + bestLast) / 2 + 0.5;
}

/**
 * A second paper: a sheet lying on a mount or card of another tone, both much larger than the
 * ink. It is painted as a shape of its own over the main paper (the background).
 */
export interface SecondPaper {
  colour: Rgb;
  /** Where it lies: black on white, RGBA, at PAPER_MASK_SCALE pixels per paper-grid cell. */
  mask: Buffer;
  maskWidth: number;
  maskHeight: number;
  /** Image pixels per mask pixel. */
  pixelsPerMaskPixel: number;
}

/** An image split into ink and paper. */
export interface InkSeparation {
  /** Luma relative to the local paper (normaliseToPaper), per pixel. */
  normalised: Uint8Array;
  /** Otsu's threshold on the normalised luma of the opaque pixels: below it is ink. */
  threshold: number;
  /** Mean normalised luma of the ink and of the paper pixels. */
  inkLevel: number;
  paperLevel: number;
  /** Standard deviation of the paper pixels' normalised luma: the paper's grain and noise. */
  paperSpread: number;
  /** The colours of ink and of the main paper: the mean of each side's core (see CORE_SHARE). */
  ink: Rgb;
  paper: Rgb;
  /** A second paper tone, when the paper has two (see PAPER_TONES). */
  secondPaper?: SecondPaper;
  /** The paper estimate's main level (raw luma): the paper where most of it lies. */
  mainPaperLuma: number;
}

/**
 * The colour of each side is the mean over the part of it farthest from the threshold, this share
 * of its pixels: ink pixels at a stroke's edge are part paper (and paper pixels beside a stroke
 * part ink), and a colour taken over them all comes out greyer than the ink or paper looks.
 */
const CORE_SHARE = 0.5;

/**
 * When the paper estimate has two tones. Otsu's split of the paper grid's cells must leave each
 * tone at least minShare of the cells, the darker at most maxRatio of the lighter's luma, and
 * explain at least minSeparation of the cells' variance (two flat levels, not a lighting
 * gradient, which spreads evenly: a uniform spread explains 0.75). Measured: the letter on its
 * mount 0.21 of the cells, ratio 0.63, separation 0.87; lighting gradients and stained paper in
 * the test set ratio ≥ 0.77 and separation ≤ 0.72.
 */
const PAPER_TONES = { minShare: 0.1, maxRatio: 0.72, minSeparation: 0.8 } as const;
/** Mask pixels per paper-grid cell: the second paper's outline is traced from the grid, smoothed. */
const PAPER_MASK_SCALE = 4;

/** Otsu's split of the paper grid, when it has two tones by PAPER_TONES; the threshold in raw luma. */
function paperToneSplit(cells: Float32Array): { threshold: number; secondIsDarker: boolean } | undefined {
  const histogram = new Float64Array(256);
  for (const cell of cells) histogram[Math.min(255, Math.round(cell))] = (histogram[Math.min(255, Math.round(cell))] as number) + 1;
  const threshold = otsuOfHistogram(histogram);
  let darkCount = 0;
  let darkSum = 0;
  let lightSum = 0;
  let sum = 0;
  let squares = 0;
  for (const cell of cells) {
    sum += cell;
    squares += cell * cell;
    if (cell < threshold) {
      darkCount++;
      darkSum += cell;
    } else {
      lightSum += cell;
    }
  }
  const total = cells.length;
  const lightCount = total - darkCount;
  if (Math.min(darkCount, lightCount) < PAPER_TONES.minShare * total) return undefined;
  const dark = darkSum / darkCount;
  const light = lightSum / lightCount;
  const variance = squares / total - (sum / total) ** 2;
  const between = (darkCount / total) * (lightCount / total) * (light - dark) ** 2;
  if (dark > PAPER_TONES.maxRatio * light || variance <= 0 || between / variance < PAPER_TONES.minSeparation) return undefined;
  // The tone covering fewer cells is the second paper, painted over the main one.
  return { threshold, secondIsDarker: darkCount < lightCount };
}

/** The second paper's region, from the paper grid interpolated bilinearly: black inside. */
function secondPaperMask(grid: PaperGrid, split: { threshold: number; secondIsDarker: boolean }): { mask: Buffer; width: number; height: number } {
  const width = grid.columns * PAPER_MASK_SCALE;
  const height = grid.rows * PAPER_MASK_SCALE;
  const xs = bilinearAxis(width, PAPER_MASK_SCALE, grid.columns);
  const ys = bilinearAxis(height, PAPER_MASK_SCALE, grid.rows);
  const mask = Buffer.alloc(width * height * 4, 255);
  for (let y = 0; y < height; y++) {
    const row0 = (ys.low[y] as number) * grid.columns;
    const row1 = (ys.high[y] as number) * grid.columns;
    const fy = ys.fraction[y] as number;
    for (let x = 0; x < width; x++) {
      const x0 = xs.low[x] as number;
      const x1 = xs.high[x] as number;
      const fx = xs.fraction[x] as number;
      const top = (grid.cells[row0 + x0] as number) * (1 - fx) + (grid.cells[row0 + x1] as number) * fx;
      const bottom = (grid.cells[row1 + x0] as number) * (1 - fx) + (grid.cells[row1 + x1] as number) * fx;
      const paper = top * (1 - fy) + bottom * fy;
      if (paper < split.threshold === split.secondIsDarker) mask.fill(0, (y * width + x) * 4, (y * width + x) * 4 + 3);
    }
  }
  return { mask, width, height };
}

export function separateInk(rgba: Buffer, width: number, height: number, tone: InkTone = 'luma'): InkSeparation {
  const { normalised, histogram, paperLevel: mainPaperLuma, paper: grid } = normaliseToPaper(rgba, width, height, tone);
  const threshold = otsuOfHistogram(histogram);
  let inkCount = 0;
  let paperCount = 0;
  let inkSum = 0;
  let paperSum = 0;
  let paperSquares = 0;
  for (let t = 0; t < 256; t++) {
    const count = histogram[t] as number;
    if (t < threshold) {
      inkCount += count;
      inkSum += t * count;
    } else {
      paperCount += count;
      paperSum += t * count;
      paperSquares += t * t * count;
    }
  }
  const split = paperToneSplit(grid.cells);
  // The cores: the darkest CORE_SHARE of the ink pixels, the lightest CORE_SHARE of the paper pixels.
  const inkCoreBelow = Math.min(threshold, binAtShare(histogram, 0, inkCount * CORE_SHARE, 1) + 0.5);
  const paperCoreAbove = Math.max(threshold, binAtShare(histogram, 255, paperCount * CORE_SHARE, -1) - 0.5);
  const ink = new ColourMean();
  const papers = [new ColourMean(), new ColourMean()] as const;
  for (let y = 0, p = 0; y < height; y++) {
    const cellRow = ((y / grid.cellSize) | 0) * grid.columns;
    for (let x = 0; x < width; x++, p++) {
      if (!isOpaque(rgba, p)) continue;
      const value = normalised[p] as number;
      if (value < inkCoreBelow) ink.add(rgba, p * 4);
      else if (value >= paperCoreAbove) {
        // Which paper this pixel lies on, by the cell it is in.
        const second = split !== undefined && ((grid.cells[cellRow + ((x / grid.cellSize) | 0)] as number) < split.threshold) === split.secondIsDarker;
        papers[second ? 1 : 0].add(rgba, p * 4);
      }
    }
  }
  let secondPaper: SecondPaper | undefined;
  if (split && papers[1].count > 0) {
    const { mask, width: maskWidth, height: maskHeight } = secondPaperMask(grid, split);
    secondPaper = { colour: papers[1].mean(255), mask, maskWidth, maskHeight, pixelsPerMaskPixel: grid.cellSize / PAPER_MASK_SCALE };
  }
  return {
    normalised,
    threshold,
    inkLevel: inkCount ? inkSum / inkCount : 0,
    paperLevel: paperCount ? paperSum / paperCount : 255,
    paperSpread: paperCount ? Math.sqrt(Math.max(0, paperSquares / paperCount - (paperSum / paperCount) ** 2)) : 0,
    ink: ink.mean(0),
    paper: papers[0].mean(255),
    secondPaper,
    mainPaperLuma,
  };
}

/** A running mean colour over RGBA pixels. */
class ColourMean {
  count = 0;
  private r = 0;
  private g = 0;
  private b = 0;

  add(rgba: Buffer, i: number): void {
    this.count++;
    this.r += rgba[i] as number;
    this.g += rgba[i + 1] as number;
    this.b += rgba[i + 2] as number;
  }

  /** The mean, or grey at `fallback` when nothing was added. */
  mean(fallback: number): Rgb {
    if (this.count === 0) return { r: fallback, g: fallback, b: fallback };
    return { r: this.r / this.count, g: this.g / this.count, b: this.b / this.count };
  }
}

/** The bin at which `wanted` pixels have been passed, walking from `start` in `step` direction. */
function binAtShare(histogram: Float64Array, start: number, wanted: number, step: 1 | -1): number {
  let seen = 0;
  for (let t = start; t >= 0 && t < 256; t += step) {
    seen += histogram[t] as number;
    if (seen >= wanted) return t;
  }
  return start + 255 * step;
}

/**
 * The ink as the binary tracer wants it: ink black, paper (and transparency) white, opaque. With
 * an integer `factor` > 1 the plane is upscaled bilinearly while thresholding, so the threshold crosses
 * between source pixels and stroke edges land on sub-pixels: thin strokes keep their weight.
 * One pass over the output, much cheaper than resampling RGBA first (the output is up to 16
 * times the source).
 */
export function binariseInk(normalised: Uint8Array, width: number, height: number, factor: number, threshold: number): Buffer {
  const outWidth = width * factor;
  const outHeight = height * factor;
  const out = Buffer.alloc(outWidth * outHeight * 4);
  const pixels = new Uint32Array(out.buffer, out.byteOffset, outWidth * outHeight);
  // RGBA bytes read as a little-endian 32-bit word.
  const black = 0xff000000;
  const white = 0xffffffff;
  if (factor === 1) {
    for (let p = 0; p < pixels.length; p++) pixels[p] = (normalised[p] as number) < threshold ? black : white;
    return out;
  }
  const xs = bilinearAxis(outWidth, factor, width);
  const ys = bilinearAxis(outHeight, factor, height);
  for (let y = 0; y < outHeight; y++) {
    const row0 = (ys.low[y] as number) * width;
    const row1 = (ys.high[y] as number) * width;
    const fy = ys.fraction[y] as number;
    const rowOut = y * outWidth;
    for (let x = 0; x < outWidth; x++) {
      const x0 = xs.low[x] as number;
      const x1 = xs.high[x] as number;
      const fx = xs.fraction[x] as number;
      const top = (normalised[row0 + x0] as number) * (1 - fx) + (normalised[row0 + x1] as number) * fx;
      const bottom = (normalised[row1 + x0] as number) * (1 - fx) + (normalised[row1 + x1] as number) * fx;
      pixels[rowOut + x] = top * (1 - fy) + bottom * fy < threshold ? black : white;
    }
  }
  return out;
}

/**
 * A thin line is darker than both its neighbours across it by this many times the paper's spread
 * (the standard deviation of the paper side's normalised luma: grain, noise, and any grey shading
 * that fell on the paper side, which makes the gate stricter, never looser)...
 */
const THIN_LINE_CONTRAST_SPREADS = 2;
/**
 * ... and by at least this share of the way from paper to ink (a faint ruled line still counts).
 * On the corpus's line art upscaled (the flower, the etching, the handwriting, the 1912 letter and
 * a comic halved) 0.15 and 0.25 both beat no darkening, 0.15 by most. As adopted (lone lines only),
 * SSIM at 1×: flower 0.858 → 0.870, letter halved 0.848 → 0.872, comic halved 0.784 → 0.811.
 */
const THIN_LINE_MIN_COVERAGE = 0.15;
/** Opposite neighbours of a pixel: across a vertical, a horizontal and the two diagonal lines. */
const ACROSS: readonly (readonly [number, number])[] = [
  [1, 0],
  [0, 1],
  [1, 1],
  [1, -1],
];

/**
 * Lines thinner than a pixel, kept at their weight when the ink is upscaled while thresholding.
 * Bilinear interpolation spreads a line covering a share c of one pixel into a tent of peak c
 * and half-width one pixel; a threshold at darkness t keeps 2(1 − t/c) pixels of it, nothing when
 * c < t: a line a person sees (half a pixel of ink, a faint rule) vanishes, and one of c = 0.6
 * keeps a third of a pixel. Each pixel darker than its two neighbours across some direction (a
 * ridge, one pixel wide or two, as a line straddling two pixels is) whose darkness stands clear
 * of the paper's grain on both sides, with paper again beyond them (a lone line, not hatching),
 * gets the peak that keeps its coverage: t / (1 − c / 2), c being the darkness summed across it. Edges of wide strokes and of grey areas are no ridge, and
 * their width was right already.
 * Returns a changed copy; unchanged when nothing is thin.
 */
export function darkenThinLines(separation: InkSeparation, width: number, height: number): Uint8Array {
  const { normalised, threshold, inkLevel, paperLevel, paperSpread } = separation;
  const range = paperLevel - inkLevel;
  if (range <= 0) return normalised;
  const minContrast = Math.max(THIN_LINE_CONTRAST_SPREADS * paperSpread, THIN_LINE_MIN_COVERAGE * range);
  const cut = (paperLevel - threshold) / range;
  const darkness = (value: number): number => Math.min(1, Math.max(0, (paperLevel - value) / range));
  const out = Uint8Array.from(normalised);
  for (let y = 3; y < height - 3; y++) {
    for (let x = 3, p = y * width + 3; x < width - 3; x++, p++) {
      const value = normalised[p] as number;
      if (value >= paperLevel - minContrast) continue;
      let coverage = 0;
      for (const [dx, dy] of ACROSS) {
        const step = dy * width + dx;
        const a = normalised[p - step] as number;
        const b = normalised[p + step] as number;
        if (!(value < a && value <= b)) continue;
        const wide = b - value < minContrast;
        // One pixel wide, or two (a line straddling them; the darker one is darkened): clear of both
        // sides by the grain's margin, and alone: paper again a pixel further on each side, where
        // hatching or a halftone would have its next line (darkened, those turn into squiggles).
        const beyond = normalised[p + (wide ? 2 : 1) * step] as number;
        const farBefore = normalised[p - 2 * step] as number;
        const farAfter = normalised[p + (wide ? 3 : 2) * step] as number;
        const edge = wide ? b : value;
        if (a - value < minContrast || beyond - edge < minContrast) continue;
        if (Math.min(farBefore, farAfter) < paperLevel - minContrast) continue;
        const across = darkness(value) + darkness(a) + darkness(beyond) + (wide ? darkness(b) : 0);
        coverage = Math.max(coverage, Math.min(1, across));
      }
      if (coverage === 0) continue;
      const peak = Math.min(1, cut / (1 - coverage / 2));
      if (peak > darkness(value)) out[p] = Math.max(0, Math.round(paperLevel - peak * range));
    }
  }
  return out;
}

/**
 * Hatching and lines a pixel or two apart, as engravings and etchings are drawn, blend in a scan
 * into greys that one threshold cannot split: it turns light hatching into paper and dense
 * hatching into solid black blotches, and breaks faint lone lines (a ship's rigging, distant
 * shapes) into dashes. So each level is first pushed away from its neighbourhood's mean (an unsharp
 * mask of HATCHING_SIGMA pixels, HATCHING_AMOUNT times the difference): a line gets darker than the
 * gaps beside it, a gap lighter. An edge keeps its place (the mask crosses the middle level where
 * the edge did), wide strokes and flat paper stay as they were, and a 1-bit scan is unchanged.
 * Measured on the ink of the corpus and the tune part and on FreeCol's and LilyPond's scans
 * (docs/decisions.md): at full resolution the corpus etching 0.676 → 0.773 SSIM, every other ink
 * image within 0.005 or better.
 */
const HATCHING_SIGMA = 0.8;
const HATCHING_AMOUNT = 1.2;

/**
 * Normalised levels (paper at 255) with the local contrast of hatching raised (HATCHING_SIGMA),
 * and Otsu's threshold on them. The threshold is taken on the levels it cuts: on the levels before
 * the mask, it moved with whatever else the page holds (a white margin round an etching put it at
 * 147 instead of 120, and the masked hatching came out a third darker).
 */
export async function sharpenHatching(levels: Uint8Array, rgba: Buffer, width: number, height: number): Promise<{ levels: Uint8Array; threshold: number }> {
  const mean = await sharp(Buffer.from(levels.buffer, levels.byteOffset, levels.length), { raw: { width, height, channels: 1 } })
    .blur(HATCHING_SIGMA)
    .toColourspace('b-w')
    .raw()
    .toBuffer();
  const sharpened = new Uint8Array(levels.length);
  const histogram = new Float64Array(256);
  for (let p = 0; p < levels.length; p++) {
    const value = levels[p] as number;
    const pushed = value + HATCHING_AMOUNT * (value - (mean[p] as number));
    const level = pushed <= 0 ? 0 : pushed >= 255 ? 255 : Math.round(pushed);
    sharpened[p] = level;
    if (isOpaque(rgba, p)) histogram[level] = (histogram[level] as number) + 1;
  }
  return { levels: sharpened, threshold: otsuOfHistogram(histogram) };
}

/** How well an opaque image is explained as ink on paper; see classify.ts for the rule. */
export interface InkStats {
  /** The main paper level (raw luma, 0–255): paper is light. */
  paperLuma: number;
  /** Paper minus ink, in normalised luma (0–255): two real tones, not one tone and noise. */
  contrast: number;
  /**
   * Share of pixels farther than OFF_LINE_DISTANCE (RGB) from the line through the ink and the
   * paper colour: ink, paper and their mixtures (anti-aliasing, blur, light and stains on the
   * paper, yellowing) lie near that line, whatever the tint; other colours do not.
   */
  offLineShare: number;
  /**
   * Share of pixels off that line (as offLineShare) in a strongly saturated colour (max − min
   * channel at least SATURATED_CHROMA): a coloured symbol or fill of artwork, where yellowing,
   * stains and light falling off stay pale.
   */
  saturatedOffLineShare: number;
  /**
   * Share of pixels that are mid-tones (between a quarter and three quarters of the way from ink
   * to paper) with no ink or paper pixel within CONTINUOUS_TONE_RADIUS: continuous tone, as in
   * photographs. Ink on paper has mid-tones only at the edges of strokes.
   */
  continuousToneShare: number;
}

export const OFF_LINE_DISTANCE = 24;
export const SATURATED_CHROMA = 80;
/**
 * The window radius for continuousToneShare, in pixels of the classifier's sample (at most
 * 0.4 MP). Calibrated on samples of 400 px and more on the long side: smaller greyscale
 * photographs have too few pixels of shading for it (see docs/parameters.md).
 */
export const CONTINUOUS_TONE_RADIUS = 3;

export function measureInk(rgba: Buffer, width: number, height: number): InkStats {
  const separation = separateInk(rgba, width, height);
  const { normalised, inkLevel, paperLevel, ink, paper } = separation;
  const contrast = paperLevel - inkLevel;
  const span = Math.max(1, contrast);
  // Ink (α < 0.15) and paper (α > 0.85) pixels counted in a summed-area table, for the windows.
  const stride = width + 1;
  const extremes = new Int32Array(stride * (height + 1));
  for (let y = 0; y < height; y++) {
    let rowCount = 0;
    for (let x = 0, p = y * width; x < width; x++, p++) {
      const alpha = ((normalised[p] as number) - inkLevel) / span;
      if (isOpaque(rgba, p) && (alpha < 0.15 || alpha > 0.85)) rowCount++;
      extremes[(y + 1) * stride + x + 1] = (extremes[y * stride + x + 1] as number) + rowCount;
    }
  }
  const axis = { r: paper.r - ink.r, g: paper.g - ink.g, b: paper.b - ink.b };
  const axisLength = Math.hypot(axis.r, axis.g, axis.b) || 1;
  const ur = axis.r / axisLength;
  const ug = axis.g / axisLength;
  const ub = axis.b / axisLength;
  let counted = 0;
  let offLine = 0;
  let saturatedOffLine = 0;
  let continuous = 0;
  const radius = CONTINUOUS_TONE_RADIUS;
  for (let y = 0; y < height; y++) {
    for (let x = 0, p = y * width; x < width; x++, p++) {
      if (!isOpaque(rgba, p)) continue;
      counted++;
      const i = p * 4;
      const dr = (rgba[i] as number) - ink.r;
      const dg = (rgba[i + 1] as number) - ink.g;
      const db = (rgba[i + 2] as number) - ink.b;
      const along = dr * ur + dg * ug + db * ub;
      const er = dr - along * ur;
      const eg = dg - along * ug;
      const eb = db - along * ub;
      if (er * er + eg * eg + eb * eb > OFF_LINE_DISTANCE * OFF_LINE_DISTANCE) {
        offLine++;
        const r = rgba[i] as number;
        const g = rgba[i + 1] as number;
        const b = rgba[i + 2] as number;
        if (Math.max(r, g, b) - Math.min(r, g, b) >= SATURATED_CHROMA) saturatedOffLine++;
      }
      const alpha = ((normalised[p] as number) - inkLevel) / span;
      if (alpha < 0.25 || alpha > 0.75) continue;
      const x0 = Math.max(0, x - radius);
      const x1 = Math.min(width, x + radius + 1);
      const y0 = Math.max(0, y - radius);
      const y1 = Math.min(height, y + radius + 1);
      const near = (extremes[y1 * stride + x1] as number) - (extremes[y0 * stride + x1] as number) - (extremes[y1 * stride + x0] as number) + (extremes[y0 * stride + x0] as number);
      if (near === 0) continuous++;
    }
  }
  return {
    paperLuma: separation.mainPaperLuma,
    contrast,
    offLineShare: offLine / Math.max(1, counted),
    saturatedOffLineShare: saturatedOffLine / Math.max(1, counted),
    continuousToneShare: continuous / Math.max(1, counted),
  };
}

/**
 * A pixel of coloured ink: at least `minDepth` below the paper in its darkest channel, and of a
 * clear colour (its channels at least `minChroma` apart). Paper's grain, stains and a tinted sheet
 * stay within the first; black and grey ink, and a scan's colour noise along it, within the second.
 */
const COLOURED_INK = { minDepth: 100, minChroma: 80 } as const;

/** The share of the opaque pixels that are coloured ink (COLOURED_INK) on paper of colour `paper`. */
export function colouredInkShare(rgba: Buffer, width: number, height: number, paper: Rgb): number {
  const paperDarkest = Math.min(paper.r, paper.g, paper.b);
  let opaque = 0;
  let coloured = 0;
  for (let p = 0, end = width * height; p < end; p++) {
    if (!isOpaque(rgba, p)) continue;
    opaque++;
    const i = p * 4;
    const r = rgba[i] as number;
    const g = rgba[i + 1] as number;
    const b = rgba[i + 2] as number;
    const darkest = Math.min(r, g, b);
    if (paperDarkest - darkest >= COLOURED_INK.minDepth && Math.max(r, g, b) - darkest >= COLOURED_INK.minChroma) coloured++;
  }
  return coloured / Math.max(1, opaque);
}
