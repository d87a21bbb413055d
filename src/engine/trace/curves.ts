// Smooth outlines from the tracer's polygons. VTracer's own splines follow the traced grid
// closely: on a grid finer than the source, that is a node per source pixel, wiggles included.
// Here each closed polygon is cut at its corners, and every run between corners becomes either
// one straight line or as few cubic Béziers as keep within `tolerance` of it (Schneider's
// fitting, cubic-fit.ts). Straight edges stay straight, corners stay corners, and a
// round shape takes a few curves whatever the grid it was traced on.

import { fitCubics } from './cubic-fit.ts';
import { ellipseCubics, fitEllipse } from './ellipse-fit.ts';
import { hypot, PathCommand, type PathGeometry } from '../geometry.ts';

export interface CurveOptions {
  /** Largest distance (traced pixels) a fitted curve may stray from the polygon. */
  tolerance: number;
  /** A turn sharper than this (degrees), measured over `cornerSpan` on each side, is a corner. */
  cornerAngle: number;
  /** Arc length (traced pixels) over which the direction on each side of a vertex is taken. */
  cornerSpan: number;
  /** Polygons are sampled this often (traced pixels) for fitting. */
  sampleStep: number;
  /** A smooth run is also cut where its direction has turned by this much (degrees) since the last cut. */
  spliceAngle: number;
  /**
   * Standard deviation (traced pixels) of the smoothing along the outline before fitting: on a
   * grid finer than the source, an edge taken from the source's pixels wavers with their period.
   */
  smoothing: number;
  /**
   * A run from one corner to the next that keeps within this distance (traced pixels) of its
   * chord is a straight side: a notch of the grid beside a corner, or the waver of an edge taken
   * from anti-aliased pixels, is a fraction of a working pixel, and a side must not bend by it.
   */
  straightTolerance: number;
  /**
   * A corner's window may turn at most this many times its core (CORNER_ISOLATION, for the
   * tracer's polygons); unset for pixel outlines, whose every window holds several steps.
   */
  cornerIsolation?: number;
  /**
   * The side (traced pixels) of the pixels the region map was drawn from, when it was drawn finer
   * than them: a diagonal edge there can come out as a staircase of such pixels, whose every step
   * would read as a corner (stairsFlattened).
   */
  stairStep?: number;
}

type Point = [number, number];

/** The closed polygons of a geometry (move, lines, close), as vertex loops without the repeated end. */
function loopsOf(geometry: PathGeometry): Point[][] {
  const loops: Point[][] = [];
  let current: Point[] = [];
  let at = 0;
  for (const command of geometry.commands) {
    if (command === PathCommand.close) {
      if (current.length > 0) loops.push(current);
      current = [];
      continue;
    }
    if (command === PathCommand.move && current.length > 0) {
      loops.push(current);
      current = [];
    }
    if (command === PathCommand.cubic) {
      // Polygons only; a cubic (from another mode) is taken by its end point.
      current.push([geometry.coords[at + 4] as number, geometry.coords[at + 5] as number]);
      at += 6;
      continue;
    }
    const point: Point = [geometry.coords[at] as number, geometry.coords[at + 1] as number];
    at += 2;
    const last = current[current.length - 1];
    if (!last || last[0] !== point[0] || last[1] !== point[1]) current.push(point);
  }
  if (current.length > 0) loops.push(current);
  return loops.map((loop) => {
    const first = loop[0] as Point;
    const last = loop[loop.length - 1] as Point;
    return loop.length > 1 && first[0] === last[0] && first[1] === last[1] ? loop.slice(0, -1) : loop;
  });
}

/**
 * The point at arc length `distance` from vertex i, walking forward (+1) or backward (-1) round
 * the loop, written to `out`: no array per call (it is called a few times per vertex).
 */
function pointAlong(loop: Point[], i: number, distance: number, direction: 1 | -1, out: Float64Array): void {
  const n = loop.length;
  let from = loop[i] as Point;
  let left = distance;
  for (let step = 1; step <= n; step++) {
    const to = loop[(((i + direction * step) % n) + n) % n] as Point;
    const length = hypot(to[0] - from[0], to[1] - from[1]);
    if (length >= left) {
      const f = left / length;
      out[0] = from[0] + f * (to[0] - from[0]);
      out[1] = from[1] + f * (to[1] - from[1]);
      return;
    }
    left -= length;
    from = to;
  }
  out[0] = from[0];
  out[1] = from[1];
}

/** Points found by pointAlong, before and after a vertex: reused, as nothing here runs concurrently. */
const BEFORE = new Float64Array(2);
const AFTER = new Float64Array(2);

