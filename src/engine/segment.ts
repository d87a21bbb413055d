// Artwork split into regions that each take one paint (a flat colour or a gradient).
//
// A palette over-segments the image: every band of a gradient and every anti-aliased step of
// an edge becomes a region of its own. Regions are then put back together in three passes:
//   1. mixtures: thin regions whose colour lies between two neighbours' colours are the
//      anti-aliasing of the edge between those neighbours; their pixels go to whichever
//      neighbour each is closer to, which puts the edge halfway along the ramp;
//   2. smooth merges: neighbours merge, cheapest first, while one smooth colour model
//      (moments.ts) explains both nearly as well as each explains itself — gradient bands
//      rejoin, real edges stay;
//   3. specks: regions of a pixel or two take their closest neighbour unless they stand out.

import {
  addPixel,
  addSums,
  centroidOf,
  evaluateModel,
  fitModel,
  frameOf,
  meanOf,
  MOMENT_STRIDE,
  orderFor,
  pixelCount,
  squaredError,
  flatMergeExcess,
  CHANNELS,
  TERMS,
  type Colour,
  type Frame,
} from './moments.ts';

export interface Segmentation {
  width: number;
  height: number;
  /** Region of each pixel, -1 where transparent (a region whose mean alpha is below TRANSPARENT_BELOW). */
  labels: Int32Array;
  count: number;
  /** MOMENT_STRIDE sums per region, of the unquantised premultiplied colours. */
  sums: Float64Array;
  frame: Frame;
  /** The image's premultiplied RGBA, which the sums were taken from. */
  premultiplied: Buffer;
}

/** Regions whose mean alpha is below this (0–255) are not painted. */
export const TRANSPARENT_BELOW = 8;

export interface SegmentOptions {
  /**
   * How much worse (RMS per channel, 0–255) a merged region's model may explain either part than
   * the part's own model does. Quantisation bands of a gradient differ by about 1; an edge by its contrast.
   */
  mergeTolerance: number;
  /**
   * Squared error (summed over channels) that one pixel edge of boundary is worth: neighbours
   * merge when merging adds less error than their shared boundary is worth (Mumford–Shah).
   */
  boundaryWorth: number;
  /** Regions of at most this many pixels are specks. */
  speckPixels: number;
  /** A speck whose colour is farther than this (RMS per channel) from every neighbour stays. */
  speckContrast: number;
}

export const DEFAULT_SEGMENT_OPTIONS: SegmentOptions = { mergeTolerance: 3, boundaryWorth: 4 * 6 * 6, speckPixels: 2, speckContrast: 24 };

/** A thin region is at most this wide (pixels): 2 × area ÷ perimeter. */
const MIXTURE_MAX_WIDTH = 2;
/** Passes of dissolving (a sliver between slivers is reached once they are gone). */
const MIXTURE_PASSES = 2;
/** How far (pixels) from a sliver the sides of its edge are looked for. */
const MIXTURE_REACH = 2;
/** Neighbours (by common boundary) weighed as the two sides of a mixture. */
const MIXTURE_CANDIDATES = 6;
/** Two neighbours this close in colour (sum of channel differences) have no edge between them to anti-alias. */
const MIXTURE_MIN_CONTRAST = 24;
/** A sliver against transparency is the anti-aliasing of a shape's edge only within this hue distance of the shape (sum over RGB). */
const TRANSPARENT_MIXTURE_HUE = 36;
/**
 * Alpha (0–255) below which a silhouette's fringe is coverage only: made opaque only in the shape's
 * hue, and mixed with transparency whatever its hue. At least this opaque, a rim of another hue is a frame.
 */
const FRINGE_ALPHA = 64;

/**
 * Regions of the image: `quantised` (same size, binary alpha) gives the first partition,
 * `rgba` the colours the models are fitted to.
 */
