// Points of light finer than a photograph's working grid: stars, distant lamps, glints. A large
// photograph is traced at about 1 MP (prepare.ts), a working pixel for four to twenty of its own,
// and a star two pixels across is a tenth of a working pixel: the palette folds it into the sky,
// and at 100 % the night is empty (a starry sky of 21 MP came back with one grey dot where dozens
// of stars are). The points are found on a finer decode of the same image, each a local extreme
// standing clear of a smooth surround, and drawn over the trace as small round dots of their own
// colour, sized to carry the light they add to their surround.

import { PathCommand, flat, type PathGeometry, type Rgb, type TracedShape } from '../geometry.ts';
import type { RgbaImage } from '../analyse/prepare.ts';
import { ellipseCubics } from './ellipse-fit.ts';

/** A point of light (or of dark) at the finer decode's pixels. */
export interface Point {
  /** Centre, in the decode's pixels (its light's centroid). */
  x: number;
  y: number;
  /** Radius of the dot drawn, in the decode's pixels. */
  radius: number;
  colour: Rgb;
  /** The surround's mean colour: a dot drawn larger than the point is blended towards it, so it adds the same light. */
  surround: Rgb;
  /** Light the point adds to its surround (luma levels × pixels): the strongest are kept first. */
  strength: number;
}

/**
 * Luma levels (0–255) a point must stand above (or below) its surround. JPEG's ringing around
 * an edge and a sensor's grain stay under it on a dark sky.
 */
export const POINT_CONTRAST = 28;
/** The surround's standard deviation may be at most this share of the point's contrast: points on texture (sand, foliage) are the texture, which the trace draws as tone. */
const SURROUND_SPREAD = 0.2;
/**
 * Nor may it exceed this many luma levels, whatever the contrast: a point of light sits on a quiet
 * ground (a night sky's grain), and a bright speck on a rock face's texture is texture.
 */
const QUIET_SURROUND = 8;
/** Nothing else in the surround may stand out by more than this share of the point's contrast (two stars side by side, an edge passing by). */
const SURROUND_PEAK = 0.5;
/** The surround: pixels at Chebyshev distance 4 and 5 from the point. */
const INNER = 4;
const OUTER = 5;
/** A point's own pixels lie within this Chebyshev distance: anything wider is a shape, which the trace draws. */
const CORE = 3;
/**
 * At most this many points per megapixel of the decode, the strongest kept: a dense star field
 * holds a few hundred per megapixel at 100 %, and a dot costs about 50 bytes.
 */
export const MAX_POINTS_PER_MP = 1000;

function lumaOf(rgba: Buffer, width: number, height: number): Uint8Array {
  const luma = new Uint8Array(width * height);
  for (let i = 0, p = 0; i < luma.length; i++, p += 4) {
    // Rec. 709 weights in 65536ths (0.2126, 0.7152, 0.0722): integer arithmetic over megapixels.
    luma[i] = (13933 * (rgba[p] as number) + 46871 * (rgba[p + 1] as number) + 4732 * (rgba[p + 2] as number) + 32768) >> 16;
  }
  return luma;
}

/**
 * The isolated points of `image`: pixels brighter (or darker) than their eight neighbours by any
 * margin and than their surround by POINT_CONTRAST, where the surround is smooth and holds nothing
 * else that stands out, and whose light lies within CORE pixels. Pixels not fully opaque are left
 * alone (a point on transparency is the artwork's, not a photograph's).
 */
export function findPoints(image: RgbaImage): Point[] {
  const { rgba, width, height } = image;
  const luma = lumaOf(rgba, width, height);
  const points: Point[] = [];
  for (let y = OUTER; y < height - OUTER; y++) {
    for (let x = OUTER; x < width - OUTER; x++) {
      const i = y * width + x;
      const value = luma[i] as number;
      // Cheap rejections first: four pixels of the surround, then the eight neighbours.
      const a = luma[i - INNER * width] as number;
      const b = luma[i + INNER * width] as number;
      const c = luma[i - INNER] as number;
      const d = luma[i + INNER] as number;
      // Above (or below) all four by the contrast, tested one at a time: nearly every pixel of a
      // photograph fails at the first, and 10⁷ of them are read.
      const brightEnough = value - a >= POINT_CONTRAST && value - b >= POINT_CONTRAST && value - c >= POINT_CONTRAST && value - d >= POINT_CONTRAST;
      const darkEnough = !brightEnough && a - value >= POINT_CONTRAST && b - value >= POINT_CONTRAST && c - value >= POINT_CONTRAST && d - value >= POINT_CONTRAST;
      if (!brightEnough && !darkEnough) continue;
      const sign = brightEnough ? 1 : -1;
      if (!isExtreme(luma, width, i, sign)) continue;
      const point = pointAt(rgba, luma, width, x, y, sign);
      if (point) points.push(point);
    }
  }
  const cap = Math.max(1, Math.round((MAX_POINTS_PER_MP * width * height) / 1e6));
  if (points.length <= cap) return points;
  return points.sort((p, q) => q.strength - p.strength).slice(0, cap);
}

/** Whether pixel i is the strict extreme of its 3 × 3 (ties go to the first in reading order). */
function isExtreme(luma: Uint8Array, width: number, i: number, sign: number): boolean {
  const value = (luma[i] as number) * sign;
  for (let dy = -1; dy <= 1; dy++) {
    for (let dx = -1; dx <= 1; dx++) {
      if (dx === 0 && dy === 0) continue;
      const other = (luma[i + dy * width + dx] as number) * sign;
      const before = dy < 0 || (dy === 0 && dx < 0);
      if (other > value || (before && other === value)) return false;
    }
  }
  return true;
}

