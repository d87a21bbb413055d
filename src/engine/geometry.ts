// The geometry model every stage after the tracer works on: shapes in working-resolution
// coordinates, each with a paint (flat colour or gradient) and paths in flat arrays.
// Writers (SVG today) turn it into a document at the original pixel size.

/** Steps of PathGeometry.commands. */
export const PathCommand = { move: 0, line: 1, cubic: 2, close: 3 } as const;

/**
 * Subpaths in flat arrays, absolute working-resolution coordinates. No object per point or
 * segment: tracer output runs to 10⁶ points, and allocating them cost more than parsing.
 */
export interface PathGeometry {
  /** One PathCommand per step. */
  commands: number[];
  /** The points of each step, x then y: one for move and line, three (c1, c2, end) for cubic, none for close. */
  coords: number[];
}

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

/** A colour stop: offset 0–1 along the gradient, colour, and opacity 0–1. */
export interface GradientStop {
  offset: number;
  color: Rgb;
  opacity: number;
}

/**
 * How a shape is filled. Gradient geometry is in working-resolution coordinates, like the paths
 * (user space, not the shape's bounding box); the colour is padded beyond the ends.
 */
export type Paint =
  | { kind: 'flat'; color: Rgb }
  | { kind: 'linear'; x1: number; y1: number; x2: number; y2: number; stops: GradientStop[] }
  | { kind: 'radial'; cx: number; cy: number; r: number; stops: GradientStop[] };

export type GradientPaint = Exclude<Paint, { kind: 'flat' }>;

/** One filled shape; a shape joined with others of its paint holds several geometries. */
export interface TracedShape {
  fill: Paint;
  /** 0–1; omitted from the output when 1. */
  opacity: number;
  paths: PathGeometry[];
}

/** A whole traced picture, ready for a writer. */
export interface VectorImage {
  /** Original pixel size: the document's size and viewBox. */
  width: number;
  height: number;
  /** Original size ÷ working size, per axis: multiply a working coordinate by it. */
  scaleX: number;
  scaleY: number;
  /** Opaque background painted first (line art on paper), or none. */
  background?: Rgb;
  /** In paint order: each shape lies under the ones after it. */
  shapes: TracedShape[];
}

export function flat(color: Rgb): Paint {
  return { kind: 'flat', color };
}

/** The colour a paint shows on average: a flat colour, or the mean of a gradient's stops weighted by their spans. */
export function meanColour(paint: Paint): Rgb {
  if (paint.kind === 'flat') return paint.color;
  const { stops } = paint;
  if (stops.length === 1) return (stops[0] as GradientStop).color;
  let r = 0;
  let g = 0;
  let b = 0;
  let total = 0;
  for (let i = 0; i + 1 < stops.length; i++) {
    const a = stops[i] as GradientStop;
    const z = stops[i + 1] as GradientStop;
    // Offsets outside 0–1 are clamped when drawn (as SVG does), so they are clamped here too.
    const span = Math.max(0, Math.min(1, Math.max(0, z.offset)) - Math.min(1, Math.max(0, a.offset)));
    r += ((a.color.r + z.color.r) / 2) * span;
    g += ((a.color.g + z.color.g) / 2) * span;
    b += ((a.color.b + z.color.b) / 2) * span;
    total += span;
  }
  if (total === 0) return (stops[0] as GradientStop).color;
  return { r: r / total, g: g / total, b: b / total };
}

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Bounding box of a shape's points, control points included (the curve lies within their hull). */
export function shapeBox(shape: TracedShape): Box {
  const box: Box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  for (const { coords } of shape.paths) {
    for (let at = 0; at + 1 < coords.length; at += 2) {
      const x = coords[at] as number;
      const y = coords[at + 1] as number;
      if (x < box.x0) box.x0 = x;
      if (y < box.y0) box.y0 = y;
      if (x > box.x1) box.x1 = x;
      if (y > box.y1) box.y1 = y;
    }
  }
  return box;
}

/**
 * The image without subpaths that enclose no area once written at `decimals` places (a sliver
 * traced down to a line, or a speck rounded to one point): no renderer paints them, a cutter
 * cannot follow them, and a shape left with none is dropped. The area is taken over every
 * point of a subpath, control points included: it is zero only when all of them are in line.
 */
export function withoutDegenerateSubpaths(image: VectorImage, decimals: number): VectorImage {
  const step = 10 ** decimals;
  const minimumArea = 0.5 / (step * step);
  const round = (value: number, scale: number) => Math.round(value * scale * step) / step;
  const shapes: TracedShape[] = [];
  for (const shape of image.shapes) {
    const paths: PathGeometry[] = [];
    for (const path of shape.paths) {
      const kept: PathGeometry = { commands: [], coords: [] };
      let command = 0;
      let coord = 0;
      while (command < path.commands.length) {
        // One subpath: a move and everything up to the next move.
        const firstCommand = command;
        const firstCoord = coord;
        do {
          const kind = path.commands[command] as number;
          coord += kind === PathCommand.cubic ? 6 : kind === PathCommand.close ? 0 : 2;
          command++;
        } while (command < path.commands.length && path.commands[command] !== PathCommand.move);
        let twiceArea = 0;
        const count = (coord - firstCoord) / 2;
        for (let i = 0; i < count; i++) {
          const j = (i + 1) % count;
          const xi = round(path.coords[firstCoord + 2 * i] as number, image.scaleX);
          const yi = round(path.coords[firstCoord + 2 * i + 1] as number, image.scaleY);
          const xj = round(path.coords[firstCoord + 2 * j] as number, image.scaleX);
          const yj = round(path.coords[firstCoord + 2 * j + 1] as number, image.scaleY);
          twiceArea += xi * yj - xj * yi;
        }
        if (Math.abs(twiceArea) / 2 < minimumArea) continue;
        for (let i = firstCommand; i < command; i++) kept.commands.push(path.commands[i] as number);
        for (let i = firstCoord; i < coord; i++) kept.coords.push(path.coords[i] as number);
      }
      if (kept.commands.length > 0) paths.push(kept.commands.length === path.commands.length ? path : kept);
    }
    if (paths.length > 0) shapes.push(paths.length === shape.paths.length && paths.every((p, i) => p === shape.paths[i]) ? shape : { ...shape, paths });
  }
  return shapes.length === image.shapes.length && shapes.every((s, i) => s === image.shapes[i]) ? image : { ...image, shapes };
}
