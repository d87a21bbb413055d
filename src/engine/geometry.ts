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
  /**
   * A centerline stroke: the paths are open lines, drawn (not filled) with round caps and joins,
   * this wide (working pixels), in the colour of `fill` (always flat).
   */
  stroke?: { width: number };
  /**
   * A soft edge: the shape is drawn under a Gaussian blur of this standard deviation (working
   * pixels), as a shadow or a glow is drawn (paint/soft-edges.ts). SVG and PNG carry it; the
   * other writers draw the shape unblurred.
   */
  blur?: number;
}

/** Whether a shape is drawn as a stroke (centerline) rather than filled. */
export function isStroke(shape: TracedShape): boolean {
  return shape.stroke !== undefined;
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

/** Distance from (px, py) to the segment (ax, ay)–(bx, by). */
export function distanceToSegment(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const lengthSquared = dx * dx + dy * dy;
  const t = lengthSquared === 0 ? 0 : Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / lengthSquared));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** Subpaths enclosing less than this (original pixels²) are not written. */
export const MIN_SUBPATH_AREA = 1 / 16;

/**
 * The image without subpaths that enclose no area once written at `decimals` places (a sliver
 * traced down to a line, or a speck rounded to one point), nor under MIN_SUBPATH_AREA: no
 * renderer paints them as more than a tint, a cutter
 * cannot follow them, and a shape left with none is dropped. The area is taken over every
 * point of a subpath, control points included: it is zero only when all of them are in line.
 */
export function withoutDegenerateSubpaths(image: VectorImage, decimals: number): VectorImage {
  const step = 10 ** decimals;
  // A sixteenth of a pixel: a speck no renderer shows as more than a faint tint.
  const minimumArea = Math.max(0.5 / (step * step), MIN_SUBPATH_AREA);
  const round = (value: number, scale: number) => Math.round(value * scale * step) / step;
  const shapes: TracedShape[] = [];
  for (const shape of image.shapes) {
    // A stroke encloses nothing by design: its lines are what is drawn.
    if (shape.stroke) {
      shapes.push(shape);
      continue;
    }
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

/**
 * The image with straight pieces written as lines: a cubic whose control points lie on its chord
 * (within half the written precision) becomes a line, and a line that continues the one before it
 * in the same direction extends it. Curve fitting leaves straight sides as runs of straight cubics,
 * each costing three points in the document; drawn, nothing changes beyond the rounding.
 */
export function withStraightLines(image: VectorImage, decimals: number): VectorImage {
  const tolerance = 0.5 * 10 ** -decimals;
  const { scaleX, scaleY } = image;
  /** distanceToSegment in original pixels: p from the segment a→b. */
  const off = (px: number, py: number, ax: number, ay: number, bx: number, by: number): number =>
    distanceToSegment(px * scaleX, py * scaleY, ax * scaleX, ay * scaleY, bx * scaleX, by * scaleY);
  const straighten = (path: PathGeometry): PathGeometry => {
    const commands: number[] = [];
    const coords: number[] = [];
    let x = 0;
    let y = 0;
    // Where the last written command, if a line, started: a line after it may extend it.
    let lineFromX = NaN;
    let lineFromY = NaN;
    let read = 0;
    const lineTo = (toX: number, toY: number) => {
      if (commands[commands.length - 1] === PathCommand.line && !Number.isNaN(lineFromX)) {
        if (off(x, y, lineFromX, lineFromY, toX, toY) <= tolerance) {
          coords[coords.length - 2] = toX;
          coords[coords.length - 1] = toY;
          x = toX;
          y = toY;
          return;
        }
      }
      lineFromX = x;
      lineFromY = y;
      commands.push(PathCommand.line);
      coords.push(toX, toY);
      x = toX;
      y = toY;
    };
    for (const command of path.commands) {
      if (command === PathCommand.move || command === PathCommand.line) {
        const toX = path.coords[read] as number;
        const toY = path.coords[read + 1] as number;
        read += 2;
        if (command === PathCommand.line) {
          lineTo(toX, toY);
          continue;
        }
        commands.push(command);
        coords.push(toX, toY);
        x = toX;
        y = toY;
        lineFromX = NaN;
      } else if (command === PathCommand.cubic) {
        const c = path.coords;
        const toX = c[read + 4] as number;
        const toY = c[read + 5] as number;
        const straight =
          (toX !== x || toY !== y) &&
          off(c[read] as number, c[read + 1] as number, x, y, toX, toY) <= tolerance &&
          off(c[read + 2] as number, c[read + 3] as number, x, y, toX, toY) <= tolerance;
        if (straight) {
          read += 6;
          lineTo(toX, toY);
          continue;
        }
        commands.push(command);
        for (let k = 0; k < 6; k++) coords.push(c[read + k] as number);
        read += 6;
        x = toX;
        y = toY;
        lineFromX = NaN;
      } else {
        commands.push(command);
        lineFromX = NaN;
      }
    }
    return coords.length === path.coords.length ? path : { commands, coords };
  };
  return { ...image, shapes: image.shapes.map((shape) => ({ ...shape, paths: shape.paths.map(straighten) })) };
}
