// The paint of each region: a flat colour, or a linear or radial gradient when the region's
// colour changes smoothly across it. Each candidate is fitted to the region's own pixels and
// scored by its RMS error; a gradient must beat the flat colour clearly (GRADIENT_GAIN), so
// flat regions stay flat (a photograph's grainy shapes have a rule of their own, in
// paint/shading.ts). Gradients carry as many stops as their profile needs: the colour is
// sampled along the gradient's axis and the samples simplified to within STOP_TOLERANCE.

import { hypot, type GradientStop, type Paint, type Rgb } from '../geometry.ts';
import type { Segmentation } from '../segment/segment.ts';

/** What paints are fitted to: each pixel's region (−1 for none) and the premultiplied colours. */
export type PaintedRegions = Pick<Segmentation, 'width' | 'height' | 'labels' | 'count' | 'premultiplied'>;

/** A region's paint, and the opacity of the shape as a whole (gradients carry theirs in their stops). */
export interface RegionPaint {
  fill: Paint;
  opacity: number;
}

/** The least opacity anywhere in a region's paint. */
export function paintOpacity(paint: RegionPaint): number {
  if (paint.fill.kind === 'flat') return paint.opacity;
  return paint.opacity * Math.min(...paint.fill.stops.map((stop) => stop.opacity));
}

/** A premultiplied colour as a straight colour and an opacity. */
export function straightColour(colour: readonly number[]): { color: Rgb; opacity: number } {
  const alpha = Math.max(1e-6, colour[3] as number);
  // Whole 8-bit values, as every writer puts them: each format shows the same colour.
  const unpremultiply = (value: number) => Math.max(0, Math.min(255, Math.round((value * 255) / alpha)));
  return {
    color: { r: unpremultiply(colour[0] as number), g: unpremultiply(colour[1] as number), b: unpremultiply(colour[2] as number) },
    opacity: Math.max(0, Math.min(1, (colour[3] as number) / 255)),
  };
}

/** Channels of a sample: premultiplied red, green, blue and alpha. */
const CHANNELS = 4;

/** A region whose flat colour is within this RMS (per channel, 0–255) of its pixels stays flat. */
export const FLAT_TOLERANCE = 2.5;
/** A gradient replaces the flat colour only when its RMS error is at most this share of the flat one. */
export const GRADIENT_GAIN = 0.7;
/** A radial gradient replaces a linear one only when its RMS error is at most this share. */
const RADIAL_GAIN = 0.85;
/** Stops are dropped while the profile stays within this many levels (per channel) of the samples. */
const STOP_TOLERANCE = 2;
/**
 * A radial gradient is fitted to a ring only while its inner radius is at most this share of its
 * outer one. A ring once had to reach half way to its centre, and the glow round a planet on a
 * wallpaper (inner radius 0.8 of the outer) was painted flat: a band of one blue.
 */
const MAX_RING_RATIO = 0.95;
/** Regions smaller than this (pixels) are always flat: too few samples for a profile. */
const MIN_GRADIENT_PIXELS = 24;
const MAX_STOPS = 8;
/** The profile is sampled in at most this many bins per stop allowed (32 for MAX_STOPS). */
const BINS_PER_STOP = 4;

/**
 * When a region takes a gradient: its flat colour is farther than `flatTolerance` from its pixels,
 * the gradient's error is at most `gain` of the flat one's, and its stops differ by at least
 * `minRange` levels in some channel.
 */
export interface GradientRule {
  flatTolerance: number;
  gain: number;
  minRange: number;
  /** At most this many stops (MAX_STOPS unless given). */
  maxStops?: number;
  /** Linear gradients only. */
  linearOnly?: boolean;
}

/** Artwork's regions are clean: a gradient must explain clearly more than the flat colour. */
export const ARTWORK_GRADIENTS: GradientRule = { flatTolerance: FLAT_TOLERANCE, gain: GRADIENT_GAIN, minRange: 0 };

/** Whether a gradient's stops differ by at least `levels` in some channel (opacity counted in levels too). */
function spans(paint: Paint, levels: number): boolean {
  if (paint.kind === 'flat') return false;
  const channels = (stop: GradientStop): number[] => [stop.color.r, stop.color.g, stop.color.b, stop.opacity * 255];
  const values = paint.stops.map(channels);
  for (let c = 0; c < 4; c++) {
    const column = values.map((v) => v[c] as number);
    if (Math.max(...column) - Math.min(...column) >= levels) return true;
  }
  return false;
}

