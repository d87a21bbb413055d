// A large picture traced tile by tile. VTracer's clustering takes more than linear time in the
// pixels it is given: a 1109 × 739 photo's palette took 3.2 s whole, 1.9 s in 2 × 2 tiles and
// 1.2 s in 4 × 4, for the same 2.2 × 10⁵ shapes.
//
// Cut straight, two tiles drew a region each with outlines of its own, and their mismatch showed
// as a straight line across the photograph at 100 %; cut along the palette's edges instead, the
// tracer outlined the slivers at a tile's edge badly. So each tile is traced MARGIN pixels wider
// than the part of the picture it draws, and its polygons are clipped to that part: where two
// tiles meet, both traced the pixels on either side alike, far from their own edges. Tiles are
// drawn in rows, left to right, each reaching OVERLAP pixels under the ones drawn after it: no
// background shows where two anti-aliased edges meet, nor where a rounded outline (rounded.ts)
// pulls back from the edge. A tile's stacked shapes may not all end at its edge over the tiles
// before it, or the lower ones show through the upper ones' anti-aliasing (withHiddenEdgesIn).
// A region cut in two is two shapes, which a photograph's shading fits one gradient to where they
// keep one colour (paint/shading.ts).

import { PathSimplifyMode, type Config } from '@neplex/vectorizer';
import { WORKING_PIXELS } from '../analyse/prepare.ts';
import { PathCommand, shapeBox, type Box, type PathGeometry, type TracedShape } from '../geometry.ts';
import { parseTracerSvg } from './tracer-output.ts';
import { runTracer } from './vtracer.ts';

/**
 * A tile draws at most this many pixels along a side (the tiles of one picture are the same size
 * within a pixel). The angel's 0.8 MP took 3.1 s to trace whole, 1.7 s in tiles of 280, 1.4 s in
 * tiles of 220 and 1.3 s in tiles of 180, with MARGIN. The corpus photographs score the same in
 * tiles of 240 and 320, at 2–3 % more bytes in the smaller ones.
 */
export const TILE_SIDE = 240;
/** How much wider (pixels, each side) a tile is traced than it is drawn. */
export const MARGIN = 12;
/** How far (pixels) a tile reaches under the tiles drawn after it: as far as rounded.ts's CORNER rounds a corner. */
export const OVERLAP = 2;

/**
 * The largest layer step (vtracer.ts, LAYER_DIFFERENCE_STEPS) traced in tiles: the default for
 * photographs and the finer ones. A coarser step merges shades into layers of a mean colour, which
 * each tile takes over its own pixels: a large area would change shade at the tiles' edge.
 */
const MAX_TILED_STEP = 4;

/**
 * Pictures of more pixels than this are traced in tiles: a photograph over 2 MP, whose working
 * size grows from a photograph's 0.4 MP to 1 MP at 8 MP (analyse/prepare.ts; the tracer's budget
 * may take it lower: the corpus's 50 MP portrait is traced at 0.42 MP). Tiled, the corpus's
 * 768 × 512 photograph took 0.26 s less and 16 % more bytes: traced at its own size, its polygons
 * are written as they are, with the tiles' edges.
 */
export const TILED_ABOVE_PIXELS = WORKING_PIXELS.photo;

/**
 * Whether a picture of `pixels` traced with `config` is traced in tiles: one over
 * TILED_ABOVE_PIXELS, traced as polygons (which clip exactly) with layers at most MAX_TILED_STEP apart.
 */
export function tracedInTiles(pixels: number, config: Config): boolean {
  return pixels > TILED_ABOVE_PIXELS && config.mode === PathSimplifyMode.Polygon && config.layerDifference <= MAX_TILED_STEP;
}

export interface Tile {
  /** The part of the picture the tile draws: its share and half a pixel, reaching OVERLAP more into the tiles drawn after it. */
  drawn: Box;
  /** The pixels it is traced from: MARGIN wider on every side, within the picture. */
  traced: Box;
}

/** `length` cut into `count` parts of equal length within a pixel: 0, the cuts, and `length`. */
function evenCuts(length: number, count: number): number[] {
  return Array.from({ length: count + 1 }, (_, index) => Math.floor((index * length) / count));
}

