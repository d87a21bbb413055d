// The cut report: what a cutter, plotter or embroidery machine will meet in the file, measured
// on the geometry as written (Clipper2 on a grid at least 16 units per pixel):
// - `paths`: subpaths written (closed outlines, the paper's rectangle and open strokes alike);
// - `open_paths`: those that are open (centerline strokes);
// - `smallest_feature`: the narrowest piece (an outline of a shape with its holes) or hole (the
//   diameter of the largest disc it holds), in `unit`; null when nothing is filled (the paper's
//   rectangle of line art is the sheet, not a feature);
// - `removed_below_min_feature`: pieces and holes `minFeature` took out;
// - `islands`: holes in the pieces: cut out of a sheet (a stencil), the middle of each such hole
//   is held by nothing and falls out;
// - `overlaps`: filled shapes that a later shape lies on somewhere at least a pixel wide (every
//   shape with something over it, stacked; 0 for cut-outs, whose cut lines, rounded to the
//   coordinates' grid, leave slivers narrower than a grid step).

import { Clipper, FillRule, type Path64, type Paths64 } from 'clipper2-ts';
import { hypot, shapeBox, type Box, type TracedShape, type VectorImage } from '../geometry.ts';
import { flattenGeometry, flattenOpenGeometry } from '../write/flatten.ts';
import { isNarrowerThan, measuringGrid, piecePaths, piecesOf, ringsOf } from '../write/min-feature.ts';
import type { Grid } from '../write/cutouts.ts';
import { unitsPerPixel, type PhysicalSize } from '../write/page.ts';

export interface CutReport {
  paths: number;
  open_paths: number;
  smallest_feature: number | null;
  removed_below_min_feature: number;
  islands: number;
  overlaps: number;
}

/** Widths are measured exactly for at most this many of the narrowest-looking pieces and holes. */
const MEASURED_CANDIDATES = 200;
/** An overlap narrower than this (original pixels) is rounding along a cut line, not an overlap. */
const OVERLAP_WIDTH = 1;

function flattenedRings(shape: TracedShape, grid: Grid, tolerance: number): Paths64 {
  const rings: Paths64 = [];
  for (const geometry of shape.paths) {
    for (const polygon of flattenGeometry(geometry, tolerance)) {
      const ring: Path64 = [];
      for (let at = 0; at + 1 < polygon.length; at += 2) ring.push({ x: Math.round((polygon[at] as number) * grid.unitsX), y: Math.round((polygon[at + 1] as number) * grid.unitsY) });
      rings.push(ring);
    }
  }
  return rings;
}

function perimeter(ring: Path64): number {
  let length = 0;
  for (let i = 0; i < ring.length; i++) {
    const a = ring[i] as { x: number; y: number };
    const b = ring[(i + 1) % ring.length] as { x: number; y: number };
    length += hypot(b.x - a.x, b.y - a.y);
  }
  return length;
}

interface Candidate {
  paths: Paths64;
  /** 2 × area ÷ perimeter: the width of a strip, half that of a disc; never more than the width. */
  bound: number;
}

function candidate(paths: Paths64): Candidate {
  const area = Math.abs(Clipper.areaPaths(paths));
  const length = paths.reduce((sum, ring) => sum + perimeter(ring), 0);
  return { paths, bound: length > 0 ? (2 * area) / length : 0 };
}

/** The diameter of the largest disc the paths hold, within half a percent (grid units). */
function widthOf(paths: Paths64, atLeast: number): number {
  let low = Math.max(0, atLeast * 0.999);
  let high = Math.max(1, 2 * atLeast);
  while (!isNarrowerThan(paths, high)) {
    low = high;
    high *= 2;
  }
  while (high - low > Math.max(0.5, 0.005 * high)) {
    const middle = (low + high) / 2;
    if (isNarrowerThan(paths, middle)) high = middle;
    else low = middle;
  }
  return (low + high) / 2;
}

