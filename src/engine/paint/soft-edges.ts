// Soft edges: a shadow or a glow fades out over several pixels, and one flat translucent region
// draws it as a band with a hard edge (a dark ring round a tile, a fat smear round a line). Where
// a layer of translucent regions' alpha is explained much better by a blurred shape (the way the
// artist drew it: a shape under a Gaussian blur), the layer is drawn that way, and the SVG carries
// the blur as a filter. The fit sees alpha alone; the self-check (convert.ts) then compares the
// result with the flat regions' and keeps the better.

import type { Rgb } from '../geometry.ts';
import { disjointSets, find, union } from '../segment/components.ts';

/** Blur widths tried (standard deviation, segmented-grid pixels); an anti-aliased edge alone is about 0.4. */
const SIGMAS = [0.75, 1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6] as const;
/** ... the coarse ones first; then those between the best coarse width's neighbours. */
const COARSE_SIGMAS = [0.75, 1.5, 3, 6] as const;
/** Where the blurred shape's edge is put: this share of the region's peak alpha. */
const THRESHOLDS = [0.35, 0.5, 0.65] as const;
/**
 * The blurred model must leave at most this share of the flat region's squared alpha error: a
 * clear win, so a translucent shape with a crisp edge (a glass highlight) stays crisp.
 */
const WIN_RATIO = 0.6;
/** Layers whose flat regions miss the alpha by less than this (summed squares: half a pixel's worth) are drawn well enough as they are. */
const MIN_FLAT_ERROR = 0.5;
/** Regions smaller than this (grid pixels) are specks and rims, not shadows. */
const MIN_PIXELS = 12;
/** Region boxes larger than this (grid pixels, margin included) are not fitted: the fit would cost too much. */
const MAX_BOX_PIXELS = 60_000;
/**
 * Layers are fitted while their boxes add up to at most this many grid pixels: each costs about
 * 3 ms per 1000 pixels (a 400 px picture of 16 tiles with soft shadows: 0.8 s for the fit, the
 * trace 0.7 s), and a picture of hundreds of translucent patches must not take seconds for it.
 */
const FIT_BUDGET_PIXELS = 400_000;
/** The alpha a region's fade reaches, read as this quantile of its pixels' alpha (a few bright rim pixels are not its level). */
const PEAK_QUANTILE = 0.9;

/**
 * Touching translucent regions this close in colour (sum of straight RGB differences, times the
 * more opaque one's mean alpha) are one layer: a shadow the segmentation cut into bands or halves is
 * one blurred shape.
 */
const LAYER_COLOUR = 12;

/** ... and so are translucent regions of one colour whose boxes come this near (grid pixels): the parts of a shadow an opaque shape in front cuts apart. */
const LAYER_GAP = 12;

/** Translucent regions drawn as one blurred shape. */
export interface SoftEdge {
  regions: number[];
  /** The regions' box on the segmented grid (exclusive ends). */
  box: { x0: number; y0: number; x1: number; y1: number };
  /** Blur standard deviation, segmented-grid pixels. */
  sigma: number;
  /** The shape: the region's pixels at least this opaque (0–1)... */
  threshold: number;
  /** ...and the opaque regions' pixels within this many grid pixels of the region (painted over, so the blur does not fade next to them). */
  reach: number;
  /** The shape's opacity before the blur. */
  opacity: number;
  color: Rgb;
}

interface Box {
  x0: number;
  y0: number;
  width: number;
  height: number;
}

/**
 * The translucent regions (`translucent[region]`) whose alpha in `premultiplied` (the segmented
 * grid's RGBA, premultiplied, true alpha) a blurred shape explains clearly better than the flat
 * region does, each with the blur that explains it best.
 */