export function segmentArtwork(rgba: Buffer, quantised: Buffer, width: number, height: number, options = DEFAULT_SEGMENT_OPTIONS): Segmentation {
  const frame = frameOf(width, height);
  const colours = premultiply(rgba);
  let labels = labelComponents(quantised, width, height);
  let count = maxLabel(labels) + 1;
  let sums = accumulate(labels, count, colours, width, frame);
  // Edges blurred over several pixels leave slivers touching only other slivers: each pass
  // dissolves the ones next to an edge's sides, and exposes the next.
  for (let pass = 0; pass < MIXTURE_PASSES; pass++) {
    const dissolved = dissolveMixtures(labels, count, sums, colours, width, height, frame);
    if (dissolved === labels) break;
    ({ labels, count } = relabel(dissolved, width));
    sums = accumulate(labels, count, colours, width, frame);
  }
  const graph = buildGraph(labels, count, width, height);
  // Flat first, which is cheap and takes most merges (noise, flat areas split by the palette), then smooth.
  mergeSmoothRegions(graph, sums, options.mergeTolerance, options.boundaryWorth, true);
  mergeSmoothRegions(graph, sums, options.mergeTolerance, options.boundaryWorth, false);
  joinThinChains(graph, sums, labels, width, height);
  absorbSpecks(graph, sums, options);
  const merged = labels.map((label) => find(graph.parent, label));
  ({ labels, count } = relabel(merged, width));
  sums = accumulate(labels, count, colours, width, frame);
  return { width, height, labels: withTransparency(labels, sums), count, sums, frame, premultiplied: colours };
}

/**
 * Anti-aliased silhouettes made opaque: a partly transparent pixel with a fully transparent
 * pixel and a nearly opaque one among its eight neighbours sits on a shape's edge against
 * transparency, and its straight colour is the shape's (its alpha is only coverage). Made
 * opaque, it joins the shape instead of forming a dark ring; the edge itself is placed later,
 * where the resampled alpha crosses one half. Soft translucency (shadows, glows) keeps its alpha.
 */
export function opaqueSilhouette(rgba: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(rgba);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const alpha = rgba[i + 3] as number;
      if (alpha === 0 || alpha === 255) continue;
      let clear = false;
      let solid = false;
      // A faint pixel's hue distance to the nearest-coloured solid neighbour.
      let nearest = Infinity;
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= width) continue;
          const at = (ny * width + nx) * 4;
          const neighbour = rgba[at + 3] as number;
          if (neighbour <= 8) clear = true;
          else if (neighbour >= 240) {
            solid = true;
            if (alpha < FRINGE_ALPHA) nearest = Math.min(nearest, straightDistance(rgba, i, at));
          }
        }
      }
      if (!clear || !solid) continue;
      // Below a sixteenth of coverage the stored colour is mostly rounding noise: leave it clear.
      if (alpha < 16) out[i + 3] = 0;
      // A faint fringe of another hue than the shape's (a dark halo left by resampling) is not
      // the shape's edge, and made opaque it would draw a line: it stays translucent.
      else if (alpha >= FRINGE_ALPHA || nearest <= TRANSPARENT_MIXTURE_HUE) out[i + 3] = 255;
    }
  }
  return out;
}

/** Sum of RGB differences of two straight (not premultiplied) pixels of an RGBA buffer. */
function straightDistance(rgba: Buffer, a: number, b: number): number {
  let distance = 0;
  for (let c = 0; c < 3; c++) distance += Math.abs((rgba[a + c] as number) - (rgba[b + c] as number));
  return distance;
}

/** RGBA with colour multiplied by alpha: a pixel's colour weighs as much as it is seen. */
export function premultiply(rgba: Buffer): Buffer {
  const out = Buffer.allocUnsafe(rgba.length);
  for (let i = 0; i < rgba.length; i += 4) {
    const a = rgba[i + 3] as number;
    out[i] = Math.round(((rgba[i] as number) * a) / 255);
    out[i + 1] = Math.round(((rgba[i + 1] as number) * a) / 255);
    out[i + 2] = Math.round(((rgba[i + 2] as number) * a) / 255);
    out[i + 3] = a;
  }
  return out;
}

/** Labels of regions too transparent to paint become -1. */
function withTransparency(labels: Int32Array, sums: Float64Array): Int32Array {
  const count = sums.length / MOMENT_STRIDE;
  const clear = new Uint8Array(count);
  for (let region = 0; region < count; region++) clear[region] = (meanOf(sums, region * MOMENT_STRIDE)[3] as number) < TRANSPARENT_BELOW ? 1 : 0;
  return labels.map((label) => (clear[label] ? -1 : label));
}

