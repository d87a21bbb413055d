// Cubic Bézier curves fitted to a run of points: Philip J. Schneider's algorithm ("An Algorithm
// for Automatically Fitting Digitized Curves", Graphics Gems, 1990), as the fit-curve package
// implements it (its chord-length parameters, Newton–Raphson reparameterisation, error measured
// at the same relative arc length, split at the worst point), computed in the same order so the
// curves are the same to the last bit. fit-curve builds a small array for every vector operation:
// on a small icon's outlines that was half of the whole conversion's time, most of it garbage
// collection (docs/decisions.md). This version works on plain numbers and reuses its buffers.

import { hypot } from '../geometry.ts';

export type Point = readonly [number, number];

const MAX_ITERATIONS = 20;
/** Samples of the curve per arc-length table (find_t). */
const ARC_PARTS = 10;

/** A cubic's control points: x0 y0 x1 y1 x2 y2 x3 y3. */
type Cubic = Float64Array;

/**
 * Fits `points` (at least two) from the tangent `start` at the first to `end` at the last
 * (`end` points back along the run, as fit-curve's right tangent does), within `error` (squared
 * distance). Appends each curve's two control points and end point to `out`.
 */
export function fitCubics(points: readonly Point[], start: Point, end: Point, error: number, out: number[]): void {
  fitRange(points, 0, points.length - 1, start[0], start[1], end[0], end[1], error, out);
}

function fitRange(points: readonly Point[], first: number, last: number, lx: number, ly: number, rx: number, ry: number, error: number, out: number[]): void {
  const count = last - first + 1;
  const p0 = points[first] as Point;
  const p3 = points[last] as Point;
  if (count === 2) {
    const dist = hypot(p0[0] - p3[0], p0[1] - p3[1]) / 3.0;
    out.push(p0[0] + lx * dist, p0[1] + ly * dist, p3[0] + rx * dist, p3[1] + ry * dist, p3[0], p3[1]);
    return;
  }
  const u = chordLengths(points, first, last);
  const bez = new Float64Array(8);
  generateBezier(points, first, last, u, lx, ly, rx, ry, bez);
  let [maxError, splitPoint] = maxErrorOf(points, first, last, bez, u);
  if (maxError === 0 || maxError < error) {
    pushCubic(bez, out);
    return;
  }
  if (maxError < error * error) {
    let uPrime = u;
    let prevErr = maxError;
    let prevSplit = splitPoint;
    for (let i = 0; i < MAX_ITERATIONS; i++) {
      uPrime = reparameterize(bez, points, first, uPrime);
      generateBezier(points, first, last, uPrime, lx, ly, rx, ry, bez);
      [maxError, splitPoint] = maxErrorOf(points, first, last, bez, u);
      if (maxError < error) {
        pushCubic(bez, out);
        return;
      } else if (splitPoint === prevSplit) {
        const errChange = maxError / prevErr;
        if (errChange > 0.9999 && errChange < 1.0001) break;
      }
      prevErr = maxError;
      prevSplit = splitPoint;
    }
  }
  // Split at the worst point, with the tangent there taken across its two neighbours.
  const split = first + splitPoint;
  const before = points[split - 1] as Point;
  const after = points[split + 1] as Point;
  let cx = before[0] - after[0];
  let cy = before[1] - after[1];
  if (cx === 0 && cy === 0) {
    const at = points[split] as Point;
    cx = before[0] - at[0];
    cy = before[1] - at[1];
    [cx, cy] = [-cy, cx];
  }
  const length = hypot(cx, cy);
  const tx = cx / length;
  const ty = cy / length;
  fitRange(points, first, split, lx, ly, tx, ty, error, out);
  fitRange(points, split, last, tx * -1, ty * -1, rx, ry, error, out);
}

function pushCubic(bez: Cubic, out: number[]): void {
  out.push(bez[2] as number, bez[3] as number, bez[4] as number, bez[5] as number, bez[6] as number, bez[7] as number);
}