/** A window turning more than this (radians) turns back on itself: two corners. */
const U_TURN = (3 * Math.PI) / 4;

/**
 * Buffers of the per-vertex and per-sample measures, reused from loop to loop (each holds at least
 * the loop's length; what lies past it is not read): a large picture has 10⁵ loops of a few
 * vertices, and the dozen typed arrays made for each were most of what fitting allocated.
 */
const FLOATS: Float64Array[] = [];
const INTS: Int32Array[] = [];
const BYTES: Uint8Array[] = [];

/** The reused buffer in `slot` of `pool`, grown to hold at least n. */
function buffer<T extends Float64Array | Int32Array | Uint8Array>(pool: T[], slot: number, n: number, make: (length: number) => T): T {
  let found = pool[slot];
  if (!found || found.length < n) {
    found = make(Math.max(n, 2 * (found?.length ?? 32)));
    pool[slot] = found;
  }
  return found;
}

/** Each buffer's one use: a slot is never read by two measures at once. */
const FLOAT = { turns: 0, lengths: 1, windowTurn: 2, core: 3 } as const;
const INT = { windowFirst: 0, windowLast: 1, coreFirst: 2, coreLast: 3, replaceFrom: 4 } as const;
const BYTE = { claimed: 0, skip: 1, sampledCorner: 2, fixed: 3, cut: 4 } as const;

const floats = (slot: number, n: number) => buffer(FLOATS, slot, n, (length) => new Float64Array(length));
const ints = (slot: number, n: number) => buffer(INTS, slot, n, (length) => new Int32Array(length));
/** Bytes zeroed for the first n. */
const zeroBytes = (slot: number, n: number) => buffer(BYTES, slot, n, (length) => new Uint8Array(length)).fill(0, 0, n);

/** The signed turn at each vertex, between the segments before and after it. */
function vertexTurns(loop: Point[], turns: Float64Array): Float64Array {
  const n = loop.length;
  for (let i = 0; i < n; i++) {
    const a = loop[(i - 1 + n) % n] as Point;
    const b = loop[i] as Point;
    const c = loop[(i + 1) % n] as Point;
    let difference = Math.atan2(c[1] - b[1], c[0] - b[0]) - Math.atan2(b[1] - a[1], b[0] - a[0]);
    if (difference > Math.PI) difference -= 2 * Math.PI;
    if (difference < -Math.PI) difference += 2 * Math.PI;
    turns[i] = difference;
  }
  return turns;
}

/** Arc length from each vertex to the next. */
function edgeLengths(loop: Point[], lengths: Float64Array): Float64Array {
  const n = loop.length;
  for (let i = 0; i < n; i++) {
    const a = loop[i] as Point;
    const b = loop[(i + 1) % n] as Point;
    lengths[i] = hypot(b[0] - a[0], b[1] - a[1]);
  }
  return lengths;
}

/** Where the line through a in direction u meets the line through b in direction v, if they meet. */
function intersect(a: Point, u: Point, b: Point, v: Point): Point | null {
  const denominator = u[0] * v[1] - u[1] * v[0];
  if (Math.abs(denominator) < 1e-6) return null;
  const t = ((b[0] - a[0]) * v[1] - (b[1] - a[1]) * v[0]) / denominator;
  return [a[0] + t * u[0], a[1] + t * u[1]];
}

/**
 * The turn summed over the vertices within `span` of each vertex along the outline (of n), with
 * the first and last vertex of that window, written to `sum` (when given), `first` and `last`.
 */
function windowTurns(turns: Float64Array, lengths: Float64Array, n: number, span: number, sum: Float64Array | undefined, first: Int32Array, last: Int32Array): void {
  for (let i = 0; i < n; i++) {
    let total = turns[i] as number;
    let j = i;
    for (let distance = 0, steps = 0; steps < n - 1; steps++) {
      const previous = (j - 1 + n) % n;
      distance += lengths[previous] as number;
      if (distance > span) break;
      j = previous;
      total += turns[j] as number;
    }
    first[i] = j;
    let k = i;
    for (let distance = 0, steps = 0; steps < n - 1; steps++) {
      distance += lengths[k] as number;
      if (distance > span) break;
      k = (k + 1) % n;
      total += turns[k] as number;
    }
    last[i] = k;
    if (sum) sum[i] = total;
  }
}

/**
 * A corner's turn is concentrated: most of what the outline turns within `cornerSpan` it turns
 * within half of it. Along a circle the turn grows with the span (half the span, half the
 * turn), so a dot a few pixels across, whose every window turns past the corner angle, stays round.
 */
