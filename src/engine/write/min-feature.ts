// `minFeature`: pieces and holes narrower than a width are removed, for cutters (a piece too
// small to weed, a sliver a blade tears), embroidery (an area too small to stitch) and screens (a
// dot the mesh does not hold). "Narrower" is measured as the largest disc a piece (an outline
// with its holes) or a hole holds: it is narrower than w when shrinking it by w/2 leaves nothing
// (Clipper2's offset). A piece or hole that holds such a disc is kept exactly as it was, curves
// included; only those that do not are taken out, whole. A removed piece of a cut-out goes to the
// neighbour it shares most boundary with (nothing lies under a cut-out to show through); a
// removed piece of a stacked picture leaves what lies under it showing. A hole filled takes the
// colour of the shape around it. Strokes (centerline) are lines to draw and are left alone.

import { Clipper, EndType, FillRule, JoinType, PointInPolygonResult, type Path64, type Paths64 } from 'clipper2-ts';
import { distanceToSegment, PathCommand, shapeBox, type Box, type PathGeometry, type TracedShape, type VectorImage } from '../geometry.ts';
import { toGeometry, type Grid } from './cutouts.ts';
import { flattenGeometry } from './flatten.ts';

/** Grid units per original pixel at least, for measuring widths finer than the written coordinates. */
const MIN_UNITS_PER_PIXEL = 16;
/**
 * Grid units per original pixel at most: a thousandth of a pixel is finer than any width
 * measured, and a finer grid only multiplies the points curves are flattened into (at
 * pathPrecision 10 a 32 px icon's output step is 10⁻⁸ px, and measuring it took 35 s).
 */
const MAX_UNITS_PER_PIXEL = 1000;

/**
 * A grid of integer units for Clipper: the output's rounding step, or a whole fraction of it;
 * a thousandth of a pixel where the output is finer than that.
 */
export function measuringGrid(image: VectorImage, decimals: number): { grid: Grid; unitsPerPixel: number; tolerance: number } {
  const step = Math.min(10 ** decimals, MAX_UNITS_PER_PIXEL);
  const unitsPerPixel = step * Math.max(1, Math.ceil(MIN_UNITS_PER_PIXEL / step));
  return {
    grid: { unitsX: image.scaleX * unitsPerPixel, unitsY: image.scaleY * unitsPerPixel },
    unitsPerPixel,
    tolerance: 0.25 / unitsPerPixel / Math.max(image.scaleX, image.scaleY),
  };
}

/** One subpath of a geometry: its commands and coordinates, flattened to a ring on the grid. */
export interface Ring {
  geometry: number;
  commands: number[];
  coords: number[];
  ring: Path64;
  area: number;
}

/** A geometry's subpaths, each with its flattened ring (subpaths enclosing nothing are dropped). */
export function ringsOf(paths: PathGeometry[], grid: Grid, tolerance: number): Ring[] {
  const rings: Ring[] = [];
  paths.forEach((geometry, index) => {
    let command = 0;
    let coord = 0;
    while (command < geometry.commands.length) {
      const firstCommand = command;
      const firstCoord = coord;
      do {
        const kind = geometry.commands[command] as number;
        coord += kind === PathCommand.cubic ? 6 : kind === PathCommand.close ? 0 : 2;
        command++;
      } while (command < geometry.commands.length && geometry.commands[command] !== PathCommand.move);
      const sub: PathGeometry = { commands: geometry.commands.slice(firstCommand, command), coords: geometry.coords.slice(firstCoord, coord) };
      const polygon = flattenGeometry(sub, tolerance)[0];
      if (!polygon) continue;
      const ring: Path64 = [];
      for (let at = 0; at + 1 < polygon.length; at += 2) ring.push({ x: Math.round((polygon[at] as number) * grid.unitsX), y: Math.round((polygon[at + 1] as number) * grid.unitsY) });
      const area = Clipper.area(ring);
      if (area !== 0) rings.push({ geometry: index, ...sub, ring, area });
    }
  });
  return rings;
}

/** Whether paths (oriented, nonzero) hold no disc of diameter `width` (grid units). */
export function isNarrowerThan(paths: Paths64, width: number): boolean {
  if (holdsDiscAtCentre(paths, width / 2)) return false;
  return Clipper.inflatePaths(paths, -width / 2, JoinType.Round, EndType.Polygon).length === 0;
}