function chordLengths(points: readonly Point[], first: number, last: number): Float64Array {
  const u = new Float64Array(last - first + 1);
  let prev = 0;
  for (let i = 1; i < u.length; i++) {
    const p = points[first + i] as Point;
    const q = points[first + i - 1] as Point;
    prev = prev + hypot(p[0] - q[0], p[1] - q[1]);
    u[i] = prev;
  }
  for (let i = 0; i < u.length; i++) u[i] = (u[i] as number) / prev;
  return u;
}

/** Least-squares lengths of the two tangent handles (Schneider's C and X matrices). */
function generateBezier(points: readonly Point[], first: number, last: number, parameters: Float64Array, lx: number, ly: number, rx: number, ry: number, bez: Cubic): void {
  const p0 = points[first] as Point;
  const p3 = points[last] as Point;
  let c00 = 0;
  let c01 = 0;
  let c10 = 0;
  let c11 = 0;
  let x0 = 0;
  let x1 = 0;
  for (let i = 0; i < parameters.length; i++) {
    const u = parameters[i] as number;
    const ux = 1 - u;
    const b1 = 3 * u * (ux * ux);
    const b2 = 3 * ux * (u * u);
    const a0x = lx * b1;
    const a0y = ly * b1;
    const a1x = rx * b2;
    const a1y = ry * b2;
    c00 += 0 + a0x * a0x + a0y * a0y;
    c01 += 0 + a0x * a1x + a0y * a1y;
    c10 += 0 + a0x * a1x + a0y * a1y;
    c11 += 0 + a1x * a1x + a1y * a1y;
    // The point less the curve with both handles at their ends.
    const t = 1.0 - u;
    const w0 = t * t * t;
    const w1 = 3 * t * t * u;
    const w2 = 3 * t * u * u;
    const w3 = u * u * u;
    const p = points[first + i] as Point;
    const qx = p0[0] * w0 + p0[0] * w1 + (p3[0] * w2 + p3[0] * w3);
    const qy = p0[1] * w0 + p0[1] * w1 + (p3[1] * w2 + p3[1] * w3);
    const dx = p[0] - qx;
    const dy = p[1] - qy;
    x0 += 0 + a0x * dx + a0y * dy;
    x1 += 0 + a1x * dx + a1y * dy;
  }
  const detC0C1 = c00 * c11 - c10 * c01;
  const detC0X = c00 * x1 - c10 * x0;
  const detXC1 = x0 * c11 - x1 * c01;
  const alphaL = detC0C1 === 0 ? 0 : detXC1 / detC0C1;
  const alphaR = detC0C1 === 0 ? 0 : detC0X / detC0C1;
  const segLength = hypot(p0[0] - p3[0], p0[1] - p3[1]);
  const epsilon = 1.0e-6 * segLength;
  const [hl, hr] = alphaL < epsilon || alphaR < epsilon ? [segLength / 3.0, segLength / 3.0] : [alphaL, alphaR];
  bez[0] = p0[0];
  bez[1] = p0[1];
  bez[2] = p0[0] + lx * hl;
  bez[3] = p0[1] + ly * hl;
  bez[4] = p3[0] + rx * hr;
  bez[5] = p3[1] + ry * hr;
  bez[6] = p3[0];
  bez[7] = p3[1];
}

/** The point of the cubic at `t`, summed as fit-curve sums it. */
function pointAt(bez: Cubic, t: number, out: Float64Array): void {
  const tx = 1.0 - t;
  const w0 = tx * tx * tx;
  const w1 = 3 * tx * tx * t;
  const w2 = 3 * tx * t * t;
  const w3 = t * t * t;
  out[0] = (bez[0] as number) * w0 + (bez[2] as number) * w1 + ((bez[4] as number) * w2 + (bez[6] as number) * w3);
  out[1] = (bez[1] as number) * w0 + (bez[3] as number) * w1 + ((bez[5] as number) * w2 + (bez[7] as number) * w3);
}