export interface RegionPixels {
  /** Pixel centres, x then y, in working pixels, of the pixels sampled for colour. */
  positions: Float64Array;
  /** Centres of all the region's pixels, edges included, so a gradient spans the whole shape. */
  outline: Float64Array;
  /** Premultiplied r, g, b, a per pixel. */
  colours: Float64Array;
  count: number;
}

/** Pixels of every region; pixels on a region's edge are left out when it has enough inside (they blend with the neighbour). */
export function collectPixels(segmentation: PaintedRegions): RegionPixels[] {
  const { width, height, labels, count, premultiplied: rgba } = segmentation;
  const interior = new Uint8Array(width * height);
  const interiorCount = new Int32Array(count);
  const total = new Int32Array(count);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const label = labels[i] as number;
      if (label < 0) continue;
      total[label] = (total[label] as number) + 1;
      const inside =
        (x === 0 || labels[i - 1] === label) &&
        (x + 1 === width || labels[i + 1] === label) &&
        (y === 0 || labels[i - width] === label) &&
        (y + 1 === height || labels[i + width] === label);
      if (inside) {
        interior[i] = 1;
        interiorCount[label] = (interiorCount[label] as number) + 1;
      }
    }
  }
  const useInterior = new Uint8Array(count);
  const sizes = new Int32Array(count);
  for (let label = 0; label < count; label++) {
    const inside = interiorCount[label] as number;
    useInterior[label] = inside >= MIN_GRADIENT_PIXELS && inside * 3 >= (total[label] as number) ? 1 : 0;
    sizes[label] = useInterior[label] ? inside : (total[label] as number);
  }
  const regions: RegionPixels[] = Array.from(sizes, (size, label) => ({
    positions: new Float64Array(size * 2),
    outline: new Float64Array((total[label] as number) * 2),
    colours: new Float64Array(size * CHANNELS),
    count: 0,
  }));
  const outlineCount = new Int32Array(count);
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i] as number;
    if (label < 0) continue;
    const region = regions[label] as RegionPixels;
    const o = (outlineCount[label] as number) * 2;
    outlineCount[label] = (outlineCount[label] as number) + 1;
    region.outline[o] = (i % width) + 0.5;
    region.outline[o + 1] = Math.floor(i / width) + 0.5;
    if (useInterior[label] && !interior[i]) continue;
    const k = region.count++;
    region.positions[k * 2] = (i % width) + 0.5;
    region.positions[k * 2 + 1] = Math.floor(i / width) + 0.5;
    for (let c = 0; c < CHANNELS; c++) region.colours[k * CHANNELS + c] = rgba[i * 4 + c] as number;
  }
  return regions;
}

/** The extent of a region along an axis, over all its pixels (edges included), so a gradient spans the whole shape. */
function fullExtent(pixels: RegionPixels, project: (x: number, y: number) => number): [number, number] {
  let low = Infinity;
  let high = -Infinity;
  for (let k = 0; k < pixels.outline.length; k += 2) {
    const t = project(pixels.outline[k] as number, pixels.outline[k + 1] as number);
    if (t < low) low = t;
    if (t > high) high = t;
  }
  return [low, high];
}

function meanColour(pixels: RegionPixels): number[] {
  const mean = new Array<number>(CHANNELS).fill(0);
  for (let k = 0; k < pixels.count; k++) for (let c = 0; c < CHANNELS; c++) mean[c] = (mean[c] as number) + (pixels.colours[k * CHANNELS + c] as number);
  return mean.map((sum) => sum / Math.max(1, pixels.count));
}

function rms(pixels: RegionPixels, predict: (k: number, out: number[]) => void): number {
  const out = new Array<number>(CHANNELS).fill(0);
  let total = 0;
  for (let k = 0; k < pixels.count; k++) {
    predict(k, out);
    for (let c = 0; c < CHANNELS; c++) total += ((pixels.colours[k * CHANNELS + c] as number) - (out[c] as number)) ** 2;
  }
  return Math.sqrt(total / Math.max(1, CHANNELS * pixels.count));
}