/** 4-connected areas of one exact RGBA word; every fully transparent pixel counts as one colour. */
export function labelComponents(quantised: Buffer, width: number, height: number): Int32Array {
  const words = new Uint32Array(quantised.buffer, quantised.byteOffset, width * height).map((word) => (word >>> 24 === 0 ? 0 : word));
  const parent = new Int32Array(width * height);
  for (let i = 0; i < parent.length; i++) parent[i] = i;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (x + 1 < width && words[i] === words[i + 1]) union(parent, i, i + 1);
      if (y + 1 < height && words[i] === words[i + width]) union(parent, i, i + width);
    }
  }
  const labels = new Int32Array(width * height);
  const compact = new Int32Array(width * height).fill(-1);
  let next = 0;
  for (let i = 0; i < labels.length; i++) {
    const root = find(parent, i);
    if (compact[root] === -1) compact[root] = next++;
    labels[i] = compact[root] as number;
  }
  return labels;
}

function find(parent: Int32Array, start: number): number {
  let i = start;
  while (parent[i] !== i) {
    const grandparent = parent[parent[i] as number] as number;
    parent[i] = grandparent;
    i = grandparent;
  }
  return i;
}

function union(parent: Int32Array, a: number, b: number): void {
  const ra = find(parent, a);
  const rb = find(parent, b);
  if (ra !== rb) parent[rb] = ra;
}

function maxLabel(labels: Int32Array): number {
  let max = -1;
  for (const label of labels) if (label > max) max = label;
  return max;
}

/** Labels renumbered 0..count-1 by 8-connected area (a label split by dissolving becomes several). */
function relabel(labels: Int32Array, width: number): { labels: Int32Array; count: number } {
  const height = labels.length / width;
  const parent = new Int32Array(labels.length);
  for (let i = 0; i < parent.length; i++) parent[i] = i;
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

function accumulate(labels: Int32Array, count: number, colours: Buffer, width: number, frame: Frame): Float64Array {
  const sums = new Float64Array(count * MOMENT_STRIDE);
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i] as number;
    if (label < 0) continue;
    const p = i * 4;
    addPixel(
      sums,
      label * MOMENT_STRIDE,
      frame,
      i % width,
      Math.floor(i / width),
      colours[p] as number,
      colours[p + 1] as number,
      colours[p + 2] as number,
      colours[p + 3] as number,
    );
  }
  return sums;
}

interface RegionGraph {
  /** Union–find over regions: merged regions point at the one that absorbed them. */
  parent: Int32Array;
  /** Boundary length (pixel edges) to each neighbouring region, for standing regions. */
  neighbours: Map<number, number>[];
  /** Bumped at every merge, so queued candidates of an old shape are recognised as stale. */
  version: Uint32Array;
}

function buildGraph(labels: Int32Array, count: number, width: number, height: number): RegionGraph {
  const neighbours = Array.from({ length: count }, () => new Map<number, number>());
  const link = (a: number, b: number) => {
    if (a < 0 || b < 0 || a === b) return;
    const ma = neighbours[a] as Map<number, number>;
    const mb = neighbours[b] as Map<number, number>;
    ma.set(b, (ma.get(b) ?? 0) + 1);
    mb.set(a, (mb.get(a) ?? 0) + 1);
  };
  // Diagonal contact counts: a one-pixel outline along a 45° edge is a chain of pixels that touch only at corners.
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (x + 1 < width) link(labels[i] as number, labels[i + 1] as number);
      if (y + 1 < height) {
        link(labels[i] as number, labels[i + width] as number);
        if (x + 1 < width) link(labels[i] as number, labels[i + width + 1] as number);
        if (x > 0) link(labels[i] as number, labels[i + width - 1] as number);
      }
    }
  }
  const parent = new Int32Array(count);
  for (let i = 0; i < count; i++) parent[i] = i;
  return { parent, neighbours, version: new Uint32Array(count) };
}