const scratch = new Float64Array(2);

/** Newton–Raphson: each parameter moved to where the curve comes closest to its point. */
function reparameterize(bez: Cubic, points: readonly Point[], first: number, parameters: Float64Array): Float64Array {
  const out = new Float64Array(parameters.length);
  const [x0, y0, x1, y1, x2, y2, x3, y3] = bez as unknown as [number, number, number, number, number, number, number, number];
  for (let j = 0; j < parameters.length; j++) {
    const u = parameters[j] as number;
    const p = points[first + j] as Point;
    pointAt(bez, u, scratch);
    const dx = (scratch[0] as number) - p[0];
    const dy = (scratch[1] as number) - p[1];
    const tx = 1.0 - u;
    const qpx = (x1 - x0) * (3 * tx * tx) + (x2 - x1) * (6 * tx * u) + (x3 - x2) * (3 * u * u);
    const qpy = (y1 - y0) * (3 * tx * tx) + (y2 - y1) * (6 * tx * u) + (y3 - y2) * (3 * u * u);
    const qppx = (x2 - x1 * 2 + x0) * (6 * (1.0 - u)) + (x3 - x2 * 2 + x1) * (6 * u);
    const qppy = (y2 - y1 * 2 + y0) * (6 * (1.0 - u)) + (y3 - y2 * 2 + y1) * (6 * u);
    const numerator = 0 + dx * qpx + dy * qpy;
    const denominator = qpx * qpx + qpy * qpy + 2 * (0 + dx * qppx + dy * qppy);
    out[j] = denominator === 0 ? u : u - numerator / denominator;
  }
  return out;
}

/** The largest squared distance from a point to the curve at the same relative arc length, and where. */
function maxErrorOf(points: readonly Point[], first: number, last: number, bez: Cubic, parameters: Float64Array): [number, number] {
  const count = last - first + 1;
  let maxDist = 0;
  let splitPoint = Math.floor(count / 2);
  const distances = arcLengths(bez);
  for (let i = 0; i < count; i++) {
    const p = points[first + i] as Point;
    const t = findT(parameters[i] as number, distances);
    pointAt(bez, t, scratch);
    const vx = (scratch[0] as number) - p[0];
    const vy = (scratch[1] as number) - p[1];
    const dist = vx * vx + vy * vy;
    if (dist > maxDist) {
      maxDist = dist;
      splitPoint = i;
    }
  }
  return [maxDist, splitPoint];
}

/** Relative arc length at t = 0, 1/ARC_PARTS, … 1, from the chords between those points. */
function arcLengths(bez: Cubic): Float64Array {
  const out = new Float64Array(ARC_PARTS + 1);
  let prevX = bez[0] as number;
  let prevY = bez[1] as number;
  let sum = 0;
  for (let i = 1; i <= ARC_PARTS; i++) {
    pointAt(bez, i / ARC_PARTS, scratch);
    sum += hypot((scratch[0] as number) - prevX, (scratch[1] as number) - prevY);
    out[i] = sum;
    prevX = scratch[0] as number;
    prevY = scratch[1] as number;
  }
  for (let i = 0; i <= ARC_PARTS; i++) out[i] = (out[i] as number) / sum;
  return out;
}

/** The curve parameter at relative arc length `param`, interpolated in the table. */
function findT(param: number, distances: Float64Array): number {
  if (param < 0) return 0;
  if (param > 1) return 1;
  for (let i = 1; i <= ARC_PARTS; i++) {
    if (param <= (distances[i] as number)) {
      const tMin = (i - 1) / ARC_PARTS;
      const tMax = i / ARC_PARTS;
      const lenMin = distances[i - 1] as number;
      const lenMax = distances[i] as number;
      return ((param - lenMin) / (lenMax - lenMin)) * (tMax - tMin) + tMin;
    }
  }
  // NaN arc lengths (a degenerate curve) fall through, as in fit-curve.
  return NaN;
}