/** Solves a small dense system by Gaussian elimination with partial pivoting; null when singular. */
function solve(matrix: number[][], rhs: number[][]): number[][] | null {
  const n = matrix.length;
  const a = matrix.map((row, i) => [...row, ...(rhs[i] as number[])]);
  const width = (a[0] as number[]).length;
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let row = col + 1; row < n; row++) if (Math.abs((a[row] as number[])[col] as number) > Math.abs((a[pivot] as number[])[col] as number)) pivot = row;
    if (Math.abs((a[pivot] as number[])[col] as number) < 1e-9) return null;
    [a[col], a[pivot]] = [a[pivot] as number[], a[col] as number[]];
    const pivotRow = a[col] as number[];
    for (let row = 0; row < n; row++) {
      if (row === col) continue;
      const current = a[row] as number[];
      const factor = (current[col] as number) / (pivotRow[col] as number);
      if (factor === 0) continue;
      for (let k = col; k < width; k++) current[k] = (current[k] as number) - factor * (pivotRow[k] as number);
    }
  }
  return a.map((row, i) => row.slice(n).map((value) => value / (row[i] as number)));
}

/** Least squares of colour on `size` features of each pixel, written by `features` into its third argument (features include the constant). */
function leastSquares(pixels: RegionPixels, size: number, features: (x: number, y: number, out: Float64Array) => void): number[][] | null {
  const normal = new Float64Array(size * size);
  const rhs = new Float64Array(size * CHANNELS);
  const f = new Float64Array(size);
  for (let k = 0; k < pixels.count; k++) {
    features(pixels.positions[k * 2] as number, pixels.positions[k * 2 + 1] as number, f);
    for (let i = 0; i < size; i++) {
      const fi = f[i] as number;
      for (let j = 0; j < size; j++) normal[i * size + j] = (normal[i * size + j] as number) + fi * (f[j] as number);
      for (let c = 0; c < CHANNELS; c++) rhs[i * CHANNELS + c] = (rhs[i * CHANNELS + c] as number) + fi * (pixels.colours[k * CHANNELS + c] as number);
    }
  }
  return solve(
    Array.from({ length: size }, (_, i) => Array.from(normal.subarray(i * size, (i + 1) * size))),
    Array.from({ length: size }, (_, i) => Array.from(rhs.subarray(i * CHANNELS, (i + 1) * CHANNELS))),
  );
}

/** A point of a gradient's profile: position 0–1 and premultiplied colour. */
interface ProfilePoint {
  t: number;
  colour: number[];
}

interface Profile {
  points: ProfilePoint[];
  error: number;
}

/**
 * The colour along a parameter t (0 at `low`, 1 at `high`): samples averaged in bins, then as few
 * stops as keep the piecewise-linear profile within STOP_TOLERANCE of the samples.
 */
function profileAlong(pixels: RegionPixels, parameter: (x: number, y: number) => number, low: number, high: number, maxStops: number): Profile | null {
  const span = high - low;
  if (!(span > 1)) return null;
  const bins = Math.max(2, Math.min(maxStops * BINS_PER_STOP, Math.round(span / 1.5)));
  const sums = new Float64Array(bins * CHANNELS);
  const counts = new Float64Array(bins);
  const ts = new Float64Array(pixels.count);
  for (let k = 0; k < pixels.count; k++) {
    const t = Math.max(0, Math.min(1, (parameter(pixels.positions[k * 2] as number, pixels.positions[k * 2 + 1] as number) - low) / span));
    ts[k] = t;
    const bin = Math.min(bins - 1, Math.floor(t * bins));
    counts[bin] = (counts[bin] as number) + 1;
    for (let c = 0; c < CHANNELS; c++) sums[bin * CHANNELS + c] = (sums[bin * CHANNELS + c] as number) + (pixels.colours[k * CHANNELS + c] as number);
  }
  const samples: ProfilePoint[] = [];
  for (let bin = 0; bin < bins; bin++) {
    const n = counts[bin] as number;
    if (n === 0) continue;
    samples.push({ t: (bin + 0.5) / bins, colour: Array.from({ length: CHANNELS }, (_, c) => (sums[bin * CHANNELS + c] as number) / n) });
  }
  if (samples.length < 2) return null;
  // No stops at 0 and 1: before its first stop and after its last a gradient keeps their colours
  // (SVG, PDF and PostScript alike), which is what the pixels beyond the outermost samples show.
  const points = simplify(samples, STOP_TOLERANCE, maxStops);
  const error = rms(pixels, (k, out) => interpolate(points, ts[k] as number, out));
  return { points, error };
}