export function fitSoftEdges(labels: Int32Array, width: number, height: number, premultiplied: Buffer, translucent: boolean[], opaque: boolean[]): SoftEdge[] {
  const layers = translucentLayers(labels, width, height, premultiplied, translucent);
  const margin = Math.ceil(3 * (SIGMAS[SIGMAS.length - 1] as number));
  const edges: SoftEdge[] = [];
  // The largest layers first, while the budget lasts: they show most.
  let budget = FIT_BUDGET_PIXELS;
  for (const layer of [...layers].sort((a, b) => b.count - a.count)) {
    if (layer.count < MIN_PIXELS) continue;
    const x0 = Math.max(0, layer.x0 - margin);
    const y0 = Math.max(0, layer.y0 - margin);
    const box = { x0, y0, width: Math.min(width, layer.x1 + margin) - x0, height: Math.min(height, layer.y1 + margin) - y0 };
    if (box.width * box.height > MAX_BOX_PIXELS) continue;
    budget -= box.width * box.height;
    if (budget < 0) break;
    const edge = fitLayer(layer, labels, width, premultiplied, box, opaque);
    if (edge) edges.push(edge);
  }
  return edges;
}

interface Layer {
  regions: number[];
  /** Whether each region is in the layer. */
  member: Uint8Array;
  count: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Touching translucent regions of one colour gathered into layers, each with its box. */
function translucentLayers(labels: Int32Array, width: number, height: number, premultiplied: Buffer, translucent: boolean[]): Layer[] {
  const count = translucent.length;
  const sums = new Float64Array(count * 4);
  const pixels = new Float64Array(count);
  labels.forEach((label, at) => {
    if (label < 0 || !translucent[label]) return;
    for (let c = 0; c < 4; c++) sums[label * 4 + c] = (sums[label * 4 + c] as number) + (premultiplied[at * 4 + c] as number);
    pixels[label] = (pixels[label] as number) + 1;
  });
  const straight = (region: number, c: number) => (sums[region * 4 + c] as number) / Math.max(1e-9, sums[region * 4 + 3] as number);
  const meanAlpha = (region: number) => (sums[region * 4 + 3] as number) / 255 / Math.max(1, pixels[region] as number);
  // The colour difference as seen: weighed by the alpha of the more opaque region (the bands of
  // a faint shadow differ in straight colour mostly by rounding, and show little of it; a faint
  // speck between two regions does not join them).
  const near = (a: number, b: number) => {
    let distance = 0;
    for (let c = 0; c < 3; c++) distance += Math.abs(straight(a, c) - straight(b, c));
    return distance * 255 * Math.max(meanAlpha(a), meanAlpha(b)) <= LAYER_COLOUR;
  };
  const parent = disjointSets(count);
  const join = (a: number, b: number) => {
    if (a !== b && a >= 0 && b >= 0 && translucent[a] && translucent[b] && find(parent, a) !== find(parent, b) && near(a, b)) union(parent, a, b);
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const label = labels[y * width + x] as number;
      if (x + 1 < width) join(label, labels[y * width + x + 1] as number);
      if (y + 1 < height) join(label, labels[(y + 1) * width + x] as number);
    }
  }
  // Parts of one shadow that an opaque shape in front cuts apart (a star's tip over its shadow) are one layer too.
  const boxes = new Int32Array(count * 4).fill(-1);
  labels.forEach((label, at) => {
    if (label < 0 || !translucent[label]) return;
    const x = at % width;
    const y = (at - x) / width;
    const b = label * 4;
    if (boxes[b] === -1) {
      boxes[b] = x;
      boxes[b + 1] = y;
      boxes[b + 2] = x + 1;
      boxes[b + 3] = y + 1;
    } else {
      if (x < (boxes[b] as number)) boxes[b] = x;
      if (x + 1 > (boxes[b + 2] as number)) boxes[b + 2] = x + 1;
      boxes[b + 3] = y + 1;
    }
  });
  const present = translucent.flatMap((isTranslucent, region) => (isTranslucent && boxes[region * 4] !== -1 ? [region] : []));
  for (const [index, a] of present.entries()) {
    for (const b of present.slice(index + 1)) {
      const gap = LAYER_GAP;
      const near = (boxes[a * 4] as number) < (boxes[b * 4 + 2] as number) + gap && (boxes[b * 4] as number) < (boxes[a * 4 + 2] as number) + gap &&
        (boxes[a * 4 + 1] as number) < (boxes[b * 4 + 3] as number) + gap && (boxes[b * 4 + 1] as number) < (boxes[a * 4 + 3] as number) + gap;
      if (near) join(a, b);
    }
  }
  const byRoot = new Map<number, Layer>();
  for (const region of present) {
    const root = find(parent, region);
    let layer = byRoot.get(root);
    if (!layer) {
      layer = { regions: [], member: new Uint8Array(count), count: 0, x0: width, y0: height, x1: 0, y1: 0 };
      byRoot.set(root, layer);
    }
    layer.member[region] = 1;
    layer.regions.push(region);
    layer.count += pixels[region] as number;
    layer.x0 = Math.min(layer.x0, boxes[region * 4] as number);
    layer.y0 = Math.min(layer.y0, boxes[region * 4 + 1] as number);
    layer.x1 = Math.max(layer.x1, boxes[region * 4 + 2] as number);
    layer.y1 = Math.max(layer.y1, boxes[region * 4 + 3] as number);
  }
  return [...byRoot.values()];
}