const CORNER_CONCENTRATION = 0.6;
/**
 * A corner stands alone in its window: the window turns at most this many times the corner's
 * core. A small round shape traced as a coarse polygon (an emoji's eye two or three pixels
 * across, as five or six sides) turns as sharply at each vertex, but its window takes in its
 * neighbours' turns too; without this rule such eyes and noses came out as triangles. Measured
 * on bench/upscale: the emoji pairs' median SSIM 0.842 → 0.848; windows of 2–3 px in the shrunk
 * cityscape round off a little more (0.875 → 0.868), the shrunk set's median 0.880 → 0.878.
 */
export const CORNER_ISOLATION = 1.6;

/**
 * How much the outline turns at vertex i, between the chord from `span` before it and the chord
 * to `span` after it: measured on chords, not summed over vertices, so the grid's steps (turns
 * of 45° or 90° each) average out.
 */
function chordTurn(loop: Point[], i: number, span: number): number {
  const here = loop[i] as Point;
  pointAlong(loop, i, span, -1, BEFORE);
  pointAlong(loop, i, span, 1, AFTER);
  let difference = Math.atan2((AFTER[1] as number) - here[1], (AFTER[0] as number) - here[0]) - Math.atan2(here[1] - (BEFORE[1] as number), here[0] - (BEFORE[0] as number));
  if (difference > Math.PI) difference -= 2 * Math.PI;
  if (difference < -Math.PI) difference += 2 * Math.PI;
  return Math.abs(difference);
}

/**
 * A vertex that turns past the limit by itself at the end of a straight side at least this many
 * corner spans long is a corner even when another corner shares its window: the end of a line a
 * pixel wide (an icon's outline or highlight, a ruled line), whose two corners lie a pixel apart.
 * Held to CORNER_ISOLATION, neither was a corner, and the whole line was fitted as one smooth
 * loop: its long sides bowed out by up to a pixel and its ends came out round.
 */
const LINE_SIDE_SPANS = 2;

/** Whether vertex i is a corner (sharpenCorners): its window turns past the limit, concentrated and alone, or it ends a long straight side. */
function isCorner(loop: Point[], i: number, windowTurn: Float64Array, core: Float64Array, turns: Float64Array, lengths: Float64Array, limit: number, options: CurveOptions): boolean {
  // core[i] is measured only once the first test has passed.
  if (!(Math.abs(windowTurn[i] as number) > limit) || !((core[i] as number) >= CORNER_CONCENTRATION * Math.max(limit, chordTurn(loop, i, options.cornerSpan)))) return false;
  if (Math.abs(windowTurn[i] as number) <= (options.cornerIsolation ?? Infinity) * (core[i] as number)) return true;
  const n = loop.length;
  const side = Math.max(lengths[(i - 1 + n) % n] as number, lengths[i] as number);
  return Math.abs(turns[i] as number) > limit && side >= LINE_SIDE_SPANS * options.cornerSpan;
}

/**
 * Corners, sharpened. The grid and the resampling round a corner off into a few vertices that
 * each turn a little: the turn is summed over `cornerSpan` either side of every vertex, and
 * where the sum exceeds the corner angle (the largest such sum around), those vertices give
 * way to one: where the straight-ish outline before the corner meets the one after it. A
 * corner's turn must also be concentrated (CORNER_CONCENTRATION), and corners claim only the
 * core of their windows, so a small round dot keeps no corners and a small square keeps four.
 */