function interpolate(points: ProfilePoint[], t: number, out: number[]): void {
  let i = 0;
  while (i + 1 < points.length && (points[i + 1] as ProfilePoint).t < t) i++;
  const a = points[i] as ProfilePoint;
  const b = points[Math.min(points.length - 1, i + 1)] as ProfilePoint;
  const span = b.t - a.t;
  const f = span > 0 ? Math.max(0, Math.min(1, (t - a.t) / span)) : 0;
  for (let c = 0; c < CHANNELS; c++) out[c] = (a.colour[c] as number) + f * ((b.colour[c] as number) - (a.colour[c] as number));
}

/** Profile points as SVG stops: straight colour and opacity. */
function stopsOf(points: ProfilePoint[]): GradientStop[] {
  return points.map((point) => {
    const { color, opacity } = straightColour(point.colour);
    return { offset: point.t, color, opacity };
  });
}

/** Ramer–Douglas–Peucker over colour against t, at most `maxStops` points, always both ends. */
function simplify(points: ProfilePoint[], tolerance: number, maxStops: number): ProfilePoint[] {
  const kept = new Set([0, points.length - 1]);
  for (;;) {
    const sorted = [...kept].sort((a, b) => a - b);
    let worst = -1;
    let worstError = tolerance;
    for (let s = 0; s + 1 < sorted.length; s++) {
      const from = points[sorted[s] as number] as ProfilePoint;
      const to = points[sorted[s + 1] as number] as ProfilePoint;
      for (let k = (sorted[s] as number) + 1; k < (sorted[s + 1] as number); k++) {
        const point = points[k] as ProfilePoint;
        const f = to.t > from.t ? (point.t - from.t) / (to.t - from.t) : 0;
        let error = 0;
        for (let c = 0; c < CHANNELS; c++) {
          const expected = (from.colour[c] as number) + f * ((to.colour[c] as number) - (from.colour[c] as number));
          error = Math.max(error, Math.abs((point.colour[c] as number) - expected));
        }
        if (error > worstError) {
          worstError = error;
          worst = k;
        }
      }
    }
    if (worst < 0 || kept.size >= maxStops) break;
    kept.add(worst);
  }
  return [...kept].sort((a, b) => a - b).map((k) => points[k] as ProfilePoint);
}

type Candidate = { paint: Paint; error: number };

function linearCandidate(pixels: RegionPixels, factor: number, maxStops: number): Candidate | null {
  const plane = leastSquares(pixels, 3, (x, y, out) => {
    out[0] = 1;
    out[1] = x;
    out[2] = y;
  });
  if (!plane) return null;
  // The axis along which colour changes most: the main eigenvector of Σ over channels of g gᵀ.
  let xx = 0;
  let xy = 0;
  let yy = 0;
  for (let c = 0; c < CHANNELS; c++) {
    const gx = (plane[1] as number[])[c] as number;
    const gy = (plane[2] as number[])[c] as number;
    xx += gx * gx;
    xy += gx * gy;
    yy += gy * gy;
  }
  const angle = 0.5 * Math.atan2(2 * xy, xx - yy);
  const dx = Math.cos(angle);
  const dy = Math.sin(angle);
  const project = (x: number, y: number) => x * dx + y * dy;
  const [low, high] = fullExtent(pixels, project);
  const profile = profileAlong(pixels, project, low, high, maxStops);
  if (!profile) return null;
  // The axis through the region's centroid, from the low end to the high end.
  let cx = 0;
  let cy = 0;
  for (let k = 0; k < pixels.count; k++) {
    cx += pixels.positions[k * 2] as number;
    cy += pixels.positions[k * 2 + 1] as number;
  }
  cx /= pixels.count;
  cy /= pixels.count;
  const along = project(cx, cy);
  const x1 = cx + (low - along) * dx;
  const y1 = cy + (low - along) * dy;
  const x2 = cx + (high - along) * dx;
  const y2 = cy + (high - along) * dy;
  return {
    paint: { kind: 'linear', x1: x1 * factor, y1: y1 * factor, x2: x2 * factor, y2: y2 * factor, stops: stopsOf(profile.points) },
    error: profile.error,
  };
}