/** The tiles of a `width`×`height` picture, in the order they are drawn. */
export function tilesOf(width: number, height: number, side = TILE_SIDE): Tile[] {
  const columns = Math.ceil(width / side);
  const rows = Math.ceil(height / side);
  const xs = evenCuts(width, columns);
  const ys = evenCuts(height, rows);
  const tiles: Tile[] = [];
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      const share = { x0: xs[column] as number, y0: ys[row] as number, x1: xs[column + 1] as number, y1: ys[row + 1] as number };
      // Inside the picture, drawn edges lie between the tracer's whole-pixel vertices, so that a
      // polygon crosses them cleanly instead of touching them.
      tiles.push({
        drawn: {
          x0: share.x0 === 0 ? 0 : share.x0 - 0.5,
          y0: share.y0 === 0 ? 0 : share.y0 - 0.5,
          x1: share.x1 === width ? width : Math.min(width, share.x1 + OVERLAP + 0.5),
          y1: share.y1 === height ? height : Math.min(height, share.y1 + OVERLAP + 0.5),
        },
        traced: { x0: Math.max(0, share.x0 - MARGIN), y0: Math.max(0, share.y0 - MARGIN), x1: Math.min(width, share.x1 + MARGIN), y1: Math.min(height, share.y1 + MARGIN) },
      });
    }
  }
  return tiles;
}

/** The lines the tiles of a `width`×`height` picture are clipped along, inside the picture: where a rounded outline must keep its corners (rounded.ts). */
export function tileEdges(width: number, height: number): { xs: Set<number>; ys: Set<number> } {
  const xs = new Set<number>();
  const ys = new Set<number>();
  for (const { drawn } of tilesOf(width, height)) {
    for (const x of [drawn.x0, drawn.x1]) if (x > 0 && x < width) xs.add(x);
    for (const y of [drawn.y0, drawn.y1]) if (y > 0 && y < height) ys.add(y);
  }
  return { xs, ys };
}

/** The pixels of `box` in an RGBA image `width` pixels wide. */
export function boxPixels(rgba: Buffer, width: number, box: Box): Buffer {
  const boxWidth = box.x1 - box.x0;
  const out = Buffer.allocUnsafe(boxWidth * (box.y1 - box.y0) * 4);
  for (let y = box.y0; y < box.y1; y++) rgba.copy(out, (y - box.y0) * boxWidth * 4, (y * width + box.x0) * 4, (y * width + box.x1) * 4);
  return out;
}

/** A run of a ring's vertices inside the half-plane, from where the ring enters it to where it leaves. */
interface Chain {
  points: number[];
  /** The chain that continues this one along the limit, from where this one leaves (−1 until paired). */
  next: number;
}

/**
 * One ring (flat x, y pairs) clipped to the half-plane where `side` · (coordinate − limit) ≥ 0 of
 * axis `axis` (0: x, 1: y): the rings of what is inside. Sutherland and Hodgman's clip returns one
 * ring, joining a concave ring's separate parts by edges of no area along the limit; rounded
 * afterwards (rounded.ts), those edges opened into slivers a pixel wide beside the tile's edge. So
 * the ring's runs inside are joined as the parts they bound: along the limit, the points where
 * the ring crosses it, in order, pair off into the intervals inside it (the ring is simple), and
 * each interval leads from a run that leaves to the run that enters.
 */
export function clipRing(points: number[], axis: 0 | 1, limit: number, side: 1 | -1): number[][] {
  const count = points.length / 2;
  const offset = (i: number) => side * ((points[i * 2 + axis] as number) - limit);
  let first = -1;
  let inside = 0;
  for (let i = 0; i < count; i++) {
    if (offset(i) >= 0) inside++;
    else if (first < 0) first = i;
  }
  if (inside === count) return [points];
  if (inside === 0) return [];
  const chains: Chain[] = [];
  /** Crossings along the limit: where along it, whether the ring enters there, and its chain. */
  const crossings: { at: number; enters: boolean; chain: number }[] = [];
  let current: number[] | undefined;
  // From a vertex outside, so that every run is whole.
  for (let k = 0; k < count; k++) {
    const a = (first + k) % count;
    const b = (a + 1) % count;
    const oa = offset(a);
    const ob = offset(b);
    const bx = points[b * 2] as number;
    const by = points[b * 2 + 1] as number;
    if ((oa >= 0) !== (ob >= 0)) {
      const t = oa / (oa - ob);
      const ax = points[a * 2] as number;
      const ay = points[a * 2 + 1] as number;
      // The crossing lies on the limit exactly: rounded.ts keeps corners there sharp.
      const x = axis === 0 ? limit : ax + t * (bx - ax);
      const y = axis === 1 ? limit : ay + t * (by - ay);
      if (ob >= 0) {
        current = [x, y];
        crossings.push({ at: axis === 0 ? y : x, enters: true, chain: chains.length });
      } else if (current) {
        current.push(x, y);
        crossings.push({ at: axis === 0 ? y : x, enters: false, chain: chains.length });
        chains.push({ points: current, next: -1 });
        current = undefined;
      }
    }
    if (ob >= 0 && current) current.push(bx, by);
  }
  crossings.sort((p, q) => p.at - q.at);
  for (let k = 0; k + 1 < crossings.length; k += 2) {
    const p = crossings[k] as (typeof crossings)[number];
    const q = crossings[k + 1] as (typeof crossings)[number];
    // Only where the ring touches the limit without crossing it: Sutherland and Hodgman's one ring.
    if (p.enters === q.enters) return [sutherlandHodgman(points, axis, limit, side)];
    const leaving = p.enters ? q : p;
    const entering = p.enters ? p : q;
    (chains[leaving.chain] as Chain).next = entering.chain;
  }
  const rings: number[][] = [];
  const used = new Uint8Array(chains.length);
  for (let start = 0; start < chains.length; start++) {
    if (used[start]) continue;
    const ring: number[] = [];
    for (let chain = start; chain >= 0 && !used[chain]; chain = (chains[chain] as Chain).next) {
      used[chain] = 1;
      ring.push(...(chains[chain] as Chain).points);
    }
    if (ring.length >= 6) rings.push(ring);
  }
  return rings;
}