function fitLayer(layer: Layer, labels: Int32Array, width: number, premultiplied: Buffer, box: Box, opaque: boolean[]): SoftEdge | null {
  const size = box.width * box.height;
  const role = rolesIn(labels, width, box, layer.member, opaque);
  const alpha = new Float64Array(size);
  const regionAlphas: number[] = [];
  let red = 0;
  let green = 0;
  let blue = 0;
  for (let y = 0; y < box.height; y++) {
    for (let x = 0; x < box.width; x++) {
      const at = (box.y0 + y) * width + box.x0 + x;
      const k = y * box.width + x;
      const a = (premultiplied[at * 4 + 3] as number) / 255;
      alpha[k] = a;
      if (role[k] !== LAYER) continue;
      regionAlphas.push(a);
      red += premultiplied[at * 4] as number;
      green += premultiplied[at * 4 + 1] as number;
      blue += premultiplied[at * 4 + 2] as number;
    }
  }
  regionAlphas.sort((a, b) => a - b);
  const peak = regionAlphas[Math.floor(PEAK_QUANTILE * (regionAlphas.length - 1))] as number;
  const alphaSum = regionAlphas.reduce((sum, a) => sum + a, 0);
  if (peak <= 0 || alphaSum <= 0) return null;
  // The regions as drawn today: each its mean alpha over its pixels, clear around them.
  const sums = new Float64Array(layer.member.length);
  const counts = new Float64Array(layer.member.length);
  const labelAt = (k: number) => labels[(box.y0 + Math.floor(k / box.width)) * width + box.x0 + (k % box.width)] as number;
  for (let k = 0; k < size; k++) {
    if (role[k] !== LAYER) continue;
    const label = labelAt(k);
    sums[label] = (sums[label] as number) + (alpha[k] as number);
    counts[label] = (counts[label] as number) + 1;
  }
  // The pixels the fit is judged on: the layer's and the clear around it (opaque ones are painted over).
  let flatError = 0;
  let alphaSquares = 0;
  for (let k = 0; k < size; k++) {
    if (role[k] === LAYER) {
      const label = labelAt(k);
      flatError += ((alpha[k] as number) - (sums[label] as number) / (counts[label] as number)) ** 2;
    } else if (role[k] === CLEAR) flatError += (alpha[k] as number) ** 2;
    else continue;
    alphaSquares += (alpha[k] as number) ** 2;
  }
  if (flatError < MIN_FLAT_ERROR) return null;
  const under = underLayer(role, box.width, box.height);
  // The layer's own box within the fitted one: a blur of σ changes nothing farther than 2σ (the
  // reach) and 3σ (its spread) from it, so each width is tried on the layer's box grown by 5σ;
  // beyond it the model is clear and each seen pixel adds its alpha squared (in alphaSquares).
  const lx0 = layer.x0 - box.x0;
  const ly0 = layer.y0 - box.y0;
  const lx1 = layer.x1 - box.x0;
  const ly1 = layer.y1 - box.y0;
  type Fit = { error: number; sigma: number; threshold: number; reach: number; opacity: number };
  const tried = new Map<number, Fit | null>();
  const fitWidth = (sigma: number): Fit | null => {
    const known = tried.get(sigma);
    if (known !== undefined) return known;
    const margin = Math.ceil(5 * sigma) + 1;
    const cx0 = Math.max(0, lx0 - margin);
    const cy0 = Math.max(0, ly0 - margin);
    const cw = Math.min(box.width, lx1 + margin) - cx0;
    const ch = Math.min(box.height, ly1 + margin) - cy0;
    const cropRole = new Uint8Array(cw * ch);
    const cropAlpha = new Float64Array(cw * ch);
    const cropUnder = new Float64Array(cw * ch);
    let seenCount = 0;
    for (let y = 0; y < ch; y++) {
      for (let x = 0; x < cw; x++) {
        const k = (cy0 + y) * box.width + cx0 + x;
        const c = y * cw + x;
        cropRole[c] = role[k] as number;
        cropAlpha[c] = alpha[k] as number;
        cropUnder[c] = under[k] as number;
        if (role[k] === LAYER || role[k] === CLEAR) seenCount++;
      }
    }
    const seenHere = new Int32Array(seenCount);
    for (let c = 0, n = 0; c < cropRole.length; c++) if (cropRole[c] === LAYER || cropRole[c] === CLEAR) seenHere[n++] = c;
    // The blurred shape is the layer's pixels above a threshold and the opaque pixels within a reach
    // of it; the two are disjoint and a blur is linear, so each part is blurred once and sums tried.
    const mask = new Float64Array(cw * ch);
    const covers = THRESHOLDS.map((share) => {
      const threshold = share * peak;
      for (let c = 0; c < mask.length; c++) mask[c] = cropRole[c] === LAYER && (cropAlpha[c] as number) >= threshold ? 1 : 0;
      return { threshold, blurred: gaussianBlur(mask, cw, ch, sigma) };
    });
    const reaches = [0, Math.ceil(sigma), Math.ceil(2 * sigma)].map((reach) => {
      if (reach === 0) return { reach, blurred: new Float64Array(mask.length) };
      for (let c = 0; c < mask.length; c++) mask[c] = cropRole[c] === OPAQUE && (cropUnder[c] as number) <= reach ? 1 : 0;
      return { reach, blurred: gaussianBlur(mask, cw, ch, sigma) };
    });
    let best: Fit | null = null;
    for (const cover of covers) {
      for (const hidden of reaches) {
        // The opacity o that fits best (least squares over the seen pixels, at most opaque), and
        // the error Σ(o·v − a)² = o²·Σv² − 2o·Σva + Σa² it leaves.
        let product = 0;
        let square = 0;
        for (let n = 0; n < seenHere.length; n++) {
          const c = seenHere[n] as number;
          const value = (cover.blurred[c] as number) + (hidden.blurred[c] as number);
          product += value * (cropAlpha[c] as number);
          square += value * value;
        }
        if (square === 0) continue;
        const opacity = Math.min(1, product / square);
        const error = opacity * opacity * square - 2 * opacity * product + alphaSquares;
        if (!best || error < best.error) best = { error, sigma, threshold: cover.threshold, reach: hidden.reach, opacity };
      }
    }
    tried.set(sigma, best);
    return best;
  };
  // Coarse widths first, then the finer ones between the best coarse width's neighbours.
  const better = (a: Fit | null, b: Fit | null): Fit | null => (!a || (b && b.error < a.error) ? b : a);
  let best: Fit | null = null;
  let bestCoarse = 0;
  COARSE_SIGMAS.forEach((sigma, index) => {
    const fit = fitWidth(sigma);
    if (fit && (!best || fit.error < best.error)) {
      best = fit;
      bestCoarse = index;
    }
  });
  const low = COARSE_SIGMAS[bestCoarse - 1] ?? 0;
  const high = COARSE_SIGMAS[bestCoarse + 1] ?? Infinity;
  for (const sigma of SIGMAS) if (sigma > low && sigma < high) best = better(best, fitWidth(sigma));
  if (!best || best.error > WIN_RATIO * flatError) return null;
  const straight = (sum: number) => Math.max(0, Math.min(255, Math.round(sum / alphaSum)));
  const color = { r: straight(red), g: straight(green), b: straight(blue) };
  const { x0, y0, x1, y1 } = layer;
  return { regions: layer.regions, box: { x0, y0, x1, y1 }, sigma: best.sigma, threshold: best.threshold, reach: best.reach, opacity: best.opacity, color };
}