/** Pixel edges between each region and anything else (other regions or transparency), inside the image. */
function perimeters(labels: Int32Array, count: number, width: number, height: number): Float64Array {
  const perimeter = new Float64Array(count);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const here = labels[i] as number;
      if (x + 1 < width && labels[i + 1] !== here) {
        if (here >= 0) perimeter[here] = (perimeter[here] as number) + 1;
        const right = labels[i + 1] as number;
        if (right >= 0) perimeter[right] = (perimeter[right] as number) + 1;
      }
      if (y + 1 < height && labels[i + width] !== here) {
        if (here >= 0) perimeter[here] = (perimeter[here] as number) + 1;
        const below = labels[i + width] as number;
        if (below >= 0) perimeter[below] = (perimeter[below] as number) + 1;
      }
    }
  }
  return perimeter;
}

/** Sum of channel differences of two premultiplied colours. */
export function colourDistance(a: readonly number[], b: readonly number[]): number {
  return (
    Math.abs((a[0] as number) - (b[0] as number)) +
    Math.abs((a[1] as number) - (b[1] as number)) +
    Math.abs((a[2] as number) - (b[2] as number)) +
    Math.abs((a[3] as number) - (b[3] as number))
  );
}

/**
 * Pass 1. A thin region whose mean colour lies on the segment between the colours of two of
 * its neighbours (each taken from its own model at the thin region's centroid) is the
 * anti-aliasing of their common edge: each of its pixels joins the closer of the two.
 */
