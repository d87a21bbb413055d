// Centerline tracing: ink (found as `mode: sketch` finds it, analyse/ink.ts) drawn as strokes
// along the middle of its lines, for pen plotters, engravers and single-line fonts.
//
// 1. The ink is thresholded on a grid up to 4 times finer than the image (bilinear, as for line
//    art), so the middle of a line two pixels wide lies between pixels, not on one side.
// 2. The distance transform says how far each ink pixel is from the paper: twice that along the
//    middle of a line is its width. Dots (an ink spot hardly longer than it is wide) and ink much
//    wider than the typical line (WIDE_RATIO) stay filled shapes, traced as outlines.
// 3. Zhang–Suen thinning gives the lines' middles (skeleton.ts); they become a graph: junctions
//    (clusters of pixels with three neighbours or more), ends, and the runs between them.
// 4. Spurs (short branches that thinning grows at corners and bumps) are cut; a junction left
//    with two branches joins them; at a junction of three or more, branches that continue each
//    other (the bars of a cross) become one stroke through it. Every branch meeting at a junction
//    ends on the same point, so junctions join cleanly and no line is drawn twice.
// 5. Each stroke is smoothed, corners kept, and fitted with lines and cubics; its width is the
//    median width of the ink along it, in a few classes (WIDTH_STEP). Strokes are ordered for
//    short pen-up travel (stroke-order.ts).

import type { Config } from '@neplex/vectorizer';
import { binariseInk, separateInk } from '../analyse/ink.ts';
import type { RgbaImage } from '../analyse/prepare.ts';
import { flat, hypot, PathCommand, type PathGeometry, type Rgb, type TracedShape } from '../geometry.ts';
import type { TraceParams } from '../params.ts';
import { fittingTolerance } from './artwork.ts';
import { fitCubics } from './cubic-fit.ts';
import { degreeOf, distanceToZero, neighboursOf, thin } from './skeleton.ts';
import { orderStrokes, penUpTravel, type Point, type Stroke } from './stroke-order.ts';
import { parseTracerSvg } from './tracer-output.ts';
import { runTracer } from './vtracer.ts';

/** The finer grid's pixels, at most: thinning and the graph cost about a microsecond a pixel. */
export const CENTERLINE_PIXELS = 4_000_000;
/** Ink more than this many times as wide as the typical line is an area, not a line, and stays filled. */
export const WIDE_RATIO = 2.5;
/** An ink spot whose extent is under this many times its width is a dot, and stays filled. */
const DOT_RATIO = 2.5;
/** A branch from a junction to a free end shorter than this many times the junction's half-width is a spur. */
const SPUR_RATIO = 2;
/** Branches whose directions at a junction differ by less than this (degrees) from a straight line continue each other. */
const CONTINUATION_ANGLE = 45;
/** Stroke widths are rounded to steps of this ratio from the typical width, so strokes share a few widths. */
const WIDTH_STEP = 1.25;
/** Control points closer than this (traced pixels) to the chord make a cubic a line. */
const STRAIGHT_TOLERANCE = 0.15;
/**
 * Strokes are at least this wide (image pixels): a faint line a pixel wide thresholds to a
 * sliver, and drawn that thin in the ink's full colour it all but vanishes.
 */
const MIN_STROKE_WIDTH = 0.5;

export interface CenterlineTrace {
  shapes: TracedShape[];
  /** The traced grid's size: the shapes' coordinates are in its pixels. */
  width: number;
  height: number;
  /** Traced pixels per working pixel. */
  upscale: number;
  ink: Rgb;
  /** Pen-up travel between strokes (traced pixels): as ordered, and in the order the graph gave them. */
  travel: { ordered: number; unordered: number };
}

export function centerlineUpscale(width: number, height: number): number {
  for (const factor of [4, 3, 2]) if (width * height * factor * factor <= CENTERLINE_PIXELS) return factor;
  return 1;
}

interface Node {
  x: number;
  y: number;
  /** Distance to the paper at the node: its half-width. */
  radius: number;
  /** A free end next to a filled (wide) area: the line goes on as that area. */
  attached: boolean;
  /** Edge ends meeting here: edge × 2 + (0 for its start, 1 for its end). */
  ends: Set<number>;
}

interface Edge {
  points: Point[];
  /** Ink pixels along it, for its width. */
  pixels: number[];
  a: number;
  b: number;
  alive: boolean;
}