/** What each pixel of a box is to a layer: one of its regions, clear, an opaque region's (painted over), or none of these. */
const LAYER = 1;
const CLEAR = 2;
const OPAQUE = 3;

function rolesIn(labels: Int32Array, width: number, box: Box, member: Uint8Array, opaque: boolean[]): Uint8Array {
  const role = new Uint8Array(box.width * box.height);
  for (let y = 0; y < box.height; y++) {
    for (let x = 0; x < box.width; x++) {
      const label = labels[(box.y0 + y) * width + box.x0 + x] as number;
      role[y * box.width + x] = label < 0 ? CLEAR : member[label] ? LAYER : opaque[label] ? OPAQUE : 0;
    }
  }
  return role;
}

/**
 * For each opaque pixel the layer may continue under: its distance to the layer where that is
 * less than its distance to the clear, Infinity elsewhere. A shadow offset
 * down and right goes on under its shape's lower right, not past its upper left into the clear.
 */
function underLayer(role: Uint8Array, width: number, height: number): Float64Array {
  const toLayer = distanceToRole(role, width, height, LAYER);
  const toClear = distanceToRole(role, width, height, CLEAR);
  return toLayer.map((distance, k) => (role[k] === OPAQUE && distance < (toClear[k] as number) ? distance : Infinity));
}