function dissolveMixtures(
  labels: Int32Array,
  count: number,
  sums: Float64Array,
  colours: Buffer,
  width: number,
  height: number,
  frame: Frame,
): Int32Array {
  const perimeter = perimeters(labels, count, width, height);
  const thin = new Uint8Array(count);
  let thinCount = 0;
  for (let region = 0; region < count; region++) {
    const p = perimeter[region] as number;
    if (p > 0 && (2 * pixelCount(sums, region * MOMENT_STRIDE)) / p <= MIXTURE_MAX_WIDTH) {
      thin[region] = 1;
      thinCount++;
    }
  }
  if (thinCount === 0) return labels;
  // The pixels of each thin region, in one array (offsets per region).
  const start = new Int32Array(count + 1);
  for (const label of labels) if (thin[label]) start[label + 1] = (start[label + 1] as number) + 1;
  for (let region = 0; region < count; region++) start[region + 1] = (start[region + 1] as number) + (start[region] as number);
  const members = new Int32Array(start[count] as number);
  const filled = start.slice(0, count);
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i] as number;
    if (thin[label]) members[(filled[label] as number)++] = i;
  }
  const models = new Map<number, Float64Array>();
  const modelOf = (region: number): Float64Array => {
    let model = models.get(region);
    if (!model) {
      const offset = region * MOMENT_STRIDE;
      model = fitModel(sums, offset, Math.min(3, orderFor(pixelCount(sums, offset))) as 1 | 3);
      models.set(region, model);
    }
    return model;
  };
  /** For each dissolved region, the two regions its pixels go to (-1: stays). */
  const intoA = new Int32Array(count).fill(-1);
  const intoB = new Int32Array(count).fill(-1);
  let dissolved = 0;
  const colour: Colour = [0, 0, 0, 0];
  const sideLabel = new Int32Array(MIXTURE_CANDIDATES);
  const sideWeight = new Float64Array(MIXTURE_CANDIDATES);
  const sideColours = new Float64Array(MIXTURE_CANDIDATES * 4);
  const reach = MIXTURE_REACH;
  for (let region = 0; region < count; region++) {
    if (!thin[region]) continue;
    // The sides of the edge: regions that are not slivers themselves, within MIXTURE_REACH
    // pixels of the sliver (an anti-aliased edge can be several pixels wide), nearer ones weighing more.
    let found = 0;
    const size = pixelCount(sums, region * MOMENT_STRIDE);
    for (let k = start[region] as number; k < (start[region + 1] as number); k++) {
      const i = members[k] as number;
      const x = i % width;
      const y = (i - x) / width;
      for (let dy = -reach; dy <= reach; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= height) continue;
        for (let dx = -reach; dx <= reach; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= width) continue;
          const other = labels[ny * width + nx] as number;
          // A thin region is a side only when much larger than the sliver: a line or a letter's stroke.
          if (other === region || (thin[other] && pixelCount(sums, other * MOMENT_STRIDE) < Math.max(8, 4 * size))) continue;
          const weight = 1 / (dx * dx + dy * dy);
          let at = 0;
          while (at < found && sideLabel[at] !== other) at++;
          if (at < found) sideWeight[at] = (sideWeight[at] as number) + weight;
          else if (found < MIXTURE_CANDIDATES) {
            sideLabel[found] = other;
            sideWeight[found++] = weight;
          }
        }
      }
    }
    if (found < 2) continue;
    const offset = region * MOMENT_STRIDE;
    const own = meanOf(sums, offset);
    const [u, v] = centroidOf(sums, offset);
    for (let k = 0; k < found; k++) {
      evaluateModel(modelOf(sideLabel[k] as number), u, v, colour);
      for (let c = 0; c < 4; c++) sideColours[k * 4 + c] = colour[c] as number;
    }
    let bestScore = Infinity;
    for (let i = 0; i < found; i++) {
      for (let j = i + 1; j < found; j++) {
        // Where the region's colour falls on the segment between the two sides' colours.
        let dot = 0;
        let length = 0;
        let contrast = 0;
        for (let c = 0; c < 4; c++) {
          const a = sideColours[i * 4 + c] as number;
          const b = sideColours[j * 4 + c] as number;
          dot += ((own[c] as number) - b) * (a - b);
          length += (a - b) * (a - b);
          contrast += Math.abs(a - b);
        }
        if (contrast < MIXTURE_MIN_CONTRAST) continue;
        const t = Math.max(0, Math.min(1, dot / length));
        let residual = 0;
        for (let c = 0; c < 4; c++) {
          const a = sideColours[i * 4 + c] as number;
          const b = sideColours[j * 4 + c] as number;
          residual += Math.abs((own[c] as number) - (b + t * (a - b)));
        }
        if (residual > Math.max(12, 0.15 * contrast)) continue;
        // Against transparency a pixel's coverage changes its alpha, not its hue: an opaque rim
        // whose own colour differs from the shape's is a line of its own (a frame), not anti-aliasing.
        // (Rims are made opaque by opaqueSilhouette; translucent slivers are soft edges and shadows.)
        const clearI = (sideColours[i * 4 + 3] as number) < TRANSPARENT_BELOW;
        const clearJ = (sideColours[j * 4 + 3] as number) < TRANSPARENT_BELOW;
        if (clearI !== clearJ && (own[3] as number) >= FRINGE_ALPHA) {
          const at = (clearI ? j : i) * 4;
          const shape: Colour = [sideColours[at] as number, sideColours[at + 1] as number, sideColours[at + 2] as number, sideColours[at + 3] as number];
          if (hueDistance(own, shape) > TRANSPARENT_MIXTURE_HUE) continue;
        }
        // Of the pairs that explain it, the one closest around it.
        const score = residual / Math.sqrt((sideWeight[i] as number) * (sideWeight[j] as number));
        if (score < bestScore) {
          bestScore = score;
          intoA[region] = sideLabel[i] as number;
          intoB[region] = sideLabel[j] as number;
        }
      }
    }
    if (intoA[region] !== -1) dissolved++;
  }
  if (dissolved === 0) return labels;
  const out = Int32Array.from(labels);
  const a: Colour = [0, 0, 0, 0];
  const b: Colour = [0, 0, 0, 0];
  for (let region = 0; region < count; region++) {
    const first = intoA[region] as number;
    if (first === -1) continue;
    const second = intoB[region] as number;
    for (let k = start[region] as number; k < (start[region + 1] as number); k++) {
      const i = members[k] as number;
      const u = ((i % width) + 0.5 - frame.centreX) / frame.scale;
      const v = (Math.floor(i / width) + 0.5 - frame.centreY) / frame.scale;
      evaluateModel(modelOf(first), u, v, a);
      evaluateModel(modelOf(second), u, v, b);
      let towardsA = 0;
      let towardsB = 0;
      for (let c = 0; c < 4; c++) {
        const value = colours[i * 4 + c] as number;
        towardsA += Math.abs(value - (a[c] as number));
        towardsB += Math.abs(value - (b[c] as number));
      }
      out[i] = towardsA <= towardsB ? first : second;
    }
  }
  return out;
}