/** The point whose extreme is at (x, y), or null where its surround is not smooth or its light spreads wider than CORE. */
function pointAt(rgba: Buffer, luma: Uint8Array, width: number, x: number, y: number, sign: number): Point | null {
  let sum = 0;
  let squares = 0;
  let count = 0;
  let peak = -Infinity;
  let r = 0;
  let g = 0;
  let b = 0;
  for (let dy = -OUTER; dy <= OUTER; dy++) {
    for (let dx = -OUTER; dx <= OUTER; dx++) {
      const ring = Math.max(Math.abs(dx), Math.abs(dy));
      if (ring < INNER) continue;
      const p = (y + dy) * width + x + dx;
      if ((rgba[p * 4 + 3] as number) < 255) return null;
      const value = (luma[p] as number) * sign;
      sum += value;
      squares += value * value;
      r += rgba[p * 4] as number;
      g += rgba[p * 4 + 1] as number;
      b += rgba[p * 4 + 2] as number;
      count++;
      if (value > peak) peak = value;
    }
  }
  const surround = sum / count;
  const contrast = (luma[y * width + x] as number) * sign - surround;
  if (contrast < POINT_CONTRAST) return null;
  const spread = Math.sqrt(Math.max(0, squares / count - surround * surround));
  if (spread > Math.min(QUIET_SURROUND, SURROUND_SPREAD * contrast) || peak - surround > SURROUND_PEAK * contrast) return null;
  // The point's light: what its core adds to the surround, and where.
  let light = 0;
  let weight = 0;
  let cx = 0;
  let cy = 0;
  for (let dy = -CORE; dy <= CORE; dy++) {
    for (let dx = -CORE; dx <= CORE; dx++) {
      const p = (y + dy) * width + x + dx;
      if ((rgba[p * 4 + 3] as number) < 255) return null;
      const excess = (luma[p] as number) * sign - surround;
      // Light reaching the core's rim means a wider shape, not a point.
      if (Math.max(Math.abs(dx), Math.abs(dy)) === CORE && excess > contrast / 2) return null;
      // Summed with its sign, the ground's grain cancels out; the centre is the light's above it.
      light += excess;
      if (excess <= contrast / 4) continue;
      weight += excess;
      cx += excess * dx;
      cy += excess * dy;
    }
  }
  light = Math.max(light, contrast);
  const p = (y * width + x) * 4;
  // A dot of the peak's colour adding the same light: its area is the light over the contrast.
  const area = light / contrast;
  return {
    x: x + 0.5 + cx / weight,
    y: y + 0.5 + cy / weight,
    radius: Math.sqrt(area / Math.PI),
    colour: { r: rgba[p] as number, g: rgba[p + 1] as number, b: rgba[p + 2] as number },
    surround: { r: r / count, g: g / count, b: b / count },
    strength: light,
  };
}

/**
 * The points as dots on the traced grid (`scale` traced pixels per decode pixel), at least
 * `minRadius` traced pixels across so that the written precision keeps them round. Dots of
 * one colour (to COLOUR_STEP levels) share a shape, so a sky of stars is a few paths, not thousands.
 * `round` false (polygons asked for): octagons of the same area, without a curve.
 */
export function pointShapes(points: readonly Point[], scale: number, minRadius: number, round = true): TracedShape[] {
  const byColour = new Map<number, { colour: Rgb; path: PathGeometry }>();
  for (const point of points) {
    const radius = Math.max(minRadius, point.radius * scale);
    // Drawn larger than the point, the dot's colour lies nearer its surround's by the areas' ratio.
    const share = (point.radius * scale) ** 2 / radius ** 2;
    const mix = (own: number, around: number) => quantised(around + (own - around) * share);
    const colour = { r: mix(point.colour.r, point.surround.r), g: mix(point.colour.g, point.surround.g), b: mix(point.colour.b, point.surround.b) };
    const key = (colour.r << 16) | (colour.g << 8) | colour.b;
    let entry = byColour.get(key);
    if (!entry) {
      entry = { colour, path: { commands: [], coords: [] } };
      byColour.set(key, entry);
    }
    if (round) addCircle(entry.path, point.x * scale, point.y * scale, radius);
    else addOctagon(entry.path, point.x * scale, point.y * scale, radius);
  }
  return [...byColour.values()].map(({ colour, path }) => ({ fill: flat(colour), opacity: 1, paths: [path] }));
}

function addCircle(path: PathGeometry, cx: number, cy: number, radius: number): void {
  const { start, cubics } = ellipseCubics({ cx, cy, a: radius, b: radius, angle: 0, positive: true });
  path.commands.push(PathCommand.move);
  path.coords.push(start[0], start[1]);
  for (let c = 0; c < cubics.length; c += 6) {
    path.commands.push(PathCommand.cubic);
    for (let k = 0; k < 6; k++) path.coords.push(cubics[c + k] as number);
  }
  path.commands.push(PathCommand.close);
}

/** A regular octagon with the area of the circle of `radius` (an octagon of circumradius R covers 2√2 R²). */
function addOctagon(path: PathGeometry, cx: number, cy: number, radius: number): void {
  const corner = radius * Math.sqrt(Math.PI / (2 * Math.SQRT2));
  for (let k = 0; k < 8; k++) {
    const angle = ((k + 0.5) * Math.PI) / 4;
    path.commands.push(k === 0 ? PathCommand.move : PathCommand.line);
    path.coords.push(cx + corner * Math.cos(angle), cy + corner * Math.sin(angle));
  }
  path.commands.push(PathCommand.close);
}

/** Colour levels dots are grouped by: a sixteenth of the range, finer than a star's tint shows at its size. */
const COLOUR_STEP = 16;

function quantised(value: number): number {
  return Math.max(0, Math.min(255, Math.round(value / COLOUR_STEP) * COLOUR_STEP));
}