/** Chessboard distance (pixels) from each pixel to the nearest pixel of `role` `target`; Infinity where none. */
function distanceToRole(role: Uint8Array, width: number, height: number, target: number): Float64Array {
  const distance = new Float64Array(role.length).fill(Infinity);
  let frontier: number[] = [];
  role.forEach((value, k) => {
    if (value === target) {
      distance[k] = 0;
      frontier.push(k);
    }
  });
  for (let step = 1; frontier.length > 0; step++) {
    const next: number[] = [];
    for (const k of frontier) {
      const x = k % width;
      const y = (k - x) / width;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
          const n = ny * width + nx;
          if (distance[n] !== Infinity) continue;
          distance[n] = step;
          next.push(n);
        }
      }
    }
    frontier = next;
  }
  return distance;
}

/**
 * A Gaussian blur (separable, clear beyond the box), as a renderer draws feGaussianBlur: from a
 * deviation of 2 on, three box blurs (as the SVG specification allows, and as resvg does), whose
 * cost does not grow with the deviation; below it, the Gaussian kernel itself.
 */
export function gaussianBlur(values: Float64Array, width: number, height: number, sigma: number): Float64Array {
  const out = Float64Array.from(values);
  const line = new Float64Array(Math.max(width, height));
  const result = new Float64Array(line.length);
  const spare = new Float64Array(line.length);
  const kernel = sigma < 2 ? gaussianKernel(sigma) : undefined;
  for (const [count, stride, length, step] of [
    [height, width, width, 1],
    [width, 1, height, width],
  ] as const) {
    for (let i = 0; i < count; i++) {
      const start = i * stride;
      for (let k = 0; k < length; k++) line[k] = out[start + k * step] as number;
      if (kernel) convolveLine(line, result, length, kernel);
      else boxBlurLine(line, result, spare, length, sigma);
      for (let k = 0; k < length; k++) out[start + k * step] = result[k] as number;
    }
  }
  return out;
}

/** The normalised Gaussian kernel of a deviation, 3σ either side. */
function gaussianKernel(sigma: number): Float64Array {
  const radius = Math.ceil(3 * sigma);
  const kernel = new Float64Array(2 * radius + 1);
  let total = 0;
  for (let i = -radius; i <= radius; i++) total += kernel[i + radius] = Math.exp(-(i * i) / (2 * sigma * sigma));
  for (let i = 0; i < kernel.length; i++) kernel[i] = (kernel[i] as number) / total;
  return kernel;
}

/** One row or column convolved with `kernel` into `out` (clear beyond the ends). */
function convolveLine(line: Float64Array, out: Float64Array, length: number, kernel: Float64Array): void {
  const radius = (kernel.length - 1) / 2;
  for (let x = 0; x < length; x++) {
    let sum = 0;
    const from = Math.max(-radius, -x);
    const to = Math.min(radius, length - 1 - x);
    for (let i = from; i <= to; i++) sum += (line[x + i] as number) * (kernel[i + radius] as number);
    out[x] = sum;
  }
}