/** A binary min-heap of merge candidates in parallel typed arrays: hundreds of thousands pass through it. */
class CandidateHeap {
  private costs = new Float64Array(1024);
  private pairs = new Int32Array(2048);
  private versions = new Uint32Array(2048);
  size = 0;

  push(cost: number, a: number, b: number, va: number, vb: number): void {
    if (this.size === this.costs.length) this.grow();
    let i = this.size++;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if ((this.costs[up] as number) <= cost) break;
      this.move(up, i);
      i = up;
    }
    this.set(i, cost, a, b, va, vb);
  }

  /** Removes the cheapest candidate into `top` (cost, a, b, va, vb). */
  pop(top: Float64Array): void {
    top[0] = this.costs[0] as number;
    top[1] = this.pairs[0] as number;
    top[2] = this.pairs[1] as number;
    top[3] = this.versions[0] as number;
    top[4] = this.versions[1] as number;
    const last = --this.size;
    if (last === 0) return;
    const cost = this.costs[last] as number;
    const a = this.pairs[last * 2] as number;
    const b = this.pairs[last * 2 + 1] as number;
    const va = this.versions[last * 2] as number;
    const vb = this.versions[last * 2 + 1] as number;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= last) break;
      const right = left + 1;
      const child = right < last && (this.costs[right] as number) < (this.costs[left] as number) ? right : left;
      if ((this.costs[child] as number) >= cost) break;
      this.move(child, i);
      i = child;
    }
    this.set(i, cost, a, b, va, vb);
  }

  private set(i: number, cost: number, a: number, b: number, va: number, vb: number): void {
    this.costs[i] = cost;
    this.pairs[i * 2] = a;
    this.pairs[i * 2 + 1] = b;
    this.versions[i * 2] = va;
    this.versions[i * 2 + 1] = vb;
  }

  private move(from: number, to: number): void {
    this.costs[to] = this.costs[from] as number;
    this.pairs[to * 2] = this.pairs[from * 2] as number;
    this.pairs[to * 2 + 1] = this.pairs[from * 2 + 1] as number;
    this.versions[to * 2] = this.versions[from * 2] as number;
    this.versions[to * 2 + 1] = this.versions[from * 2 + 1] as number;
  }

  private grow(): void {
    const costs = new Float64Array(this.costs.length * 2);
    costs.set(this.costs);
    const pairs = new Int32Array(this.pairs.length * 2);
    pairs.set(this.pairs);
    const versions = new Uint32Array(this.versions.length * 2);
    versions.set(this.versions);
    this.costs = costs;
    this.pairs = pairs;
    this.versions = versions;
  }
}

/**
 * Pass 2. Neighbours merge, cheapest first (by the growth of the squared error), while the merged
 * region's model explains each part within `tolerance` RMS of the part's own model.
 */
