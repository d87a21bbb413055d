// Passes 2 and 3 of the segmentation, on the graph of regions and their common boundaries:
// smooth and cheap merges, outlines in pieces joined, specks absorbed.
import { addSums, CHANNELS, fitModel, flatMergeExcess, meanOf, MOMENT_STRIDE, orderFor, pixelCount, squaredError, TERMS, type Colour } from './moments.ts';
import { find } from './components.ts';
import { hueDistance, isClear, isThin, perimeters, straightRgb } from './measures.ts';
import type { SegmentOptions } from './segment.ts';
import { OPAQUE_ABOVE } from './upsample.ts';

export interface RegionGraph {
  /** Union–find over regions: merged regions point at the one that absorbed them. */
  parent: Int32Array;
  /** Boundary length (pixel edges) to each neighbouring region, for standing regions. */
  neighbours: Map<number, number>[];
  /** Bumped at every merge, so queued candidates of an old shape are recognised as stale. */
  version: Uint32Array;
}

export function buildGraph(labels: Int32Array, count: number, width: number, height: number): RegionGraph {
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
export function mergeSmoothRegions(graph: RegionGraph, sums: Float64Array, tolerance: number, boundaryWorth: number, flatOnly: boolean): void {
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

/** A thin piece at most this share as opaque as its neighbour is the faint side of a pair (joinThinChains). */
const FAINT_SHARE = 0.5;

/** A shadow's own colour (straight) is at most this in every channel: black or nearly, as shadows are drawn. */
const SHADOW_MAX_CHANNEL = 64;

/**
 * Whether `faint` is a shadow beside `solid`: half as opaque or less, nearly black in its own
 * colour, and darker than `solid` by more than a mixture's tolerance. (A line's own darker rim,
 * partly covering its pixels, keeps the line's hue: a green wave's edge is green, not black.)
 */
function isShadowBeside(faint: Colour, solid: Colour): boolean {
  if (faint[3] > FAINT_SHARE * solid[3]) return false;
  const shade = straightRgb(faint);
  const own = straightRgb(solid);
  if (!shade || !own || Math.max(...shade) > SHADOW_MAX_CHANNEL) return false;
  return own[0] + own[1] + own[2] - (shade[0] + shade[1] + shade[2]) > MIXTURE_TOLERANCE;
}

/**
 * Whether joining `faint` to `solid` would turn an opaque outline translucent: `solid` is opaque
 * (OPAQUE_ABOVE) and `faint` at most FAINT_SHARE as opaque. Joined, the chain's mean alpha falls
 * below opaque and the whole outline is drawn as a soft edge, blurred: a 128 px icon's dark frame,
 * joined to the drop shadow along its lower side (nearly black too, so no shadow by its colour),
 * lost its crisp line on every side. A line's own partly covered pixels against transparency are
 * mostly made opaque before (silhouette.ts).
 */
function fadesBeside(faint: Colour, solid: Colour): boolean {
  return solid[3] >= OPAQUE_ABOVE * 255 && faint[3] <= FAINT_SHARE * solid[3];
}

/** Thin regions whose straight colours differ by at most this (sum over RGB) are one outline, whatever their coverage. */
const CHAIN_TOLERANCE = 160;
/**
 * ... but in an icon, pieces further apart than this are one outline only when one is the other
 * partly covered (eitherMixesTheOther): two paints that meet end to end are two shapes. At 32 px
 * whole features are thin, and a pizza's pepperonis, their red rims and the crust's brown line
 * were joined into one region that bled across the slice, an address book's yellow, green and red
 * tabs into one olive smear. In larger images thin pieces are outlines and join as before:
 * there the stricter rule lifted a halved rose's logo trace past the rule-6 margin, and it came
 * back posterised (docs/decisions.md).
 */
const CHAIN_SAME_PAINT = 80;

/**
 * Pass 2b. An outline a pixel wide breaks into pieces whose colours vary with how much of each
 * pixel it covers; neighbouring thin pieces of similar colour are joined into one outline
 * (`separatePaints`: pieces of clearly different colours only when one is the other partly covered).
 */
export function joinThinChains(graph: RegionGraph, sums: Float64Array, labels: Int32Array, width: number, height: number, separatePaints = false): void {
  const count = graph.parent.length;
  const current = labels.map((label) => find(graph.parent, label));
  const perimeter = perimeters(current, count, width, height);
  const thin = (region: number) => isThin(sums, perimeter, region);
  for (let region = 0; region < count; region++) {
    if (graph.parent[region] !== region || !thin(region)) continue;
    for (const neighbour of [...(graph.neighbours[region] as Map<number, number>).keys()]) {
      const root = find(graph.parent, region);
      if (neighbour === root || graph.parent[neighbour] !== neighbour || !thin(neighbour)) continue;
      const rootColour = meanOf(sums, root * MOMENT_STRIDE);
      const neighbourColour = meanOf(sums, neighbour * MOMENT_STRIDE);
      const difference = hueDistance(rootColour, neighbourColour);
      if (difference > CHAIN_TOLERANCE) continue;
      // A line partly covering pixels against transparency keeps its colour and loses alpha; a
      // faint, nearly black piece beside a lighter solid one is a shadow lying along it (cast
      // between the bars of a fence: joined to them, it filled every gap).
      if (isShadowBeside(rootColour, neighbourColour) || isShadowBeside(neighbourColour, rootColour)) continue;
      if (fadesBeside(rootColour, neighbourColour) || fadesBeside(neighbourColour, rootColour)) continue;
      const needsMixture = (separatePaints && difference > CHAIN_SAME_PAINT) || sideBySide(graph, perimeter, root, neighbour);
      if (needsMixture && !eitherMixesTheOther(graph, sums, perimeter, root, neighbour)) continue;
      const kept = mergeRegions(graph, sums, root, neighbour);
      perimeter[kept] = (perimeter[root] as number) + (perimeter[neighbour] as number);
    }
  }
  // What is left of an outline in pieces along a silhouette (a thin piece between one shape
  // and transparency, covering a small part of that shape's edge) is drawn as the shape's edge:
  // a dashed outline reads worse than none. A whole outline is one long piece, and stays.
  const clear = (region: number) => isClear(sums, region);
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

/**
 * Thin neighbours sharing more than this share of the shorter one's perimeter lie side by side, not
 * end to end: two lines along one edge (a dark outline and the light rim inside it), or the two
 * rows of pixels an anti-aliased line at a shallow angle covers.
 */
const SIDE_BY_SIDE_SHARE = 0.25;
/**
 * ... when both are lines at least this long (pixel edges of perimeter: about 20 pixels). Shorter
 * pieces side by side are the fragments of one anti-aliased curve (a cup's handle at 48 px fell
 * apart into them when kept apart: 0.834 → 0.818 at 512 px).
 */
const LINE_PERIMETER = 40;
/** A colour within this (sum over RGB, straight) of the segment between two others is a mixture of them. */
const MIXTURE_TOLERANCE = 36;

function sideBySide(graph: RegionGraph, perimeter: Float64Array, a: number, b: number): boolean {
  const shorter = Math.min(perimeter[a] as number, perimeter[b] as number);
  if (shorter < LINE_PERIMETER) return false;
  const shared = (graph.neighbours[a] as Map<number, number>).get(b) ?? 0;
  return shared > SIDE_BY_SIDE_SHARE * shorter;
}

/**
 * Whether one of two thin neighbours is the other mixed with something else that lies along it (the
 * pixels of a line it covers only in part, blended with the ground or the shape beside it): then
 * they are one line. Two lines of their own colours side by side (a highlight is lighter than the
 * outline and the fill on either side of it) stay apart.
 */
function eitherMixesTheOther(graph: RegionGraph, sums: Float64Array, perimeter: Float64Array, a: number, b: number): boolean {
  const straight = (region: number) => straightRgb(meanOf(sums, region * MOMENT_STRIDE));
  const mixes = (mixture: number, line: number): boolean => {
    const m = straight(mixture);
    const l = straight(line);
    if (!m || !l) return true;
    for (const [other, along] of graph.neighbours[mixture] as Map<number, number>) {
      // What a line's pixel is blended with lies along it, across from the line.
      if (other === line || graph.parent[other] !== other || along <= SIDE_BY_SIDE_SHARE * (perimeter[mixture] as number)) continue;
      // Against transparency a partly covered pixel keeps the line's straight colour.
      if (distanceToSegment(m, l, straight(other) ?? l) <= MIXTURE_TOLERANCE) return true;
    }
    return false;
  };
  return mixes(a, b) || mixes(b, a);
}

/** Sum over channels of |p − q|, q the point of the segment from a to b nearest p (least squares). */
function distanceToSegment(p: number[], a: number[], b: number[]): number {
  let dot = 0;
  let length = 0;
  for (let c = 0; c < 3; c++) {
    dot += ((p[c] as number) - (a[c] as number)) * ((b[c] as number) - (a[c] as number));
    length += ((b[c] as number) - (a[c] as number)) ** 2;
  }
  const t = length === 0 ? 0 : Math.max(0, Math.min(1, dot / length));
  let distance = 0;
  for (let c = 0; c < 3; c++) distance += Math.abs((p[c] as number) - ((a[c] as number) + t * ((b[c] as number) - (a[c] as number))));
  return distance;
}

/** A thin piece along a shape's silhouette covering less than this share of the shape's edge is part of the shape. */
const DASH_SHARE = 0.1;

/** Pass 3. Specks join the neighbour that explains them best, unless none comes within `speckContrast`. */
export function absorbSpecks(graph: RegionGraph, sums: Float64Array, options: SegmentOptions): void {
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