function pathLength(points: Point[]): number {
  let length = 0;
  for (let i = 1; i < points.length; i++) length += hypot((points[i] as Point)[0] - (points[i - 1] as Point)[0], (points[i] as Point)[1] - (points[i - 1] as Point)[1]);
  return length;
}

/** 8-connected components of a mask: each component's pixels. */
function components(mask: Uint8Array, width: number, height: number): number[][] {
  const seen = new Uint8Array(mask.length);
  const members: number[][] = [];
  const stack: number[] = [];
  for (let start = 0; start < mask.length; start++) {
    if (!mask[start] || seen[start]) continue;
    const list: number[] = [];
    seen[start] = 1;
    stack.push(start);
    while (stack.length > 0) {
      const p = stack.pop() as number;
      list.push(p);
      const x = p % width;
      const y = (p - x) / width;
      for (let ny = Math.max(0, y - 1); ny <= Math.min(height - 1, y + 1); ny++) {
        for (let nx = Math.max(0, x - 1); nx <= Math.min(width - 1, x + 1); nx++) {
          const q = ny * width + nx;
          if (mask[q] && !seen[q]) {
            seen[q] = 1;
            stack.push(q);
          }
        }
      }
    }
    members.push(list);
  }
  return members;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** The skeleton as a graph of junctions, ends and the runs between them. */
function buildGraph(skeleton: Uint8Array, width: number, height: number, distance: Float32Array, wide: Uint8Array): { nodes: Node[]; edges: Edge[] } {
  const degree = new Uint8Array(skeleton.length);
  const pixels: number[] = [];
  for (let p = 0; p < skeleton.length; p++) {
    if (!skeleton[p]) continue;
    degree[p] = degreeOf(skeleton, width, height, p);
    pixels.push(p);
  }
  const nodeOf = new Int32Array(skeleton.length).fill(-1);
  const nodes: Node[] = [];
  const centre = (p: number): Point => [(p % width) + 0.5, Math.floor(p / width) + 0.5];
  for (const p of pixels) {
    if (degree[p] === 2 || degree[p] === 0 || nodeOf[p] !== -1) continue;
    // A junction is every touching pixel of three neighbours or more, as one node at their centre.
    const cluster = [p];
    nodeOf[p] = nodes.length;
    if ((degree[p] as number) >= 3) {
      for (let k = 0; k < cluster.length; k++) {
        for (const q of neighboursOf(cluster[k] as number, width, height)) {
          if (skeleton[q] && (degree[q] as number) >= 3 && nodeOf[q] === -1) {
            nodeOf[q] = nodes.length;
            cluster.push(q);
          }
        }
      }
    }
    let x = 0;
    let y = 0;
    let radius = 0;
    for (const q of cluster) {
      const [cx, cy] = centre(q);
      x += cx;
      y += cy;
      radius = Math.max(radius, distance[q] as number);
    }
    const attached = degree[p] === 1 && neighboursOf(p, width, height).some((q) => wide[q]);
    nodes.push({ x: x / cluster.length, y: y / cluster.length, radius, attached, ends: new Set() });
  }
  const edges: Edge[] = [];
  const visited = new Uint8Array(skeleton.length);
  const direct = new Set<number>();
  const addEdge = (path: number[], a: number, b: number) => {
    const points = path.map(centre);
    if (a >= 0) points[0] = [(nodes[a] as Node).x, (nodes[a] as Node).y];
    if (b >= 0) points[points.length - 1] = [(nodes[b] as Node).x, (nodes[b] as Node).y];
    const index = edges.length;
    edges.push({ points, pixels: path, a, b, alive: true });
    if (a >= 0) (nodes[a] as Node).ends.add(index * 2);
    if (b >= 0) (nodes[b] as Node).ends.add(index * 2 + 1);
  };
  for (const p of pixels) {
    const node = nodeOf[p] as number;
    if (node < 0) continue;
    for (const q of neighboursOf(p, width, height)) {
      if (!skeleton[q] || nodeOf[q] === node) continue;
      if (nodeOf[q] !== -1) {
        const key = Math.min(p, q) * skeleton.length + Math.max(p, q);
        if (direct.has(key)) continue;
        direct.add(key);
        addEdge([p, q], node, nodeOf[q] as number);
        continue;
      }
      if (visited[q]) continue;
      const path = [p, q];
      visited[q] = 1;
      let previous = p;
      let current = q;
      let end = -1;
      for (;;) {
        let next = -1;
        for (const r of neighboursOf(current, width, height)) {
          if (!skeleton[r] || r === previous) continue;
          // Back at a pixel of the node it left from, past the first step: a loop through that node.
          if (nodeOf[r] !== -1 && (nodeOf[r] !== node || path.length > 2)) {
            next = r;
            break;
          }
          if (nodeOf[r] === -1 && !visited[r]) next = r;
        }
        if (next < 0) break;
        path.push(next);
        if (nodeOf[next] !== -1) {
          end = nodeOf[next] as number;
          break;
        }
        visited[next] = 1;
        previous = current;
        current = next;
      }
      addEdge(path, node, end);
    }
  }
  // What is left of the skeleton is closed loops with no junction: an "o", a ring.
  for (const p of pixels) {
    if (visited[p] || nodeOf[p] !== -1 || degree[p] !== 2) continue;
    const path = [p];
    visited[p] = 1;
    let previous = -1;
    let current = p;
    for (;;) {
      let next = -1;
      for (const r of neighboursOf(current, width, height)) {
        if (skeleton[r] && r !== previous && !visited[r] && nodeOf[r] === -1) {
          next = r;
          break;
        }
      }
      if (next < 0) break;
      path.push(next);
      visited[next] = 1;
      previous = current;
      current = next;
    }
    if (path.length < 3) continue;
    path.push(p);
    addEdge(path, -1, -1);
  }
  return { nodes, edges };
}

function otherEnd(end: number): number {
  return end ^ 1;
}

function nodeAt(edge: Edge, end: number): number {
  return end % 2 === 0 ? edge.a : edge.b;
}

/** Removes an edge from the graph. */
function cut(nodes: Node[], edges: Edge[], index: number): void {
  const edge = edges[index] as Edge;
  edge.alive = false;
  if (edge.a >= 0) (nodes[edge.a] as Node).ends.delete(index * 2);
  if (edge.b >= 0) (nodes[edge.b] as Node).ends.delete(index * 2 + 1);
}

/** An edge's points leaving from `end` (its start for even ends, its end for odd ones). */
function pointsFrom(edge: Edge, end: number): Point[] {
  return end % 2 === 0 ? edge.points : [...edge.points].reverse();
}

function pixelsFrom(edge: Edge, end: number): number[] {
  return end % 2 === 0 ? edge.pixels : [...edge.pixels].reverse();
}

/** Joins the two edges meeting at a node of two into one edge. */
function dissolve(nodes: Node[], edges: Edge[], nodeIndex: number): void {
  const node = nodes[nodeIndex] as Node;
  const [first, second] = [...node.ends] as [number, number];
  const e1 = Math.floor(first / 2);
  const e2 = Math.floor(second / 2);
  if (e1 === e2) {
    // Both ends of one edge: it becomes a closed loop.
    const edge = edges[e1] as Edge;
    node.ends.clear();
    edge.a = -1;
    edge.b = -1;
    return;
  }
  const a = edges[e1] as Edge;
  const b = edges[e2] as Edge;
  // a runs into the node, b away from it.
  const into = pointsFrom(a, otherEnd(first));
  const intoPixels = pixelsFrom(a, otherEnd(first));
  const away = pointsFrom(b, second);
  const awayPixels = pixelsFrom(b, second);
  const start = nodeAt(a, otherEnd(first));
  const end = nodeAt(b, otherEnd(second));
  cut(nodes, edges, e1);
  cut(nodes, edges, e2);
  const index = edges.length;
  edges.push({ points: [...into, ...away.slice(1)], pixels: [...intoPixels, ...awayPixels], a: start, b: end, alive: true });
  if (start >= 0) (nodes[start] as Node).ends.add(index * 2);
  if (end >= 0) (nodes[end] as Node).ends.add(index * 2 + 1);
}

/**
 * Two junctions closer than the line is wide are one junction (thinning splits a crossing of
 * thick lines into two, a short run apart): the run goes, and the branches of both meet at their
 * middle.
 */
function contract(nodes: Node[], edges: Edge[], index: number): void {
  const edge = edges[index] as Edge;
  const keep = nodes[edge.a] as Node;
  const gone = nodes[edge.b] as Node;
  cut(nodes, edges, index);
  keep.x = (keep.x + gone.x) / 2;
  keep.y = (keep.y + gone.y) / 2;
  keep.radius = Math.max(keep.radius, gone.radius);
  for (const end of gone.ends) {
    const other = edges[Math.floor(end / 2)] as Edge;
    if (end % 2 === 0) other.a = edge.a;
    else other.b = edge.a;
    keep.ends.add(end);
  }
  gone.ends.clear();
  for (const end of keep.ends) {
    const points = (edges[Math.floor(end / 2)] as Edge).points;
    points[end % 2 === 0 ? 0 : points.length - 1] = [keep.x, keep.y];
  }
}

/** Spurs cut, close junctions joined, and nodes left with two branches dissolved, until nothing changes. */
function simplify(nodes: Node[], edges: Edge[], wideRadius: number, minimumLength: number): void {
  for (let pass = 0; pass < 4; pass++) {
    let changed = false;
    edges.forEach((edge, index) => {
      if (!edge.alive || edge.a < 0 || edge.a === edge.b) return;
      const a = nodes[edge.a] as Node;
      const b = edge.b >= 0 ? (nodes[edge.b] as Node) : undefined;
      if (!b) return;
      const length = pathLength(edge.points);
      const free = (node: Node) => node.ends.size === 1 && !node.attached;
      const junction = (node: Node) => node.ends.size >= 3;
      // A spur: a short branch from a junction to a free end.
      const spur = (end: Node, from: Node) => free(end) && junction(from) && length < SPUR_RATIO * from.radius;
      // A tip of a filled area: a short branch from the area's edge to a free end.
      const tip = (end: Node, from: Node) => from.attached && from.ends.size === 1 && end.ends.size === 1 && length < wideRadius;
      // A mark shorter than the finest line drawn: nothing a pen would draw.
      const speck = free(a) && free(b) && length < minimumLength;
      if (spur(a, b) || spur(b, a) || tip(a, b) || tip(b, a) || speck) {
        cut(nodes, edges, index);
        changed = true;
      } else if (junction(a) && junction(b) && length < Math.max(a.radius, b.radius)) {
        contract(nodes, edges, index);
        changed = true;
      }
    });
    nodes.forEach((node, index) => {
      if (node.ends.size === 2) {
        dissolve(nodes, edges, index);
        changed = true;
      }
    });
    if (!changed) break;
  }
}

/** The direction leaving a node along an edge end, taken `span` along it. */
function directionAt(edge: Edge, end: number, span: number): Point {
  const points = pointsFrom(edge, end);
  const origin = points[0] as Point;
  let travelled = 0;
  let target = points[points.length - 1] as Point;
  for (let i = 1; i < points.length; i++) {
    travelled += hypot((points[i] as Point)[0] - (points[i - 1] as Point)[0], (points[i] as Point)[1] - (points[i - 1] as Point)[1]);
    if (travelled >= span) {
      target = points[i] as Point;
      break;
    }
  }
  const dx = target[0] - origin[0];
  const dy = target[1] - origin[1];
  const length = hypot(dx, dy) || 1;
  return [dx / length, dy / length];
}

/** Strokes: edges chained through junctions where branches continue each other. */
function chainStrokes(nodes: Node[], edges: Edge[]): { points: Point[]; pixels: number[]; closed: boolean }[] {
  const partner = new Map<number, number>();
  const straight = Math.cos((CONTINUATION_ANGLE * Math.PI) / 180);
  for (const node of nodes) {
    if (node.ends.size < 3) continue;
    const ends = [...node.ends];
    const span = Math.max(3, 2 * node.radius);
    const directions = ends.map((end) => directionAt(edges[Math.floor(end / 2)] as Edge, end, span));
    const pairs: { i: number; j: number; straightness: number }[] = [];
    for (let i = 0; i < ends.length; i++) {
      for (let j = i + 1; j < ends.length; j++) {
        if (Math.floor((ends[i] as number) / 2) === Math.floor((ends[j] as number) / 2)) continue;
        const di = directions[i] as Point;
        const dj = directions[j] as Point;
        const straightness = -(di[0] * dj[0] + di[1] * dj[1]);
        if (straightness >= straight) pairs.push({ i, j, straightness });
      }
    }
    pairs.sort((x, y) => y.straightness - x.straightness);
    const taken = new Set<number>();
    for (const { i, j } of pairs) {
      if (taken.has(i) || taken.has(j)) continue;
      taken.add(i);
      taken.add(j);
      partner.set(ends[i] as number, ends[j] as number);
      partner.set(ends[j] as number, ends[i] as number);
    }
  }
  const done = new Uint8Array(edges.length);
  const strokes: { points: Point[]; pixels: number[]; closed: boolean }[] = [];
  const walk = (startEnd: number) => {
    const points: Point[] = [];
    const pixels: number[] = [];
    let end = startEnd;
    for (;;) {
      const index = Math.floor(end / 2);
      if (done[index]) break;
      done[index] = 1;
      const edge = edges[index] as Edge;
      const part = pointsFrom(edge, end);
      points.push(...(points.length > 0 ? part.slice(1) : part));
      pixels.push(...pixelsFrom(edge, end));
      const next = partner.get(otherEnd(end));
      if (next === undefined) break;
      end = next;
    }
    if (points.length < 2) return;
    const first = points[0] as Point;
    const last = points[points.length - 1] as Point;
    strokes.push({ points, pixels, closed: first[0] === last[0] && first[1] === last[1] });
  };
  // Chains with an end that continues nowhere first; what is left is loops through junctions.
  edges.forEach((edge, index) => {
    if (!edge.alive || done[index]) return;
    if (!partner.has(index * 2)) walk(index * 2);
    else if (!partner.has(index * 2 + 1)) walk(index * 2 + 1);
  });
  edges.forEach((edge, index) => {
    if (edge.alive && !done[index]) walk(index * 2);
  });
  return strokes;
}

interface StrokeFit {
  tolerance: number;
  smoothing: number;
  cornerAngle: number;
  cornerSpan: number;
}

function resample(points: Point[], step: number): Point[] {
  const out: Point[] = [points[0] as Point];
  for (let i = 1; i < points.length; i++) {
    const from = points[i - 1] as Point;
    const to = points[i] as Point;
    const pieces = Math.max(1, Math.ceil(hypot(to[0] - from[0], to[1] - from[1]) / step));
    for (let k = 1; k <= pieces; k++) out.push([from[0] + ((to[0] - from[0]) * k) / pieces, from[1] + ((to[1] - from[1]) * k) / pieces]);
  }
  return out;
}

/** Sharp turns: samples where the chords `span` before and after turn by more than the corner angle, the sharpest of each stretch. */
function strokeCorners(points: Point[], span: number, angle: number): number[] {
  const n = points.length;
  const reach = Math.max(1, Math.round(span));
  const limit = (angle * Math.PI) / 180;
  const turn = new Float64Array(n);
  for (let i = reach; i < n - reach; i++) {
    const a = points[i - reach] as Point;
    const b = points[i] as Point;
    const c = points[i + reach] as Point;
    let difference = Math.atan2(c[1] - b[1], c[0] - b[0]) - Math.atan2(b[1] - a[1], b[0] - a[0]);
    if (difference > Math.PI) difference -= 2 * Math.PI;
    if (difference < -Math.PI) difference += 2 * Math.PI;
    turn[i] = Math.abs(difference);
  }
  const corners: number[] = [];
  for (let i = reach; i < n - reach; i++) {
    if ((turn[i] as number) <= limit) continue;
    let sharpest = true;
    for (let j = Math.max(0, i - reach); j <= Math.min(n - 1, i + reach); j++) if ((turn[j] as number) > (turn[i] as number) || ((turn[j] as number) === (turn[i] as number) && j < i)) sharpest = false;
    if (sharpest) corners.push(i);
  }
  return corners;
}

function smooth(points: Point[], fixed: Set<number>, sigma: number): Point[] {
  if (sigma <= 0 || points.length < 5) return points;
  const reach = Math.ceil(2.5 * sigma);
  const weights = Array.from({ length: reach + 1 }, (_, d) => Math.exp(-(d * d) / (2 * sigma * sigma)));
  return points.map((point, i) => {
    if (fixed.has(i)) return point;
    let x = point[0] * (weights[0] as number);
    let y = point[1] * (weights[0] as number);
    let total = weights[0] as number;
    for (const direction of [1, -1]) {
      for (let d = 1; d <= reach; d++) {
        const j = i + direction * d;
        if (j < 0 || j >= points.length) break;
        const other = points[j] as Point;
        x += other[0] * (weights[d] as number);
        y += other[1] * (weights[d] as number);
        total += weights[d] as number;
        if (fixed.has(j)) break;
      }
    }
    return [x / total, y / total];
  });
}

function unitVector(dx: number, dy: number): Point {
  const length = hypot(dx, dy) || 1;
  return [dx / length, dy / length];
}

/** Appends one stroke as an open subpath: corners kept, straight runs as lines, the rest as few cubics. */
function appendStroke(stroke: Stroke, options: StrokeFit, out: PathGeometry): void {
  const sampled = resample(stroke.points, 1);
  const corners = strokeCorners(sampled, options.cornerSpan, options.cornerAngle);
  const fixed = new Set([0, sampled.length - 1, ...corners]);
  const points = smooth(sampled, fixed, options.smoothing);
  const cuts = [...fixed].sort((a, b) => a - b);
  const first = points[0] as Point;
  out.commands.push(PathCommand.move);
  out.coords.push(first[0], first[1]);
  for (let c = 0; c + 1 < cuts.length; c++) {
    const run = points.slice(cuts[c] as number, (cuts[c + 1] as number) + 1);
    const a = run[0] as Point;
    const b = run[run.length - 1] as Point;
    const chord = hypot(b[0] - a[0], b[1] - a[1]);
    const straight =
      run.length <= 2 ||
      run.every((p) => (chord === 0 ? hypot(p[0] - a[0], p[1] - a[1]) : Math.abs((p[0] - a[0]) * (b[1] - a[1]) - (p[1] - a[1]) * (b[0] - a[0])) / chord) <= options.tolerance);
    if (straight && chord > 0) {
      out.commands.push(PathCommand.line);
      out.coords.push(b[0], b[1]);
      continue;
    }
    const span = Math.min(run.length - 1, Math.max(1, Math.round(options.cornerSpan / 2)));
    const start = unitVector((run[span] as Point)[0] - a[0], (run[span] as Point)[1] - a[1]);
    const end = unitVector((run[run.length - 1 - span] as Point)[0] - b[0], (run[run.length - 1 - span] as Point)[1] - b[1]);
    // Every other sample is enough for the fit (smoothed, they lie on a curve), at half the cost.
    const thinned = run.length > 8 ? run.filter((_, i) => i % 2 === 0 || i === run.length - 1) : run;
    const coords: number[] = [];
    fitCubics(thinned, start, end, options.tolerance * options.tolerance, coords);
    for (let at = 0; at + 5 < coords.length; at += 6) {
      out.commands.push(PathCommand.cubic);
      for (let k = 0; k < 6; k++) out.coords.push(coords[at + k] as number);
    }
  }
}

/**
 * Traces the working image's ink as centerline strokes and filled areas, on a grid `upscale`
 * times finer. Shapes are in that grid's coordinates; the paper is not drawn (a plotter draws
 * on it).
 */
export async function traceCenterline(working: RgbaImage, params: TraceParams, config: (upscale: number) => Config): Promise<CenterlineTrace> {
  const upscale = centerlineUpscale(working.width, working.height);
  const width = working.width * upscale;
  const height = working.height * upscale;
  const separation = separateInk(working.rgba, working.width, working.height);
  const binary = binariseInk(separation.normalised, working.width, working.height, upscale, separation.threshold);
  const ink = new Uint8Array(width * height);
  for (let p = 0; p < ink.length; p++) ink[p] = (binary[p * 4] as number) < 128 ? 1 : 0;
  const distance = distanceToZero(ink, width, height);

  // Dots and specks: ink spots hardly longer than wide, or too small to keep at all.
  const tracerConfig = config(upscale);
  const speck = tracerConfig.filterSpeckle ?? 0;
  const members = components(ink, width, height);
  const filled = new Uint8Array(ink.length);
  const lines = Uint8Array.from(ink);
  for (const pixels of members) {
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    let radius = 0;
    for (const p of pixels) {
      const x = p % width;
      const y = (p - x) / width;
      x0 = Math.min(x0, x);
      y0 = Math.min(y0, y);
      x1 = Math.max(x1, x);
      y1 = Math.max(y1, y);
      radius = Math.max(radius, distance[p] as number);
    }
    const extent = hypot(x1 - x0 + 1, y1 - y0 + 1);
    const isSpeck = pixels.length < speck * speck;
    const isDot = extent < DOT_RATIO * 2 * radius;
    if (!isSpeck && !isDot) continue;
    for (const p of pixels) {
      lines[p] = 0;
      if (isDot && !isSpeck) filled[p] = 1;
    }
  }

  const skeleton = thin(lines, width, height);
  // The typical line: the median half-width along the middles of the lines.
  const halfWidths: number[] = [];
  for (let p = 0; p < skeleton.length; p++) if (skeleton[p]) halfWidths.push((distance[p] as number) - 0.5);
  const typical = Math.max(0.5, median(halfWidths));
  const wideRadius = Math.max(WIDE_RATIO * typical, typical + 1.5 * upscale);
  // Areas much wider than a line: every ink pixel within reach of a point that far from the paper.
  const core = new Uint8Array(ink.length);
  let anyCore = false;
  for (let p = 0; p < ink.length; p++) {
    if (lines[p] && (distance[p] as number) - 0.5 > wideRadius) {
      core[p] = 1;
      anyCore = true;
    }
  }
  const wide = new Uint8Array(ink.length);
  if (anyCore) {
    const outside = Uint8Array.from(core, (value) => (value ? 0 : 1));
    const toCore = distanceToZero(outside, width, height, false);
    for (let p = 0; p < ink.length; p++) {
      if (lines[p] && (toCore[p] as number) <= 1.4 * wideRadius) {
        wide[p] = 1;
        filled[p] = 1;
      }
    }
  }
  for (let p = 0; p < skeleton.length; p++) if (wide[p]) skeleton[p] = 0;

  const { nodes, edges } = buildGraph(skeleton, width, height, distance, wide);
  simplify(nodes, edges, wideRadius, Math.max(1, typical));
  const chains = chainStrokes(nodes, edges);
  const inkColour = separation.ink;

  // Widths in classes a step of WIDTH_STEP apart, from the typical line's.
  const typicalWidth = Math.max(MIN_STROKE_WIDTH * upscale, 2 * typical + 0.5);
  const classes = new Map<number, Stroke[]>();
  for (const chain of chains) {
    // Under a pixel of the image long (a loop between two junctions that met in one point) is no
    // stroke: written at the document's precision it is a point, which a cutter or plotter drops.
    if (pathLength(chain.points) < upscale) continue;
    // Twice the distance to the paper at a pixel's centre is a line's width less half a pixel on average.
    const strokeWidth = Math.max(MIN_STROKE_WIDTH * upscale, median(chain.pixels.map((p) => 2 * (distance[p] as number) - 0.5)));
    const step = Math.round(Math.log(strokeWidth / typicalWidth) / Math.log(WIDTH_STEP));
    const list = classes.get(step) ?? [];
    list.push({ points: chain.points, closed: chain.closed });
    classes.set(step, list);
  }
  const fit: StrokeFit = {
    tolerance: (fittingTolerance(params.segmentLength) * upscale) / 2,
    smoothing: Math.max(1, 0.75 * upscale),
    cornerAngle: params.cornerThreshold,
    cornerSpan: Math.max(2 * upscale, typicalWidth),
  };
  const strokeShapes: TracedShape[] = [];
  let pen: Point = [0, 0];
  let ordered = 0;
  let unordered = 0;
  for (const [step, strokes] of [...classes.entries()].sort((a, b) => a[0] - b[0])) {
    unordered += penUpTravel(strokes, pen);
    const order = orderStrokes(strokes, pen);
    ordered += penUpTravel(order, pen);
    const last = order[order.length - 1];
    if (last) pen = last.points[last.points.length - 1] as Point;
    const geometry: PathGeometry = { commands: [], coords: [] };
    for (const stroke of order) appendStroke(stroke, fit, geometry);
    strokeShapes.push({ fill: flat(inkColour), opacity: 1, paths: [geometry], stroke: { width: typicalWidth * WIDTH_STEP ** step } });
  }

  // Filled areas (wide ink and dots) traced as outlines, in the ink's colour, under the strokes.
  let areas: TracedShape[] = [];
  if (filled.some((value) => value === 1)) {
    const pixels = Buffer.alloc(width * height * 4, 255);
    for (let p = 0; p < filled.length; p++) if (filled[p]) pixels.fill(0, p * 4, p * 4 + 3);
    areas = parseTracerSvg(await runTracer(pixels, width, height, tracerConfig), STRAIGHT_TOLERANCE);
    for (const shape of areas) {
      shape.fill = flat(inkColour);
      shape.opacity = 1;
    }
  }
  return { shapes: [...areas, ...strokeShapes], width, height, upscale, ink: inkColour, travel: { ordered, unordered } };
}