function mergeSmoothRegions(graph: RegionGraph, sums: Float64Array, tolerance: number, boundaryWorth: number, flatOnly: boolean): void {
  const count = graph.parent.length;
  const scratch = new Float64Array(MOMENT_STRIDE);
  const model = new Float64Array(CHANNELS * TERMS);
  const ownError = new Float64Array(count);
  const ownFit = (region: number) => {
    if (flatOnly) return;
    const offset = region * MOMENT_STRIDE;
    ownError[region] = squaredError(sums, offset, fitModel(sums, offset, orderFor(pixelCount(sums, offset)), model));
  };
  for (let region = 0; region < count; region++) if (graph.parent[region] === region) ownFit(region);
  const allowance = tolerance * tolerance * CHANNELS;
  const heap = new CandidateHeap();
  /** The cost of merging, or NaN when the two must stay apart. */
  const mergeCost = (a: number, b: number): number => {
    let excessA: number;
    let excessB: number;
    if (flatOnly) {
      [excessA, excessB] = flatMergeExcess(sums, a * MOMENT_STRIDE, b * MOMENT_STRIDE);
    } else {
      scratch.fill(0);
      addSums(scratch, 0, sums, a * MOMENT_STRIDE);
      addSums(scratch, 0, sums, b * MOMENT_STRIDE);
      fitModel(scratch, 0, orderFor(pixelCount(scratch, 0)), model);
      excessA = squaredError(sums, a * MOMENT_STRIDE, model) - (ownError[a] as number);
      excessB = squaredError(sums, b * MOMENT_STRIDE, model) - (ownError[b] as number);
    }
    const cost = excessA + excessB;
    // Smooth: one model explains both parts nearly as well as their own. Or cheap: the error
    // added is less than the boundary removed is worth (fragments of anti-aliased outlines).
    const smooth = excessA <= allowance * pixelCount(sums, a * MOMENT_STRIDE) && excessB <= allowance * pixelCount(sums, b * MOMENT_STRIDE);
    const boundary = (graph.neighbours[a] as Map<number, number>).get(b) ?? 0;
    return smooth || cost <= boundaryWorth * boundary ? cost : NaN;
  };
  const consider = (a: number, b: number) => {
    const cost = mergeCost(a, b);
    if (!Number.isNaN(cost)) heap.push(cost, a, b, graph.version[a] as number, graph.version[b] as number);
  };
  for (let a = 0; a < count; a++) {
    if (graph.parent[a] !== a) continue;
    for (const b of (graph.neighbours[a] as Map<number, number>).keys()) if (a < b) consider(a, b);
  }
  // A region's neighbours are all weighed again only when it has grown by half since they last
  // were: a large region absorbing specks one by one would otherwise cost a fit per neighbour
  // per speck. Stale candidates are weighed again when they come up.
  const sizeAtLastReview = new Float64Array(count);
  for (let region = 0; region < count; region++) sizeAtLastReview[region] = pixelCount(sums, region * MOMENT_STRIDE);
  const top = new Float64Array(5);
  while (heap.size > 0) {
    heap.pop(top);
    const a = top[1] as number;
    const b = top[2] as number;
    if (graph.parent[a] !== a || graph.parent[b] !== b) continue;
    if (graph.version[a] !== top[3] || graph.version[b] !== top[4]) {
      consider(a, b);
      continue;
    }
    const newcomers = [...(graph.neighbours[pixelCount(sums, a * MOMENT_STRIDE) >= pixelCount(sums, b * MOMENT_STRIDE) ? b : a] as Map<number, number>).keys()];
    const kept = mergeRegions(graph, sums, a, b);
    ownFit(kept);
    const size = pixelCount(sums, kept * MOMENT_STRIDE);
    if (size >= 1.5 * (sizeAtLastReview[kept] as number)) {
      sizeAtLastReview[kept] = size;
      for (const neighbour of (graph.neighbours[kept] as Map<number, number>).keys()) consider(kept, neighbour);
    } else {
      for (const neighbour of newcomers) if (neighbour !== kept && graph.parent[neighbour] === neighbour) consider(kept, neighbour);
    }
  }
}

/** Merges the smaller of two standing regions into the larger; returns the one kept. */
function mergeRegions(graph: RegionGraph, sums: Float64Array, a: number, b: number): number {
  const [kept, gone] = pixelCount(sums, a * MOMENT_STRIDE) >= pixelCount(sums, b * MOMENT_STRIDE) ? [a, b] : [b, a];
  addSums(sums, kept * MOMENT_STRIDE, sums, gone * MOMENT_STRIDE);
  graph.parent[gone] = kept;
  const keptNeighbours = graph.neighbours[kept] as Map<number, number>;
  keptNeighbours.delete(gone);
  for (const [neighbour, length] of graph.neighbours[gone] as Map<number, number>) {
    if (neighbour === kept) continue;
    keptNeighbours.set(neighbour, (keptNeighbours.get(neighbour) ?? 0) + length);
    const theirs = graph.neighbours[neighbour] as Map<number, number>;
    theirs.delete(gone);
    theirs.set(kept, (theirs.get(kept) ?? 0) + length);
  }
  graph.neighbours[gone] = new Map();
  graph.version[kept] = (graph.version[kept] as number) + 1;
  graph.version[gone] = (graph.version[gone] as number) + 1;
  return kept;
}

/** Thin regions whose straight colours differ by at most this (sum over RGB) are one outline, whatever their coverage. */
const CHAIN_TOLERANCE = 160;