export function cutReport(image: VectorImage, decimals: number, page: PhysicalSize, removed: number): CutReport {
  const { grid, tolerance, unitsPerPixel: gridPerPixel } = measuringGrid(image, decimals);
  let paths = 0;
  let openPaths = 0;
  const filled: { shape: TracedShape; rings: Paths64; box: Box }[] = [];
  if (image.background) {
    const w = image.width * gridPerPixel;
    const h = image.height * gridPerPixel;
    const rect: Path64 = [{ x: 0, y: 0 }, { x: w, y: 0 }, { x: w, y: h }, { x: 0, y: h }];
    const paper: TracedShape = { fill: { kind: 'flat', color: image.background }, opacity: 1, paths: [] };
    filled.push({ shape: paper, rings: [rect], box: { x0: 0, y0: 0, x1: w, y1: h } });
    paths++;
  }
  for (const shape of image.shapes) {
    if (shape.stroke) {
      for (const geometry of shape.paths) {
        const lines = flattenOpenGeometry(geometry, tolerance).length;
        paths += lines;
        openPaths += lines;
      }
      continue;
    }
    const rings = flattenedRings(shape, grid, tolerance);
    paths += rings.length;
    if (rings.length === 0) continue;
    const box = shapeBox(shape);
    filled.push({ shape, rings, box: { x0: box.x0 * grid.unitsX, y0: box.y0 * grid.unitsY, x1: box.x1 * grid.unitsX, y1: box.y1 * grid.unitsY } });
  }

  // Pieces and holes as a cutter meets them: each shape's outlines with the holes inside them.
  let islands = 0;
  const candidates: Candidate[] = [];
  for (const { shape } of filled) {
    // The paper's rectangle is the sheet, not a feature of the picture.
    if (shape.paths.length === 0) continue;
    const own = ringsOf(shape.paths, grid, tolerance);
    const { pieces } = piecesOf(own);
    for (const piece of pieces) {
      candidates.push(candidate(piecePaths(piece)));
      for (const hole of piece.holes) {
        islands++;
        candidates.push(candidate([Clipper.isPositive(hole.ring) ? hole.ring : Clipper.reversePath(hole.ring)]));
      }
    }
  }
  candidates.sort((a, b) => a.bound - b.bound);
  let smallest = Infinity;
  for (const entry of candidates.slice(0, MEASURED_CANDIDATES)) {
    if (entry.bound >= smallest) break;
    smallest = Math.min(smallest, widthOf(entry.paths, entry.bound));
  }

  return {
    paths,
    open_paths: openPaths,
    smallest_feature: Number.isFinite(smallest) ? roundLength((smallest / gridPerPixel) * unitsPerPixel(page), page) : null,
    removed_below_min_feature: removed,
    islands,
    overlaps: countOverlaps(filled, OVERLAP_WIDTH * gridPerPixel),
  };
}

function roundLength(value: number, page: PhysicalSize): number {
  const places = page.unit === 'in' ? 4 : page.unit === 'mm' ? 3 : 2;
  return Number(value.toFixed(places));
}

/** Shapes that later shapes lie on somewhere at least `width` wide (grid units), all later ones cut away at once. */
function countOverlaps(filled: { rings: Paths64; box: Box }[], width: number): number {
  let overlaps = 0;
  // Each shape normalised on its own: concatenated, they then fill by the nonzero rule where any of them does.
  const normalised = filled.map(({ rings }) => Clipper.union(rings, FillRule.NonZero));
  filled.forEach(({ box }, index) => {
    const clip: Paths64 = [];
    for (let other = index + 1; other < filled.length; other++) {
      const otherBox = (filled[other] as { box: Box }).box;
      if (otherBox.x0 >= box.x1 || otherBox.x1 <= box.x0 || otherBox.y0 >= box.y1 || otherBox.y1 <= box.y0) continue;
      for (const ring of normalised[other] as Paths64) clip.push(ring);
    }
    if (clip.length === 0) return;
    const common = Clipper.intersect(normalised[index] as Paths64, clip, FillRule.NonZero);
    if (common.length > 0 && !isNarrowerThan(common, width)) overlaps++;
  });
  return overlaps;
}
