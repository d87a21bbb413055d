// Round outlines drawn as true ellipses. A dot, an eye, a wheel or a ring traced from pixels is a
// polygon with the grid's steps in it; fitted run by run with cubics it comes out a little lumpy
// (a "D" where one side ran straight for a few pixels). Where a whole loop without corners keeps
// within tolerance of one ellipse, it is drawn as that ellipse: four cubics, exactly round.
//
// The ellipse is the one with the loop's own area, centre and second moments (Green's theorem on
// the polygon), so it needs no iterative fit and a true ellipse is recovered exactly; a rounded
// square, a stadium or a lumpy blob strays from its moment ellipse by more than the tolerance
// somewhere and keeps its fitted curves.

import { hypot } from '../geometry.ts';

export type Point = readonly [number, number];

export interface Ellipse {
  cx: number;
  cy: number;
  /** Semi-axes, a ≥ b, in the loop's units. */
  a: number;
  b: number;
  /** Direction of the major axis (radians). */
  angle: number;
  /** Whether the loop ran clockwise in y-down coordinates (positive signed area): kept when drawn. */
  positive: boolean;
}

/**
 * The most a loop may stray from its ellipse, as a share of the minor semi-axis: the fitting
 * tolerance alone would let a shape two or three tolerances across (a small rounded square, a
 * blunt triangle) pass as round.
 */
export const ELLIPSE_RELATIVE_TOLERANCE = 0.1;
/** Fewer vertices than this is a polygon too coarse to tell a round shape from a square. */
const MIN_VERTICES = 8;

/** The ellipse with the polygon's area, centroid and second moments, or null for a degenerate one. */
export function momentEllipse(loop: readonly Point[]): Ellipse | null {
  const n = loop.length;
  if (n < 3) return null;
  let area2 = 0;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  // Moments about the first vertex keep the sums small and exact for a shape far from the origin.
  const [ox, oy] = loop[0] as Point;
  for (let i = 0; i < n; i++) {
    const p = loop[i] as Point;
    const q = loop[(i + 1) % n] as Point;
    const x0 = p[0] - ox;
    const y0 = p[1] - oy;
    const x1 = q[0] - ox;
    const y1 = q[1] - oy;
    const cross = x0 * y1 - x1 * y0;
    area2 += cross;
    sx += (x0 + x1) * cross;
    sy += (y0 + y1) * cross;
    sxx += (x0 * x0 + x0 * x1 + x1 * x1) * cross;
    syy += (y0 * y0 + y0 * y1 + y1 * y1) * cross;
    sxy += (x0 * y1 + 2 * x0 * y0 + 2 * x1 * y1 + x1 * y0) * cross;
  }
  const area = area2 / 2;
  if (Math.abs(area) < 1e-9) return null;
  const mx = sx / (6 * area);
  const my = sy / (6 * area);
  const varX = sxx / (12 * area) - mx * mx;
  const varY = syy / (12 * area) - my * my;
  const covXY = sxy / (24 * area) - mx * my;
  const mean = (varX + varY) / 2;
  const spread = hypot((varX - varY) / 2, covXY);
  const major = mean + spread;
  const minor = mean - spread;
  if (!(minor > 0)) return null;
  // A filled ellipse of semi-axes a, b has variances a²/4 and b²/4 along its axes.
  return {
    cx: mx + ox,
    cy: my + oy,
    a: 2 * Math.sqrt(major),
    b: 2 * Math.sqrt(minor),
    angle: 0.5 * Math.atan2(2 * covXY, varX - varY),
    positive: area > 0,
  };
}

/**
 * How far a point lies from the ellipse: the Sampson approximation (the implicit function over
 * its gradient), close to the true distance near the curve, which is where it matters.
 */
export function distanceToEllipse(point: Point, e: Ellipse): number {
  const cos = Math.cos(e.angle);
  const sin = Math.sin(e.angle);
  const dx = point[0] - e.cx;
  const dy = point[1] - e.cy;
  const u = (dx * cos + dy * sin) / e.a;
  const v = (-dx * sin + dy * cos) / e.b;
  const f = u * u + v * v - 1;
  const gradient = 2 * hypot(u / e.a, v / e.b);
  if (gradient === 0) return e.b;
  return Math.abs(f) / gradient;
}

/**
 * The ellipse a loop without corners is, when every point of `samples` (the loop sampled along
 * its length) keeps within `tolerance` of it and within ELLIPSE_RELATIVE_TOLERANCE of its minor
 * semi-axis; else null.
 */
export function fitEllipse(loop: readonly Point[], samples: readonly Point[], tolerance: number): Ellipse | null {
  if (loop.length < MIN_VERTICES) return null;
  const ellipse = momentEllipse(loop);
  if (!ellipse) return null;
  const limit = Math.min(tolerance, ELLIPSE_RELATIVE_TOLERANCE * ellipse.b);
  for (const point of samples) if (distanceToEllipse(point, ellipse) > limit) return null;
  return ellipse;
}

/** 4/3·tan(π/8): the control-arm length of a cubic quarter of a unit circle. */
const KAPPA = (4 / 3) * Math.tan(Math.PI / 8);

/**
 * The ellipse as four cubics, starting at the end of its major axis and running the loop's way:
 * the start point, then each cubic's two control points and end point.
 */
export function ellipseCubics(e: Ellipse): { start: [number, number]; cubics: number[] } {
  const cos = Math.cos(e.angle);
  const sin = Math.sin(e.angle);
  // Point and derivative at parameter t: C + a·cos t·u + b·sin t·v.
  const at = (t: number): [number, number] => {
    const x = e.a * Math.cos(t);
    const y = e.b * Math.sin(t);
    return [e.cx + x * cos - y * sin, e.cy + x * sin + y * cos];
  };
  const slope = (t: number): [number, number] => {
    const x = -e.a * Math.sin(t);
    const y = e.b * Math.cos(t);
    return [x * cos - y * sin, x * sin + y * cos];
  };
  // Increasing t turns from the major axis towards the minor one: positive signed area in y-down
  // coordinates (the loops' own sense when `positive`).
  const step = e.positive ? Math.PI / 2 : -Math.PI / 2;
  const sign = e.positive ? 1 : -1;
  const cubics: number[] = [];
  for (let k = 0; k < 4; k++) {
    const t0 = k * step;
    const t1 = (k + 1) * step;
    const p0 = at(t0);
    const p3 = at(t1);
    const d0 = slope(t0);
    const d1 = slope(t1);
    cubics.push(
      p0[0] + sign * KAPPA * d0[0],
      p0[1] + sign * KAPPA * d0[1],
      p3[0] - sign * KAPPA * d1[0],
      p3[1] - sign * KAPPA * d1[1],
      p3[0],
      p3[1],
    );
  }
  return { start: at(0), cubics };
}