function sharpenCorners(loop: Point[], options: CurveOptions): { loop: Point[]; corners: number[] } {
  const n = loop.length;
  if (n < 3) return { loop, corners: [] };
  const limit = (options.cornerAngle * Math.PI) / 180;
  const turns = vertexTurns(loop, floats(FLOAT.turns, n));
  const lengths = edgeLengths(loop, floats(FLOAT.lengths, n));
  const windowTurn = floats(FLOAT.windowTurn, n);
  const windowFirst = ints(INT.windowFirst, n);
  const windowLast = ints(INT.windowLast, n);
  windowTurns(turns, lengths, n, options.cornerSpan, windowTurn, windowFirst, windowLast);
  // How sharply each vertex turns over half the span, on chords: a corner's strength, and what
  // tells it from a curve (see CORNER_CONCENTRATION). Measured only where the window turns past
  // the limit, the only vertices that can be corners: most loops have none.
  const core = floats(FLOAT.core, n);
  // Corners: windows turning beyond the limit, each the strongest among the windows it overlaps.
  const order: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!(Math.abs(windowTurn[i] as number) > limit)) continue;
    core[i] = chordTurn(loop, i, options.cornerSpan / 2);
    if (isCorner(loop, i, windowTurn, core, turns, lengths, limit, options)) order.push(i);
  }
  if (order.length === 0) return { loop, corners: [] };
  // The sharpest first: on a corner's window, the vertex where it turns (not one at the window's
  // edge, which would claim the outline on both sides of it).
  const strength = (i: number): number => (core[i] as number) + 1e-3 * Math.abs(turns[i] as number);
  if (order.length > 1) order.sort((a, b) => strength(b) - strength(a));
  // The core of a window (half its span) is what a corner claims: two corners a span apart
  // (the ends of a side a few pixels long) both stay corners.
  const first = ints(INT.coreFirst, n);
  const last = ints(INT.coreLast, n);
  windowTurns(turns, lengths, n, options.cornerSpan / 2, undefined, first, last);
  const claimed = zeroBytes(BYTE.claimed, n);
  const chosen: number[] = [];
  for (const i of order) {
    let free = true;
    for (let j = first[i] as number; ; j = (j + 1) % n) {
      if (claimed[j]) free = false;
      if (j === last[i]) break;
    }
    if (!free) continue;
    for (let j = first[i] as number; ; j = (j + 1) % n) {
      claimed[j] = 1;
      if (j === last[i]) break;
    }
    chosen.push(i);
  }
  if (chosen.length === 0) return { loop, corners: [] };
  // Each corner's window becomes one vertex, at the meeting of the outline's directions before and after it.
  const replaceFrom = ints(INT.replaceFrom, n).fill(-1, 0, n);
  const position = new Map<number, Point>();
  const keepAsIs: number[] = [];
  // A corner replaces its whole window, but no further than halfway to the next corner either
  // side: the cores keep two corners a span apart, their windows may overlap.
  const inOrder = [...chosen];
  if (inOrder.length > 1) inOrder.sort((x, y) => x - y);
  const back = (from: number, to: number): number => (from - to + n) % n;
  for (const [k, i] of inOrder.entries()) {
    const previous = inOrder[(k - 1 + inOrder.length) % inOrder.length] as number;
    const next = inOrder[(k + 1) % inOrder.length] as number;
    const roomBefore = inOrder.length > 1 ? Math.floor((back(i, previous) - 1) / 2) : n;
    const roomAfter = inOrder.length > 1 ? Math.floor((back(next, i) - 1) / 2) : n;
    const a = back(i, windowFirst[i] as number) <= roomBefore ? (windowFirst[i] as number) : (i - roomBefore + n) % n;
    const b = back(windowLast[i] as number, i) <= roomAfter ? (windowLast[i] as number) : (i + roomAfter) % n;
    // Turning back on itself within the window (the end of a line a pixel wide) is two corners,
    // not one: its sharpest vertices stay corners where they are.
    if (Math.abs(windowTurn[i] as number) > U_TURN) {
      for (let j = a; ; j = (j + 1) % n) {
        if (Math.abs(turns[j] as number) >= limit / 2) keepAsIs.push(j);
        if (j === b) break;
      }
      continue;
    }
    pointAlong(loop, a, options.cornerSpan, -1, BEFORE);
    pointAlong(loop, b, options.cornerSpan, 1, AFTER);
    const entry = loop[a] as Point;
    const exit = loop[b] as Point;
    const meeting = intersect(
      entry,
      unit(entry[0] - (BEFORE[0] as number), entry[1] - (BEFORE[1] as number)),
      exit,
      unit((AFTER[0] as number) - exit[0], (AFTER[1] as number) - exit[1]),
    );
    const here = loop[i] as Point;
    const sharp = meeting && hypot(meeting[0] - here[0], meeting[1] - here[1]) <= 2 * options.cornerSpan ? meeting : here;
    replaceFrom[a] = b;
    position.set(a, sharp);
  }
  const out: Point[] = [];
  const corners: number[] = [];
  const skip = zeroBytes(BYTE.skip, n);
  for (let a = 0; a < n; a++) {
    const b = replaceFrom[a] as number;
    if (b < 0) continue;
    for (let j = a; ; j = (j + 1) % n) {
      skip[j] = 1;
      if (j === b) break;
    }
    skip[a] = 2;
  }
  const asIs = new Set(keepAsIs);
  for (let i = 0; i < n; i++) {
    if (skip[i] === 1) continue;
    if (skip[i] === 2) {
      corners.push(out.length);
      out.push(position.get(i) as Point);
    } else {
      if (asIs.has(i)) corners.push(out.length);
      out.push(loop[i] as Point);
    }
  }
  return { loop: out, corners };
}