function radialCandidate(pixels: RegionPixels, factor: number, maxStops: number): Candidate | null {
  // colour = a + b x + c y + e (x² + y²): a paraboloid whose apex is the centre.
  let ox = 0;
  let oy = 0;
  for (let k = 0; k < pixels.count; k++) {
    ox += pixels.positions[k * 2] as number;
    oy += pixels.positions[k * 2 + 1] as number;
  }
  ox /= pixels.count;
  oy /= pixels.count;
  const fit = leastSquares(pixels, 4, (x, y, out) => {
    out[0] = 1;
    out[1] = x - ox;
    out[2] = y - oy;
    out[3] = (x - ox) ** 2 + (y - oy) ** 2;
  });
  if (!fit) return null;
  let weight = 0;
  let centreX = 0;
  let centreY = 0;
  for (let c = 0; c < CHANNELS; c++) {
    const e = (fit[3] as number[])[c] as number;
    if (Math.abs(e) < 1e-6) continue;
    const w = e * e;
    centreX += w * (ox - ((fit[1] as number[])[c] as number) / (2 * e));
    centreY += w * (oy - ((fit[2] as number[])[c] as number) / (2 * e));
    weight += w;
  }
  if (weight === 0) return null;
  centreX /= weight;
  centreY /= weight;
  const distance = (x: number, y: number) => hypot(x - centreX, y - centreY);
  const [near, far] = fullExtent(pixels, distance);
  // A ring round a centre outside the shape (a glow round a planet) is radial too. Only a centre so
  // far off that the ring is nearly a line is left to the linear candidate: there the stops would
  // crowd into the last few hundredths of the radius.
  if (near > far * MAX_RING_RATIO) return null;
  // Sampled over the radii the shape covers, so a ring gets as many samples across it as a disc.
  const profile = profileAlong(pixels, distance, near, far, maxStops);
  if (!profile) return null;
  const fromCentre = profile.points.map((point) => ({ ...point, t: (near + point.t * (far - near)) / far }));
  return {
    paint: { kind: 'radial', cx: centreX * factor, cy: centreY * factor, r: far * factor, stops: stopsOf(fromCentre) },
    error: profile.error,
  };
}

/**
 * A sample of at most `most` pixels of several regions as one, each region's share of it in
 * proportion to its `weight` (the number of pixels it stands for), evenly spaced in its own.
 */
export function samplePixels(parts: readonly { pixels: RegionPixels; weight: number }[], most: number): RegionPixels {
  const total = parts.reduce((sum, part) => sum + part.weight, 0);
  const takes = parts.map((part) => Math.min(part.pixels.count, Math.max(1, Math.round((most * part.weight) / Math.max(1, total)))));
  const count = takes.reduce((sum, take) => sum + take, 0);
  const outlineTakes = parts.map((part, index) => Math.min(part.pixels.outline.length / 2, Math.max(1, Math.round(((takes[index] as number) * part.pixels.outline.length) / 2 / Math.max(1, part.pixels.count)))));
  const sample: RegionPixels = {
    positions: new Float64Array(count * 2),
    outline: new Float64Array(outlineTakes.reduce((sum, take) => sum + take, 0) * 2),
    colours: new Float64Array(count * CHANNELS),
    count,
  };
  let at = 0;
  let outlineAt = 0;
  parts.forEach(({ pixels }, index) => {
    const take = takes[index] as number;
    for (let n = 0; n < take; n++) {
      const k = Math.floor((n * pixels.count) / take);
      sample.positions[at * 2] = pixels.positions[k * 2] as number;
      sample.positions[at * 2 + 1] = pixels.positions[k * 2 + 1] as number;
      for (let c = 0; c < CHANNELS; c++) sample.colours[at * CHANNELS + c] = pixels.colours[k * CHANNELS + c] as number;
      at++;
    }
    const outlineCount = pixels.outline.length / 2;
    const outlineTake = outlineTakes[index] as number;
    for (let n = 0; n < outlineTake; n++) {
      const k = Math.floor((n * outlineCount) / outlineTake);
      sample.outline[outlineAt * 2] = pixels.outline[k * 2] as number;
      sample.outline[outlineAt * 2 + 1] = pixels.outline[k * 2 + 1] as number;
      outlineAt++;
    }
  });
  return sample;
}