/** The ring clipped to the same half-plane as one ring (clipRing), its separate parts joined along the limit. */
function sutherlandHodgman(points: number[], axis: 0 | 1, limit: number, side: 1 | -1): number[] {
  const out: number[] = [];
  const count = points.length / 2;
  for (let i = 0; i < count; i++) {
    const j = (i + 1) % count;
    const a = side * ((points[i * 2 + axis] as number) - limit);
    const b = side * ((points[j * 2 + axis] as number) - limit);
    if (a >= 0) out.push(points[i * 2] as number, points[i * 2 + 1] as number);
    if (a >= 0 !== b >= 0) {
      const t = a / (a - b);
      const x = axis === 0 ? limit : (points[i * 2] as number) + t * ((points[j * 2] as number) - (points[i * 2] as number));
      const y = axis === 1 ? limit : (points[i * 2 + 1] as number) + t * ((points[j * 2 + 1] as number) - (points[i * 2 + 1] as number));
      out.push(x, y);
    }
  }
  return out;
}

/** Each subpath's polygon (its points; a polygon path has lines only). */
function polygonsOf(path: PathGeometry): number[][] {
  const polygons: number[][] = [];
  let current: number[] = [];
  let at = 0;
  for (const command of path.commands) {
    if (command === PathCommand.move) {
      if (current.length >= 6) polygons.push(current);
      current = [];
    }
    if (command === PathCommand.close) continue;
    const points = command === PathCommand.cubic ? 3 : 1;
    // A cubic is kept as its end point: the tiles trace polygons, and the reader makes nothing else.
    current.push(path.coords[at + (points - 1) * 2] as number, path.coords[at + (points - 1) * 2 + 1] as number);
    at += points * 2;
  }
  if (current.length >= 6) polygons.push(current);
  return polygons;
}

/** The shape cut to `box`; undefined if nothing of it is left. Shapes wholly inside are returned as they are. */
export function clippedShape(shape: TracedShape, box: Box): TracedShape | undefined {
  const own = shapeBox(shape);
  const inside = own.x0 >= box.x0 && own.x1 <= box.x1 && own.y0 >= box.y0 && own.y1 <= box.y1;
  if (inside) return shape;
  const paths: PathGeometry[] = [];
  for (const path of shape.paths) {
    const commands: number[] = [];
    const coords: number[] = [];
    for (const polygon of polygonsOf(path)) {
      let rings = [polygon];
      for (const [axis, limit, side] of [[0, box.x0, 1], [0, box.x1, -1], [1, box.y0, 1], [1, box.y1, -1]] as const) rings = rings.flatMap((ring) => clipRing(ring, axis, limit, side));
      for (const ring of rings) {
        for (let i = 0; i < ring.length; i += 2) {
          commands.push(i === 0 ? PathCommand.move : PathCommand.line);
          coords.push(ring[i] as number, ring[i + 1] as number);
        }
        commands.push(PathCommand.close);
      }
    }
    if (commands.length > 0) paths.push({ commands, coords });
  }
  return paths.length > 0 ? { ...shape, paths } : undefined;
}

/**
 * Where `shape` covers the line at `position` across axis `axis` (0: a column x = position, 1: a
 * row), as intervals along the line (even–odd), flat [from, to, from, to …].
 */