/** Whether every point of the run lies within `distance` of the chord a–b (or of a, where the chord has no length), the chord measured once. */
function withinChord(run: Point[], a: Point, b: Point, distance: number): boolean {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const length = hypot(dx, dy);
  for (const point of run) {
    const off = length === 0 ? hypot(point[0] - a[0], point[1] - a[1]) : Math.abs((point[0] - a[0]) * dy - (point[1] - a[1]) * dx) / length;
    if (!(off <= distance)) return false;
  }
  return true;
}

function unit(dx: number, dy: number): Point {
  const length = hypot(dx, dy) || 1;
  return [dx / length, dy / length];
}

/** Appends one run as a line or fitted cubics; the pen is at the run's first point. */
function appendRun(run: Point[], options: CurveOptions, tangents: { start?: Point; end?: Point }, out: PathGeometry): void {
  const first = run[0] as Point;
  const last = run[run.length - 1] as Point;
  const betweenCorners = !tangents.start && !tangents.end;
  const straight = betweenCorners ? Math.max(options.tolerance, options.straightTolerance) : options.tolerance;
  if (withinChord(run, first, last, straight)) {
    out.commands.push(PathCommand.line);
    out.coords.push(last[0], last[1]);
    return;
  }
  const points = run;
  // The direction at each end: given (smooth joins) or taken over a short span of the run itself.
  const span = Math.min(points.length - 1, Math.max(1, Math.round(options.cornerSpan / options.sampleStep)));
  const startPoint = points[span] as Point;
  const endPoint = points[points.length - 1 - span] as Point;
  const start = tangents.start ?? unit(startPoint[0] - first[0], startPoint[1] - first[1]);
  const end = tangents.end ?? unit(endPoint[0] - last[0], endPoint[1] - last[1]);
  const before = out.coords.length;
  fitCubics(points, start, end, options.tolerance * options.tolerance, out.coords);
  for (let at = before; at < out.coords.length; at += 6) out.commands.push(PathCommand.cubic);
}


/** A loop sampled every `step` along its length; `fixed` marks samples at corners. */
function sampleLoop(loop: Point[], corners: number[], step: number): { points: Point[]; fixed: Uint8Array; cornerAt: number[] } {
  const isCorner = zeroBytes(BYTE.sampledCorner, loop.length);
  for (const corner of corners) isCorner[corner] = 1;
  const points: Point[] = [];
  const fixedList: number[] = [];
  const cornerAt: number[] = [];
  const n = loop.length;
  const start = corners[0] ?? 0;
  for (let k = 0; k < n; k++) {
    const i = (start + k) % n;
    const from = loop[i] as Point;
    const to = loop[(i + 1) % n] as Point;
    if (isCorner[i]) {
      cornerAt.push(points.length);
      fixedList.push(points.length);
    }
    const length = hypot(to[0] - from[0], to[1] - from[1]);
    const pieces = Math.max(1, Math.ceil(length / step));
    for (let p = 0; p < pieces; p++) points.push([from[0] + ((to[0] - from[0]) * p) / pieces, from[1] + ((to[1] - from[1]) * p) / pieces]);
  }
  // Reused: read only while this loop is fitted.
  const fixed = zeroBytes(BYTE.fixed, points.length);
  for (const at of fixedList) fixed[at] = 1;
  return { points, fixed, cornerAt };
}

/** Gaussian smoothing of a sampled loop along its length; corners stay put and are not smoothed across. */
function smoothLoop(points: Point[], fixed: Uint8Array, sigma: number): Point[] {
  const n = points.length;
  if (sigma <= 0 || n < 5) return points;
  const reach = Math.min(Math.floor((n - 1) / 2), Math.ceil(3 * sigma));
  const weights = Array.from({ length: reach + 1 }, (_, d) => Math.exp(-(d * d) / (2 * sigma * sigma)));
  const smoothed: Point[] = [];
  for (let i = 0; i < n; i++) {
    const point = points[i] as Point;
    if (fixed[i]) {
      smoothed.push(point);
      continue;
    }
    let x = point[0] * (weights[0] as number);
    let y = point[1] * (weights[0] as number);
    let total = weights[0] as number;
    // Forward, then backward (direction 1, then -1).
    for (let direction = 1; direction >= -1; direction -= 2) {
      for (let d = 1; d <= reach; d++) {
        const j = (((i + direction * d) % n) + n) % n;
        const other = points[j] as Point;
        const w = weights[d] as number;
        x += other[0] * w;
        y += other[1] * w;
        total += w;
        if (fixed[j]) break;
      }
    }
    smoothed.push([x / total, y / total]);
  }
  return smoothed;
}