/** The colours (premultiplied r, g, b, a per point) of a paint, in the coordinates of the grid traced, at points `factor` times `positions`. */
export function paintColours(paint: Paint, positions: Float64Array, count: number, factor: number): Float64Array {
  const colours = new Float64Array(count * CHANNELS);
  const put = (k: number, r: number, g: number, b: number, alpha: number): void => {
    colours[k * CHANNELS] = r * alpha;
    colours[k * CHANNELS + 1] = g * alpha;
    colours[k * CHANNELS + 2] = b * alpha;
    colours[k * CHANNELS + 3] = alpha * 255;
  };
  for (let k = 0; k < count; k++) {
    if (paint.kind === 'flat') {
      put(k, paint.color.r, paint.color.g, paint.color.b, 1);
      continue;
    }
    const x = (positions[k * 2] as number) * factor;
    const y = (positions[k * 2 + 1] as number) * factor;
    let t: number;
    if (paint.kind === 'linear') {
      const dx = paint.x2 - paint.x1;
      const dy = paint.y2 - paint.y1;
      t = ((x - paint.x1) * dx + (y - paint.y1) * dy) / Math.max(1e-9, dx * dx + dy * dy);
    } else {
      t = hypot(x - paint.cx, y - paint.cy) / Math.max(1e-9, paint.r);
    }
    // Before its first stop and after its last a gradient keeps their colours.
    const stops = paint.stops;
    let i = 0;
    while (i + 1 < stops.length && (stops[i + 1] as GradientStop).offset <= t) i++;
    const a = stops[i] as GradientStop;
    const z = stops[Math.min(i + 1, stops.length - 1)] as GradientStop;
    const w = t <= a.offset || z.offset <= a.offset ? 0 : Math.min(1, (t - a.offset) / (z.offset - a.offset));
    put(k, a.color.r + w * (z.color.r - a.color.r), a.color.g + w * (z.color.g - a.color.g), a.color.b + w * (z.color.b - a.color.b), a.opacity + w * (z.opacity - a.opacity));
  }
  return colours;
}

/** The RMS difference (per channel, 0–255) between two paints at `positions` (x then y, `factor` times them in the paints' coordinates). */
export function paintDifference(a: Paint, b: Paint, positions: Float64Array, factor: number): number {
  const count = positions.length / 2;
  const theirs = paintColours(b, positions, count, factor);
  return paintError(a, { positions, outline: positions, colours: theirs, count }, factor);
}

/** The RMS difference (per channel, 0–255) between a paint and the colours of `pixels`, the paint in the coordinates of the grid traced (`factor` times the pixels'). */
export function paintError(paint: Paint, pixels: RegionPixels, factor: number): number {
  const predicted = paintColours(paint, pixels.positions, pixels.count, factor);
  return rms(pixels, (k, out) => {
    for (let c = 0; c < CHANNELS; c++) out[c] = predicted[k * CHANNELS + c] as number;
  });
}

/** A region's paint and its RMS error per channel (0–255) on the region's pixels. */
export interface FittedPaint {
  paint: RegionPaint;
  error: number;
}

/** The paint of one region's pixels under `rule`, in the coordinates of the grid traced (`factor` times the working size). */
export function fitRegion(pixels: RegionPixels, factor: number, rule: GradientRule = ARTWORK_GRADIENTS): FittedPaint {
  const mean = meanColour(pixels);
  const { color, opacity } = straightColour(mean);
  const flatPaint: RegionPaint = { fill: { kind: 'flat', color }, opacity };
  if (pixels.count < MIN_GRADIENT_PIXELS) return { paint: flatPaint, error: Number.POSITIVE_INFINITY };
  const flatError = rms(pixels, (_k, out) => mean.forEach((value, c) => (out[c] = value)));
  if (flatError <= rule.flatTolerance) return { paint: flatPaint, error: flatError };
  const linear = linearCandidate(pixels, factor, rule.maxStops ?? MAX_STOPS);
  const radial = rule.linearOnly ? null : radialCandidate(pixels, factor, rule.maxStops ?? MAX_STOPS);
  let best: Candidate | null = linear;
  if (radial && (!best || radial.error <= best.error * RADIAL_GAIN)) best = radial;
  if (!best || best.error > flatError * rule.gain || !spans(best.paint, rule.minRange)) return { paint: flatPaint, error: flatError };
  return { paint: { fill: best.paint, opacity: 1 }, error: best.error };
}

/**
 * Paints for every region of the segmentation, in the coordinates of the grid traced
 * (`factor` times the working size).
 */
export function fitPaints(segmentation: PaintedRegions, factor: number, rule: GradientRule = ARTWORK_GRADIENTS): RegionPaint[] {
  return collectPixels(segmentation).map((pixels) => fitRegion(pixels, factor, rule).paint);
}