/** Three box blurs of one row or column into `out`, as the SVG specification describes them for σ ≥ 2. */
function boxBlurLine(line: Float64Array, out: Float64Array, spare: Float64Array, length: number, sigma: number): void {
  const d = Math.floor((sigma * 3 * Math.sqrt(2 * Math.PI)) / 4 + 0.5);
  // Odd d: three boxes of d centred on the pixel; even d: boxes of d either side of it, then one of d + 1.
  const half = (d - 1) / 2;
  if (d % 2 === 1) {
    boxLine(line, spare, length, half, half);
    boxLine(spare, line, length, half, half);
    boxLine(line, out, length, half, half);
  } else {
    boxLine(line, spare, length, d / 2, d / 2 - 1);
    boxLine(spare, line, length, d / 2 - 1, d / 2);
    boxLine(line, out, length, d / 2, d / 2);
  }
}

/** Mean over the window [x − left, x + right] (clear beyond the ends), by a running sum; `input` and `output` differ. */
function boxLine(input: Float64Array, output: Float64Array, length: number, left: number, right: number): void {
  const size = left + right + 1;
  let sum = 0;
  for (let n = 0; n <= Math.min(length - 1, right); n++) sum += input[n] as number;
  for (let x = 0; x < length; x++) {
    output[x] = sum / size;
    const entering = x + right + 1;
    const leaving = x - left;
    if (entering < length) sum += input[entering] as number;
    if (leaving >= 0) sum -= input[leaving] as number;
  }
}

/** A mask on the traced grid, within a box (traced-grid pixels). */
export interface FineMask {
  mask: Uint8Array;
  x0: number;
  y0: number;
  width: number;
  height: number;
}

/**
 * A soft edge's shape on the traced grid (`factor` times finer than the segmented one): the
 * layer's traced pixels at least `threshold` opaque in `fine` (premultiplied RGBA of the traced
 * grid), and the opaque pixels it continues under, within `reach` segmented pixels of it.
 */
export function softEdgeMask(edge: SoftEdge, grid: { labels: Int32Array; width: number; height: number }, fineLabels: Int32Array, fine: Buffer, factor: number, opaque: boolean[]): FineMask | null {
  const reach = edge.reach;
  const member = new Uint8Array(opaque.length);
  for (const region of edge.regions) member[region] = 1;
  // The layer's box grown by the reach: the opaque pixels the layer may continue under lie in it.
  // Clear pixels beyond it, which the fit saw, are not seen here; a box grown by twice the reach
  // sees them, and changed 3 of 36 icons by at most 0.001 of fidelity: left as it is.
  const gx0 = Math.max(0, edge.box.x0 - reach);
  const gy0 = Math.max(0, edge.box.y0 - reach);
  const boxWidth = Math.min(grid.width, edge.box.x1 + reach) - gx0;
  const boxHeight = Math.min(grid.height, edge.box.y1 + reach) - gy0;
  const role = rolesIn(grid.labels, grid.width, { x0: gx0, y0: gy0, width: boxWidth, height: boxHeight }, member, opaque);
  const under = underLayer(role, boxWidth, boxHeight);
  const fineWidth = grid.width * factor;
  const out: FineMask = { mask: new Uint8Array(boxWidth * factor * boxHeight * factor), x0: gx0 * factor, y0: gy0 * factor, width: boxWidth * factor, height: boxHeight * factor };
  const least = edge.threshold * 255;
  let any = false;
  for (let y = 0; y < out.height; y++) {
    for (let x = 0; x < out.width; x++) {
      const at = (out.y0 + y) * fineWidth + out.x0 + x;
      const label = fineLabels[at] as number;
      let inside = false;
      if (label >= 0 && member[label]) inside = (fine[at * 4 + 3] as number) >= least;
      else if (label >= 0 && opaque[label]) inside = (under[Math.floor(y / factor) * boxWidth + Math.floor(x / factor)] as number) <= reach;
      if (inside) {
        out.mask[y * out.width + x] = 1;
        any = true;
      }
    }
  }
  return any ? out : null;
}