/** Samples (between cuts) where the direction has turned, net, by the splice angle since the last cut. */
function splicePoints(points: Point[], isCut: Uint8Array, options: CurveOptions): number[] {
  const n = points.length;
  const limit = (options.spliceAngle * Math.PI) / 180;
  const span = Math.max(1, Math.round(options.cornerSpan / options.sampleStep));
  const splices: number[] = [];
  let turned = 0;
  let previous: number | undefined;
  let sinceCut = span;
  for (let i = 0; i < n; i++) {
    if (isCut[i]) {
      turned = 0;
      previous = undefined;
      sinceCut = 0;
      continue;
    }
    // The heading is taken from samples after the last cut only: across a corner it would read
    // the corner's own turn and cut the side again a span after it.
    sinceCut = Math.min(span, sinceCut + 1);
    const a = points[(((i - sinceCut) % n) + n) % n] as Point;
    const b = points[i] as Point;
    const heading = Math.atan2(b[1] - a[1], b[0] - a[0]);
    if (previous !== undefined) {
      let difference = heading - previous;
      if (difference > Math.PI) difference -= 2 * Math.PI;
      if (difference < -Math.PI) difference += 2 * Math.PI;
      // The net turn: whatever wavering is left turns left and right and cancels out.
      turned += difference;
      if (Math.abs(turned) > limit) {
        splices.push(i);
        turned = 0;
      }
    }
    previous = heading;
  }
  return splices;
}

/** The samples from `from` to `to` (inclusive) round the loop. */
function samplesBetween(points: Point[], from: number, to: number): Point[] {
  const n = points.length;
  const run: Point[] = [];
  for (let i = from; ; i = (i + 1) % n) {
    run.push(points[i] as Point);
    if (i === to && run.length > 1) break;
  }
  return run;
}

/** The direction of a smooth outline at sample i. */
function tangentAt(points: Point[], i: number, span: number): Point {
  const n = points.length;
  const before = points[(((i - span) % n) + n) % n] as Point;
  const after = points[(i + span) % n] as Point;
  return unit(after[0] - before[0], after[1] - before[1]);
}

/** Edges in a row that make a staircase: at least this many, turning left and right in turn. */
const STAIR_EDGES = 3;
/** ... and, in an outline with no edge longer than a tread (traced raw), at least this many. */
const ROUND_STAIR_EDGES = 6;
/** A staircase's tread (the edges along its other axis) is at most this many steps long. */
const STAIR_TREAD = 8;

/**
 * A staircase of `step`-sized steps (axis-aligned edges at most a step long, turning left and right
 * in turn, three edges or more) drawn through the middles of its edges: the diagonal or the curve
 * it stands for. The region map of a small image is drawn finer than its pixels, with each edge
 * placed from the anti-aliasing; where that cannot tell the position (an edge at 45°, one pixel of
 * ramp per row) the map keeps the pixels' steps, and each step, a pixel across, turned as sharply
 * as a corner within the corner span: a circle's edge came out as a straight line, a notch and a
 * curve. One step alone (a notch) is left as it is.
 */