/** Sum of RGB differences of two premultiplied colours once alpha is divided out; infinite for near-transparent ones. */
function hueDistance(a: Colour, b: Colour): number {
  const alphaA = a[3];
  const alphaB = b[3];
  if (alphaA < 16 || alphaB < 16) return Infinity;
  let distance = 0;
  for (let c = 0; c < 3; c++) distance += Math.abs(((a[c] as number) * 255) / alphaA - ((b[c] as number) * 255) / alphaB);
  return distance;
}

/**
 * Pass 2b. An outline a pixel wide breaks into pieces whose colours vary with how much of each
 * pixel it covers; neighbouring thin pieces of similar colour are joined into one outline.
 */
function joinThinChains(graph: RegionGraph, sums: Float64Array, labels: Int32Array, width: number, height: number): void {
  const count = graph.parent.length;
  const current = labels.map((label) => find(graph.parent, label));
  const perimeter = perimeters(current, count, width, height);
  const thin = (region: number) => {
    const p = perimeter[region] as number;
    return p > 0 && (2 * pixelCount(sums, region * MOMENT_STRIDE)) / p <= MIXTURE_MAX_WIDTH;
  };
  for (let region = 0; region < count; region++) {
    if (graph.parent[region] !== region || !thin(region)) continue;
    for (const neighbour of [...(graph.neighbours[region] as Map<number, number>).keys()]) {
      const root = find(graph.parent, region);
      if (neighbour === root || graph.parent[neighbour] !== neighbour || !thin(neighbour)) continue;
      if (hueDistance(meanOf(sums, root * MOMENT_STRIDE), meanOf(sums, neighbour * MOMENT_STRIDE)) > CHAIN_TOLERANCE) continue;
      const kept = mergeRegions(graph, sums, root, neighbour);
      perimeter[kept] = (perimeter[root] as number) + (perimeter[neighbour] as number);
    }
  }
  // What is left of an outline in pieces along a silhouette (a thin piece between one shape
  // and transparency, covering a small part of that shape's edge) is drawn as the shape's edge:
  // a dashed outline reads worse than none. A whole outline is one long piece, and stays.
  const clear = (region: number) => (meanOf(sums, region * MOMENT_STRIDE)[3] as number) < TRANSPARENT_BELOW;
  for (let region = 0; region < count; region++) {
    if (graph.parent[region] !== region || !thin(region) || clear(region)) continue;
    const sides = [...(graph.neighbours[region] as Map<number, number>).keys()];
    const shapes = sides.filter((side) => !clear(side));
    if (shapes.length !== 1 || shapes.length === sides.length) continue;
    const shape = shapes[0] as number;
    if (pixelCount(sums, region * MOMENT_STRIDE) > DASH_SHARE * (perimeter[shape] as number)) continue;
    const kept = mergeRegions(graph, sums, shape, region);
    perimeter[kept] = perimeter[shape] as number;
  }
}

/** A thin piece along a shape's silhouette covering less than this share of the shape's edge is part of the shape. */
const DASH_SHARE = 0.1;

/** Pass 3. Specks join the neighbour that explains them best, unless none comes within `speckContrast`. */
function absorbSpecks(graph: RegionGraph, sums: Float64Array, options: SegmentOptions): void {
  const count = graph.parent.length;
  const limit = options.speckContrast * options.speckContrast * 4;
  for (let region = 0; region < count; region++) {
    if (graph.parent[region] !== region) continue;
    const offset = region * MOMENT_STRIDE;
    const n = pixelCount(sums, offset);
    if (n > options.speckPixels) continue;
    let best = -1;
    let bestError = Infinity;
    for (const neighbour of (graph.neighbours[region] as Map<number, number>).keys()) {
      const neighbourOffset = neighbour * MOMENT_STRIDE;
      const model = fitModel(sums, neighbourOffset, Math.min(3, orderFor(pixelCount(sums, neighbourOffset))) as 1 | 3);
      const error = squaredError(sums, offset, model) / n;
      if (error < bestError) {
        bestError = error;
        best = neighbour;
      }
    }
    if (best >= 0 && bestError <= limit) mergeRegions(graph, sums, best, region);
  }
}