/** Grid units a point must clear the radius by to count as holding the disc: the offset's own rounding. */
const DISC_MARGIN = 4;

/**
 * Whether a disc of `radius` (grid units) fits around the centroid of the largest outline, or the
 * centre of its box: a point inside the paths farther than that from every edge. Most pieces
 * measured are shapes many times wider than the width asked for, and this answers them in one
 * pass over their edges, where the offset (Clipper) builds and unites the shrunk outline: an
 * icon's sliver step took a sixth of its conversion. Undecided (false) sends the paths to the offset.
 */
function holdsDiscAtCentre(paths: Paths64, radius: number): boolean {
  let largest: Path64 | undefined;
  let largestArea = 0;
  for (const path of paths) {
    const area = Clipper.area(path);
    if (area > largestArea) {
      largestArea = area;
      largest = path;
    }
  }
  if (!largest) return false;
  const box = ringBox(largest);
  if (box.x1 - box.x0 < 2 * radius || box.y1 - box.y0 < 2 * radius) return false;
  let cx = 0;
  let cy = 0;
  let twiceArea = 0;
  for (let i = 0, j = largest.length - 1; i < largest.length; j = i++) {
    const a = largest[j] as { x: number; y: number };
    const b = largest[i] as { x: number; y: number };
    const cross = a.x * b.y - b.x * a.y;
    twiceArea += cross;
    cx += (a.x + b.x) * cross;
    cy += (a.y + b.y) * cross;
  }
  const candidates: [number, number][] = [[(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2]];
  if (twiceArea !== 0) candidates.unshift([cx / (3 * twiceArea), cy / (3 * twiceArea)]);
  return candidates.some(([x, y]) => windingAt(paths, x, y) !== 0 && clearOfEdges(paths, x, y, radius + DISC_MARGIN));
}

/** The winding number of paths around (x, y). */
function windingAt(paths: Paths64, x: number, y: number): number {
  let winding = 0;
  for (const path of paths) {
    for (let i = 0, j = path.length - 1; i < path.length; j = i++) {
      const a = path[j] as { x: number; y: number };
      const b = path[i] as { x: number; y: number };
      const side = (b.x - a.x) * (y - a.y) - (x - a.x) * (b.y - a.y);
      if (a.y <= y) {
        if (b.y > y && side > 0) winding++;
      } else if (b.y <= y && side < 0) winding--;
    }
  }
  return winding;
}

/** Whether every edge of paths lies at least `clearance` from (x, y); stops at the first nearer one. */
function clearOfEdges(paths: Paths64, x: number, y: number, clearance: number): boolean {
  for (const path of paths) {
    for (let i = 0, j = path.length - 1; i < path.length; j = i++) {
      const a = path[j] as { x: number; y: number };
      const b = path[i] as { x: number; y: number };
      if (distanceToSegment(x, y, a.x, a.y, b.x, b.y) < clearance) return false;
    }
  }
  return true;
}

function ringBox(ring: Path64): Box {
  const box: Box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  for (const { x, y } of ring) {
    box.x0 = Math.min(box.x0, x);
    box.y0 = Math.min(box.y0, y);
    box.x1 = Math.max(box.x1, x);
    box.y1 = Math.max(box.y1, y);
  }
  return box;
}

function inside(inner: Box, outer: Box): boolean {
  return inner.x0 >= outer.x0 && inner.x1 <= outer.x1 && inner.y0 >= outer.y0 && inner.y1 <= outer.y1;
}

/** A shape's outlines with their holes: each hole goes to the smallest outline around it. */
export interface Piece {
  outline: Ring;
  holes: Ring[];
}

/**
 * The pieces of a shape. Outlines turn one way and holes the other (the nonzero rule); within
 * each geometry, the subpath of the largest area is an outline, which says which way is which.
 */
export function piecesOf(rings: Ring[]): { pieces: Piece[]; orphanHoles: Ring[] } {
  const outlineSign = new Map<number, number>();
  for (const ring of rings) {
    const best = outlineSign.get(ring.geometry);
    if (best === undefined || Math.abs(ring.area) > Math.abs(best)) outlineSign.set(ring.geometry, ring.area);
  }
  const outlines = rings.filter((ring) => Math.sign(ring.area) === Math.sign(outlineSign.get(ring.geometry) as number));
  const holes = rings.filter((ring) => Math.sign(ring.area) !== Math.sign(outlineSign.get(ring.geometry) as number));
  const pieces: Piece[] = outlines.map((outline) => ({ outline, holes: [] }));
  const boxes = outlines.map((outline) => ringBox(outline.ring));
  const orphanHoles: Ring[] = [];
  for (const hole of holes) {
    const box = ringBox(hole.ring);
    const probe = hole.ring[0] as { x: number; y: number };
    let owner = -1;
    pieces.forEach((piece, index) => {
      if (!inside(box, boxes[index] as Box)) return;
      if (Clipper.pointInPolygon(probe, piece.outline.ring) === PointInPolygonResult.IsOutside) return;
      if (owner < 0 || Math.abs(piece.outline.area) < Math.abs((pieces[owner] as Piece).outline.area)) owner = index;
    });
    if (owner < 0) orphanHoles.push(hole);
    else (pieces[owner] as Piece).holes.push(hole);
  }
  return { pieces, orphanHoles };
}

/** A piece's rings as Clipper paths turning the positive way (outline) and the other (holes). */
export function piecePaths(piece: Piece): Paths64 {
  const orient = (ring: Path64, positive: boolean) => (Clipper.isPositive(ring) === positive ? ring : Clipper.reversePath(ring));
  return [orient(piece.outline.ring, true), ...piece.holes.map((hole) => orient(hole.ring, false))];
}

function geometryFrom(rings: Ring[], count: number): PathGeometry[] {
  const out: PathGeometry[] = Array.from({ length: count }, () => ({ commands: [], coords: [] }));
  for (const ring of rings) {
    const target = out[ring.geometry] as PathGeometry;
    for (const command of ring.commands) target.commands.push(command);
    for (const coord of ring.coords) target.coords.push(coord);
  }
  return out.filter((geometry) => geometry.commands.length > 0);
}

export interface NarrowFeatures {
  image: VectorImage;
  /** Pieces and holes taken out. */
  removed: number;
}

/**
 * The picture without pieces and holes narrower than `width` (original pixels). `disjoint`
 * (cut-outs): a removed piece joins its neighbour; otherwise what lies under it shows.
 */
export function removeNarrowFeatures(image: VectorImage, width: number, decimals: number, disjoint: boolean): NarrowFeatures {
  if (!(width > 0)) return { image, removed: 0 };
  // A piece joining its neighbour can close a narrow gap into a hole: cut-outs get another pass.
  let result = removeOnce(image, width, decimals, disjoint);
  for (let pass = 1; pass < 3 && disjoint && result.merged; pass++) {
    const again = removeOnce(result.image, width, decimals, disjoint);
    result = { ...again, removed: result.removed + again.removed };
  }
  return { image: result.image, removed: result.removed };
}

function removeOnce(image: VectorImage, width: number, decimals: number, disjoint: boolean): NarrowFeatures & { merged: boolean } {
  const { grid, unitsPerPixel, tolerance } = measuringGrid(image, decimals);
  const limit = width * unitsPerPixel;
  let removed = 0;
  const kept: TracedShape[] = [];
  const dropped: { paths: Paths64; box: Box }[] = [];
  // Cut-outs: a narrow hole usually holds a narrow piece of another shape, and that piece going
  // to this shape fills the hole: one feature, counted once, with the piece.
  const filledHoles: Path64[] = [];
  for (const shape of image.shapes) {
    if (shape.stroke) {
      kept.push(shape);
      continue;
    }
    const rings = ringsOf(shape.paths, grid, tolerance);
    const { pieces, orphanHoles } = piecesOf(rings);
    const keptRings: Ring[] = [...orphanHoles];
    for (const piece of pieces) {
      const paths = piecePaths(piece);
      if (isNarrowerThan(paths, limit)) {
        removed++;
        if (disjoint) dropped.push({ paths, box: ringBox(piece.outline.ring) });
        continue;
      }
      keptRings.push(piece.outline);
      for (const hole of piece.holes) {
        // A hole is narrow when, taken as an area of its own, it holds no disc of the width.
        if (isNarrowerThan([Clipper.isPositive(hole.ring) ? hole.ring : Clipper.reversePath(hole.ring)], limit)) {
          if (disjoint) filledHoles.push(hole.ring);
          else removed++;
        } else keptRings.push(hole);
      }
    }
    // Rings keep their order within the shape (the nonzero rule does not care, readers might).
    keptRings.sort((a, b) => rings.indexOf(a) - rings.indexOf(b));
    const paths = geometryFrom(keptRings, shape.paths.length);
    if (paths.length > 0) kept.push({ ...shape, paths });
  }
  for (const hole of filledHoles) {
    const holds = dropped.some((piece) => Clipper.pointInPolygon(piece.paths[0]?.[0] ?? { x: 0, y: 0 }, hole) !== PointInPolygonResult.IsOutside);
    if (!holds) removed++;
  }
  // A rounding step of the output's coordinates, and a unit more, in grid units.
  const reach = Math.round(unitsPerPixel / 10 ** decimals) + 1;
  const shapes = disjoint && dropped.length > 0 ? mergeIntoNeighbours(kept, dropped, grid, tolerance, limit, reach) : kept;
  return { image: { ...image, shapes }, removed, merged: disjoint && dropped.length > 0 };
}

/**
 * Cut-outs: each removed piece joins the kept shape it touches most (none: it is gone). The two
 * sides of a cut line are the same line only up to the grid (the cut rounds where it crosses an
 * edge), so a union can enclose slivers between them: holes narrower than the limit in a merged
 * shape are such slivers, and are filled (nothing lies in them).
 */
function mergeIntoNeighbours(shapes: TracedShape[], dropped: { paths: Paths64; box: Box }[], grid: Grid, tolerance: number, limit: number, reach: number): TracedShape[] {
  const boxes = shapes.map(shapeBox);
  const merged = new Map<number, Paths64>();
  const polygonsOf = (index: number): Paths64 => {
    const known = merged.get(index);
    if (known) return known;
    const paths: Paths64 = [];
    for (const geometry of (shapes[index] as TracedShape).paths) {
      for (const polygon of flattenGeometry(geometry, tolerance)) {
        const ring: Path64 = [];
        for (let at = 0; at + 1 < polygon.length; at += 2) ring.push({ x: Math.round((polygon[at] as number) * grid.unitsX), y: Math.round((polygon[at + 1] as number) * grid.unitsY) });
        paths.push(ring);
      }
    }
    return paths;
  };
  // A cut line's two sides may lie up to a rounding step of the coordinates apart: the piece is
  // grown by `reach` to meet its neighbour, and kept off every other shape.
  for (const piece of dropped) {
    const grown = Clipper.inflatePaths(piece.paths, reach, JoinType.Miter, EndType.Polygon);
    let best = -1;
    let bestContact = 0;
    const touching: number[] = [];
    shapes.forEach((shape, index) => {
      if (shape.stroke) return;
      const box = boxes[index] as Box;
      // Shape boxes are in working pixels; the piece's in grid units.
      if (box.x1 * grid.unitsX < piece.box.x0 - reach || box.x0 * grid.unitsX > piece.box.x1 + reach) return;
      if (box.y1 * grid.unitsY < piece.box.y0 - reach || box.y0 * grid.unitsY > piece.box.y1 + reach) return;
      const contact = Math.abs(Clipper.areaPaths(Clipper.intersect(grown, polygonsOf(index), FillRule.NonZero)));
      if (contact === 0) return;
      touching.push(index);
      if (contact > bestContact) {
        bestContact = contact;
        best = index;
      }
    });
    if (best < 0) continue;
    const others = touching.filter((index) => index !== best).flatMap((index) => polygonsOf(index));
    const part = others.length > 0 ? Clipper.difference(grown, others, FillRule.NonZero) : grown;
    merged.set(best, Clipper.union(polygonsOf(best), part, FillRule.NonZero));
  }
  return shapes.map((shape, index) => {
    const paths = merged.get(index);
    if (!paths) return shape;
    // Clipper's union turns outlines positive and holes negative.
    const cleaned = paths.filter((ring) => Clipper.isPositive(ring) || !isNarrowerThan([Clipper.reversePath(ring)], limit));
    return { ...shape, paths: [toGeometry(cleaned, grid)] };
  });
}