export function stairsFlattened(loop: Point[], step: number): Point[] {
  const n = loop.length;
  if (n < STAIR_EDGES + 1) return loop;
  const limit = step * 1.01;
  const at = (i: number): Point => loop[((i % n) + n) % n] as Point;
  // Edge i runs from vertex i to vertex i + 1: 0 along x, 1 along y, -1 when not a stair edge
  // (slanted, or longer than a stair's tread can be); short when at most a step long.
  const axis = new Int8Array(n).fill(-1);
  const short = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const [ax, ay] = at(i);
    const [bx, by] = at(i + 1);
    const dx = Math.abs(bx - ax);
    const dy = Math.abs(by - ay);
    if (dy < 1e-9 && dx > 0 && dx <= STAIR_TREAD * limit) axis[i] = 0;
    else if (dx < 1e-9 && dy > 0 && dy <= STAIR_TREAD * limit) axis[i] = 1;
    short[i] = Math.max(dx, dy) <= limit ? 1 : 0;
  }
  // The way the outline turns at vertex i (between edges i - 1 and i): -1, 0 or 1.
  const turnAt = (i: number): number => {
    const [ax, ay] = at(i - 1);
    const [bx, by] = at(i);
    const [cx, cy] = at(i + 1);
    return Math.sign((bx - ax) * (cy - by) - (by - ay) * (cx - bx));
  };
  // linked[i]: edge i carries on the staircase of edge i - 1 (both stair edges, across each
  // other, and turning the other way from the vertex before when that one is in it too).
  const joins = (i: number): boolean => {
    const previous = (i - 1 + n) % n;
    return (axis[i] as number) >= 0 && (axis[previous] as number) >= 0 && axis[i] !== axis[previous];
  };
  const linked = new Uint8Array(n);
  // Start where a staircase cannot carry on from the edge before, so every run is read from its start.
  let begin = -1;
  for (let i = 0; i < n && begin < 0; i++) if (!joins(i)) begin = i;
  // Traced raw (trace/vtracer.ts), a round hole is one staircase all round: it is read from where
  // two turns in a row go the same way, which no staircase carries on through. So is a square whose
  // sides ripple by a pixel at each image pixel: there only long runs are staircases (a round
  // outline's), not a corner's chamfer of a pixel or two, which flattened left slivers at the corner.
  const allRound = begin < 0;
  for (let i = 0; i < n && begin < 0; i++) if (turnAt(i) === turnAt(i - 1)) begin = i;
  if (begin < 0) return loop;
  const fewestEdges = allRound ? ROUND_STAIR_EDGES : STAIR_EDGES;
  for (let k = 1; k <= n; k++) {
    const i = (begin + k) % n;
    const previous = (i - 1 + n) % n;
    linked[i] = joins(i) && (!linked[previous] || turnAt(i) === -turnAt(previous)) ? 1 : 0;
  }
  // Runs of linked edges of STAIR_EDGES (ROUND_STAIR_EDGES) or more: their inner vertices give way to the edges' middles.
  const inner = new Uint8Array(n);
  const middle = new Uint8Array(n);
  for (let k = 0; k < n; k++) {
    const first = (begin + k) % n;
    if (linked[first] || !linked[(first + 1) % n]) continue;
    let last = (first + 1) % n;
    while (linked[(last + 1) % n] && (last + 1) % n !== first) last = (last + 1) % n;
    if (((last - first + n) % n) + 1 < fewestEdges) continue;
    // A staircase rises a step at a time along one axis (its treads may be long: a shallow line):
    // its inner edges along one of the two axes are all a step or shorter. An end edge along that
    // axis and longer is the side the staircase leaves from, not a step of it.
    const allShort = [true, true];
    for (let i = (first + 1) % n; i !== last; i = (i + 1) % n) if (!short[i]) allShort[axis[i] as number] = false;
    if (!allShort[0] && !allShort[1]) continue;
    const rise = allShort[0] ? 0 : 1;
    let from = first;
    let to = last;
    if (axis[from] === rise && !short[from]) from = (from + 1) % n;
    if (axis[to] === rise && !short[to]) to = (to - 1 + n) % n;
    const edges = ((to - from + n) % n) + 1;
    if (edges < fewestEdges || edges > n) continue;
    for (let e = 0, i = from; e < edges; e++, i = (i + 1) % n) {
      middle[i] = 1;
      if (e > 0) inner[i] = 1;
    }
  }
  if (!middle.includes(1)) return loop;
  const out: Point[] = [];
  for (let i = 0; i < n; i++) {
    if (!inner[i]) out.push(at(i));
    if (middle[i]) {
      const [ax, ay] = at(i);
      const [bx, by] = at(i + 1);
      out.push([(ax + bx) / 2, (ay + by) / 2]);
    }
  }
  return out;
}

/**
 * A side from one corner to the next that runs along an axis (within the straight tolerance but
 * for a corner's span at each end, and LINE_SIDE_SPANS corner spans long or more) is put where
 * most of it lies, and drawn as a line: both corners are moved across it to the median of that
 * stretch. Drawn as the chord between its corners, a side whose corner sits in a notch of the
 * traced grid (where an outline a pixel wide meets another line, or a rounded corner begins) was
 * a traced pixel off along its whole length, a quarter of the image's pixel in an icon traced 4
 * times finer; traced raw (trace/vtracer.ts), such a notch beside a corner bent the side into a
 * curve. Corners are shared by a side along each axis, so each moves along one axis per side.
 * Returns each levelled side: the cut it begins at, and the cut it ends at.
 */