function coverageAlong(shape: TracedShape, axis: 0 | 1, position: number): number[] {
  const crossings: number[] = [];
  // Most shapes lie on one side of the line: told by their box, without making their rings.
  const box = shapeBox(shape);
  if ((axis === 0 ? box.x0 : box.y0) >= position || (axis === 0 ? box.x1 : box.y1) < position) return crossings;
  for (const path of shape.paths) {
    for (const ring of polygonsOf(path)) {
      const count = ring.length / 2;
      for (let i = 0; i < count; i++) {
        const j = (i + 1) % count;
        const a = (ring[i * 2 + axis] as number) - position;
        const b = (ring[j * 2 + axis] as number) - position;
        if (a < 0 === b < 0) continue;
        const t = a / (a - b);
        const other = 1 - axis;
        crossings.push((ring[i * 2 + other] as number) + t * ((ring[j * 2 + other] as number) - (ring[i * 2 + other] as number)));
      }
    }
  }
  return crossings.sort((p, q) => p - q);
}

/**
 * A tile's shapes stack: where they all end at the same edge, each lower one shows through the
 * anti-aliased edge of the ones above it, and a picture drawn smaller than its size got a faint
 * line of the tile's lowest colours (its first, tile-wide shape) along every tile edge (17 → 37
 * levels in a dark sky). So along the tile's edge at `line` (its first column, `axis` 0, or row),
 * each shape reaches the edge only where it is on top (measured along the middle of the first
 * whole pixels inside), and elsewhere stops a pixel further in, where the shapes above it cover
 * its edge. Returns the shapes, those along the edge clipped anew.
 */
function withHiddenEdgesIn(shapes: TracedShape[], axis: 0 | 1, line: number, box: Box): TracedShape[] {
  const from = Math.floor(axis === 0 ? box.y0 : box.x0);
  const owner = new Int32Array(Math.ceil(axis === 0 ? box.y1 : box.x1) - from).fill(-1);
  const touching: boolean[] = [];
  shapes.forEach((shape, index) => {
    const crossings = coverageAlong(shape, axis, line + 1);
    touching.push(crossings.length > 0);
    for (let k = 0; k + 1 < crossings.length; k += 2) {
      const start = Math.max(0, Math.ceil((crossings[k] as number) - 0.5 - from));
      const end = Math.min(owner.length, Math.floor((crossings[k + 1] as number) - 0.5 - from) + 1);
      for (let at = start; at < end; at++) owner[at] = index;
    }
  });
  /** Each shape's runs on top along the line, as [start, end) in pixels, flat. */
  const runs = new Map<number, number[]>();
  for (let at = 0; at < owner.length; ) {
    const index = owner[at] as number;
    let end = at + 1;
    while (end < owner.length && owner[end] === index) end++;
    if (index >= 0) {
      const list = runs.get(index) ?? [];
      list.push(from + at, from + end);
      runs.set(index, list);
    }
    at = end;
  }
  const inward: Box = axis === 0 ? { ...box, x0: box.x0 + 1 } : { ...box, y0: box.y0 + 1 };
  const out: TracedShape[] = [];
  shapes.forEach((shape, index) => {
    if (!touching[index]) {
      out.push(shape);
      return;
    }
    // A pixel further in, and up to the edge where it is on top.
    const pieces = [clippedShape(shape, inward)];
    const own = runs.get(index) ?? [];
    for (let k = 0; k < own.length; k += 2) {
      const start = own[k] as number;
      const end = own[k + 1] as number;
      pieces.push(clippedShape(shape, axis === 0 ? { x0: box.x0, x1: box.x0 + 1, y0: Math.max(box.y0, start), y1: Math.min(box.y1, end) } : { x0: Math.max(box.x0, start), x1: Math.min(box.x1, end), y0: box.y0, y1: box.y0 + 1 }));
    }
    const paths = pieces.flatMap((piece) => piece?.paths ?? []);
    if (paths.length > 0) out.push({ ...shape, paths });
  });
  return out;
}

/** The tracer's shapes of the whole picture, traced tile by tile and stacked in the tiles' order. */
export async function traceInTiles(rgba: Buffer, width: number, height: number, config: Config, straightTolerance: number): Promise<TracedShape[]> {
  const shapes: TracedShape[] = [];
  for (const { drawn, traced } of tilesOf(width, height)) {
    const svg = await runTracer(boxPixels(rgba, width, traced), traced.x1 - traced.x0, traced.y1 - traced.y0, config);
    let tile: TracedShape[] = [];
    for (const shape of parseTracerSvg(svg, straightTolerance, traced.x0, traced.y0)) {
      const clipped = clippedShape(shape, drawn);
      if (clipped) tile.push(clipped);
    }
    // Its edges over the tiles drawn before it; those under the tiles drawn after it are covered.
    if (drawn.x0 > 0) tile = withHiddenEdgesIn(tile, 0, drawn.x0, drawn);
    if (drawn.y0 > 0) tile = withHiddenEdgesIn(tile, 1, drawn.y0, drawn);
    for (const shape of tile) shapes.push(shape);
  }
  return shapes;
}