function levelSides(points: Point[], fixed: Uint8Array, cuts: number[], options: CurveOptions): Map<number, number> {
  const n = points.length;
  const levelled = new Map<number, number>();
  if (cuts.length < 2) return levelled;
  const values: number[] = [];
  for (let c = 0; c < cuts.length; c++) {
    const from = cuts[c] as number;
    const to = cuts[(c + 1) % cuts.length] as number;
    if (!fixed[from] || !fixed[to]) continue;
    const count = ((to - from + n) % n) || n;
    if (count < LINE_SIDE_SPANS * options.cornerSpan / options.sampleStep) continue;
    const a = points[from] as Point;
    const b = points[to] as Point;
    // The coordinate across the side: y for a side along x, x for one along y.
    const axis = Math.abs(b[0] - a[0]) >= Math.abs(b[1] - a[1]) ? 1 : 0;
    // All of it but a corner's span at each end, where the notches are.
    const reach = Math.ceil(options.cornerSpan / options.sampleStep);
    values.length = 0;
    for (let k = reach; k <= count - reach; k++) values.push((points[(from + k) % n] as Point)[axis] as number);
    if (values.length === 0) continue;
    values.sort((p, q) => p - q);
    if (!((values[values.length - 1] as number) - (values[0] as number) <= options.straightTolerance)) continue;
    const level = values[Math.floor(values.length / 2)] as number;
    // A corner further off than its span is the side's own turn, not a notch.
    if (Math.abs((a[axis] as number) - level) > options.cornerSpan || Math.abs((b[axis] as number) - level) > options.cornerSpan) continue;
    points[from] = axis === 1 ? [a[0], level] : [level, a[1]];
    points[to] = axis === 1 ? [b[0], level] : [level, b[1]];
    levelled.set(from, to);
  }
  return levelled;
}

/** A polygon geometry as lines and cubics: corners kept, straight runs as lines, the rest fitted. */
export function fitOutlines(geometry: PathGeometry, options: CurveOptions): PathGeometry {
  const out: PathGeometry = { commands: [], coords: [] };
  const span = Math.max(1, Math.round(options.cornerSpan / options.sampleStep));
  for (const traced of loopsOf(geometry)) {
    if (traced.length < 3) continue;
    const loop = options.stairStep ? stairsFlattened(traced, options.stairStep) : traced;
    const sharpened = sharpenCorners(loop, options);
    const sampled = sampleLoop(sharpened.loop, sharpened.corners, options.sampleStep);
    // A loop without corners that keeps close to one ellipse is drawn as that ellipse (ellipse-fit.ts).
    const ellipse = sharpened.corners.length === 0 ? fitEllipse(sharpened.loop, sampled.points, options.tolerance) : null;
    if (ellipse) {
      const { start, cubics } = ellipseCubics(ellipse);
      out.commands.push(PathCommand.move, PathCommand.cubic, PathCommand.cubic, PathCommand.cubic, PathCommand.cubic, PathCommand.close);
      out.coords.push(start[0], start[1], ...cubics);
      continue;
    }
    const points = smoothLoop(sampled.points, sampled.fixed, options.smoothing / options.sampleStep);
    const isCut = zeroBytes(BYTE.cut, points.length);
    const cuts = sampled.cornerAt.length > 0 ? [...sampled.cornerAt] : [0];
    for (const cut of cuts) isCut[cut] = 1;
    // Sides levelled from corner to corner are drawn as lines: no splice cuts on them.
    // Only on a grid finer than the image's pixels: at the image's own size (ink on its own grid,
    // line-art.ts) a one-pixel notch beside a corner is the ink's texture.
    const levelled = options.stairStep ? levelSides(points, sampled.fixed, cuts, options) : new Map<number, number>();
    const n = points.length;
    const onLevelledSide = (at: number): boolean => [...levelled].some(([from, to]) => (at - from + n) % n < ((to - from + n) % n || n));
    const allCuts = [...cuts, ...splicePoints(points, isCut, options).filter((at) => !onLevelledSide(at))];
    if (allCuts.length > 1) allCuts.sort((a, b) => a - b);
    const begin = points[allCuts[0] as number] as Point;
    out.commands.push(PathCommand.move);
    out.coords.push(begin[0], begin[1]);
    for (let c = 0; c < allCuts.length; c++) {
      const from = allCuts[c] as number;
      const to = allCuts[(c + 1) % allCuts.length] as number;
      if (levelled.has(from)) {
        const end = points[to] as Point;
        out.commands.push(PathCommand.line);
        out.coords.push(end[0], end[1]);
        continue;
      }
      appendRun(
        samplesBetween(points, from, to),
        options,
        {
          start: sampled.fixed[from] ? undefined : tangentAt(points, from, span),
          end: sampled.fixed[to] ? undefined : scale(tangentAt(points, to, span), -1),
        },
        out,
      );
    }
    out.commands.push(PathCommand.close);
  }
  return out;
}

function scale([x, y]: Point, factor: number): Point {
  return [x * factor, y * factor];
}
