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

/** The shape with its geometry, paint, stroke and blur scaled by sx and sy (from one grid to another). */
export function scaledShape(shape: TracedShape, sx: number, sy: number): TracedShape {
  const mean = Math.sqrt(sx * sy);
  const paths = shape.paths.map((path) => ({ commands: path.commands, coords: path.coords.map((value, index) => value * (index % 2 === 0 ? sx : sy)) }));
  const fill: Paint =
    shape.fill.kind === 'linear'
      ? { ...shape.fill, x1: shape.fill.x1 * sx, y1: shape.fill.y1 * sy, x2: shape.fill.x2 * sx, y2: shape.fill.y2 * sy }
      : shape.fill.kind === 'radial'
        ? { ...shape.fill, cx: shape.fill.cx * sx, cy: shape.fill.cy * sy, r: shape.fill.r * mean }
        : shape.fill;
  return {
    ...shape,
    fill,
    paths,
    ...(shape.stroke ? { stroke: { width: shape.stroke.width * mean } } : {}),
    ...(shape.blur !== undefined ? { blur: shape.blur * mean } : {}),
  };
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
  /**
   * The whole drawing's opacity, over each shape's own, when the artwork is translucent as a whole
   * (analyse/translucency.ts); opaque when absent.
   */
  opacity?: number;
}

/**
 * The drawing with its own opacity (VectorImage.opacity) moved onto each shape's: the same picture
 * where shapes do not overlap, for writers without group opacity and for shapes laid over the
 * drawing at their own strength (a test key's watermark).
 */
export function withOpacityPerShape(image: VectorImage): VectorImage {
  const { opacity, ...drawing } = image;
  if (opacity === undefined || opacity === 1) return drawing;
  return { ...drawing, shapes: image.shapes.map((shape) => ({ ...shape, opacity: shape.opacity * opacity })) };
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
 * Math.hypot(x, y) to the last bit, as V8 computes it for two numbers: the larger magnitude m
 * times √((|x|/m)² + (|y|/m)²) (its Kahan sum of two terms from zero is the plain sum), after the
 * special cases (an infinity, NaN, both zero). V8's builtin allocates an array on every call and
 * is not inlined: outlines, curve fitting and the check call it 10⁷ times on a large picture.
 */
export function hypot(x: number, y: number): number {
  const a = Math.abs(x);
  const b = Math.abs(y);
  if (a === Infinity || b === Infinity) return Infinity;
  if (Number.isNaN(a) || Number.isNaN(b)) return NaN;
  const max = b > a ? b : a;
  if (max === 0) return 0;
  const p = a / max;
  const q = b / max;
  return Math.sqrt(p * p + q * q) * max;
}

/** Distance from (px, py) to the segment (ax, ay)–(bx, by). */
export function distanceToSegment(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const lengthSquared = dx * dx + dy * dy;
  const t = lengthSquared === 0 ? 0 : Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / lengthSquared));
  return hypot(px - (ax + t * dx), py - (ay + t * dy));
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
  // Shapes and paths are copied only once one of them changes: most are kept whole (a photograph's
  // 10⁵ shapes), and copying each to compare it with the original was most of this pass's time.
  let shapes: TracedShape[] | undefined;
  for (let s = 0; s < image.shapes.length; s++) {
    const shape = image.shapes[s] as TracedShape;
    // A stroke encloses nothing by design: its lines are what is drawn.
    // A shape without paths is dropped, as is one left without any.
    let paths: PathGeometry[] | undefined = !shape.stroke && shape.paths.length === 0 ? [] : undefined;
    if (!shape.stroke) {
      for (let p = 0; p < shape.paths.length; p++) {
        const path = shape.paths[p] as PathGeometry;
        const kept = withoutDegenerateSubpathsOf(path, image.scaleX, image.scaleY, step, minimumArea);
        if (kept !== path && !paths) paths = shape.paths.slice(0, p);
        if (paths && kept) paths.push(kept);
      }
    }
    if (paths && !shapes) shapes = image.shapes.slice(0, s);
    if (shapes && (!paths || paths.length > 0)) shapes.push(paths ? { ...shape, paths } : shape);
  }
  return shapes ? { ...image, shapes } : image;
}

/** One path without its degenerate subpaths (withoutDegenerateSubpaths): the path itself when all are kept, undefined when none is. */
function withoutDegenerateSubpathsOf(path: PathGeometry, scaleX: number, scaleY: number, step: number, minimumArea: number): PathGeometry | undefined {
  const { commands, coords } = path;
  let kept: PathGeometry | undefined;
  let command = 0;
  let coord = 0;
  while (command < commands.length) {
    // One subpath: a move and everything up to the next move.
    const firstCommand = command;
    const firstCoord = coord;
    do {
      const kind = commands[command] as number;
      coord += kind === PathCommand.cubic ? 6 : kind === PathCommand.close ? 0 : 2;
      command++;
    } while (command < commands.length && commands[command] !== PathCommand.move);
    // The shoelace sum over the points as written, each point rounded once.
    const count = (coord - firstCoord) / 2;
    const x0 = Math.round((coords[firstCoord] as number) * scaleX * step) / step;
    const y0 = Math.round((coords[firstCoord + 1] as number) * scaleY * step) / step;
    let xi = x0;
    let yi = y0;
    let twiceArea = 0;
    for (let i = 0; i < count; i++) {
      let xj = x0;
      let yj = y0;
      if (i + 1 < count) {
        xj = Math.round((coords[firstCoord + 2 * i + 2] as number) * scaleX * step) / step;
        yj = Math.round((coords[firstCoord + 2 * i + 3] as number) * scaleY * step) / step;
      }
      twiceArea += xi * yj - xj * yi;
      xi = xj;
      yi = yj;
    }
    const keep = !(Math.abs(twiceArea) / 2 < minimumArea);
    if (keep && !kept) continue;
    if (!kept) {
      // The first subpath dropped: the ones before it are copied, and every later one kept is added.
      kept = { commands: commands.slice(0, firstCommand), coords: coords.slice(0, firstCoord) };
      continue;
    }
    if (!keep) continue;
    for (let i = firstCommand; i < command; i++) kept.commands.push(commands[i] as number);
    for (let i = firstCoord; i < coord; i++) kept.coords.push(coords[i] as number);
  }
  if (!kept) return commands.length > 0 ? path : undefined;
  return kept.commands.length > 0 ? kept : undefined;
}

/**
 * The image with straight pieces written as lines: a cubic whose control points lie on its chord
 * (within half the written precision) becomes a line, and a line that continues the one before it
 * in the same direction extends it. Curve fitting leaves straight sides as runs of straight cubics,
 * each costing three points in the document; drawn, nothing changes beyond the rounding.
 */
export function withStraightLines(image: VectorImage, decimals: number): VectorImage {
  const straightening: Straightening = {
    tolerance: 0.5 * 10 ** -decimals,
    scaleX: image.scaleX,
    scaleY: image.scaleY,
    commands: new Uint8Array(256),
    coords: new Float64Array(1024),
    commandCount: 0,
    coordCount: 0,
    x: 0,
    y: 0,
    lineFromX: NaN,
    lineFromY: NaN,
  };
  // A shape keeps its object, and a path its arrays, where nothing is straightened: most are
  // unchanged (a photograph's 10⁵ shapes), and copying each cost more than reading it.
  const shapes = image.shapes.map((shape) => {
    let paths: PathGeometry[] | undefined;
    for (let p = 0; p < shape.paths.length; p++) {
      const path = shape.paths[p] as PathGeometry;
      const straight = straightened(path, straightening);
      if (straight !== path && !paths) paths = shape.paths.slice(0, p);
      if (paths) paths.push(straight);
    }
    return paths ? { ...shape, paths } : shape;
  });
  return { ...image, shapes };
}

/** A path being straightened (withStraightLines), written into arrays reused from path to path. */
interface Straightening {
  tolerance: number;
  scaleX: number;
  scaleY: number;
  commands: Uint8Array;
  coords: Float64Array;
  commandCount: number;
  coordCount: number;
  /** The pen. */
  x: number;
  y: number;
  /** Where the last written command, if a line, started: a line after it may extend it. */
  lineFromX: number;
  lineFromY: number;
}

/** The path with straight cubics as lines and lines in one direction joined; the path itself when nothing changes. */
function straightened(path: PathGeometry, s: Straightening): PathGeometry {
  const c = path.coords;
  const { commands } = path;
  if (s.commands.length < commands.length) s.commands = new Uint8Array(commands.length * 2);
  if (s.coords.length < c.length) s.coords = new Float64Array(c.length * 2);
  s.commandCount = 0;
  s.coordCount = 0;
  s.x = 0;
  s.y = 0;
  s.lineFromX = NaN;
  s.lineFromY = NaN;
  let read = 0;
  for (let index = 0; index < commands.length; index++) {
    const command = commands[index] as number;
    if (command === PathCommand.move || command === PathCommand.line) {
      const toX = c[read] as number;
      const toY = c[read + 1] as number;
      read += 2;
      if (command === PathCommand.line) {
        straightLineTo(s, toX, toY);
        continue;
      }
      s.commands[s.commandCount++] = command;
      s.coords[s.coordCount++] = toX;
      s.coords[s.coordCount++] = toY;
      s.x = toX;
      s.y = toY;
      s.lineFromX = NaN;
    } else if (command === PathCommand.cubic) {
      const toX = c[read + 4] as number;
      const toY = c[read + 5] as number;
      const straight =
        (toX !== s.x || toY !== s.y) &&
        offSegment(s, c[read] as number, c[read + 1] as number, s.x, s.y, toX, toY) <= s.tolerance &&
        offSegment(s, c[read + 2] as number, c[read + 3] as number, s.x, s.y, toX, toY) <= s.tolerance;
      if (straight) {
        read += 6;
        straightLineTo(s, toX, toY);
        continue;
      }
      s.commands[s.commandCount++] = command;
      for (let k = 0; k < 6; k++) s.coords[s.coordCount++] = c[read + k] as number;
      read += 6;
      s.x = toX;
      s.y = toY;
      s.lineFromX = NaN;
    } else {
      s.commands[s.commandCount++] = command;
      s.lineFromX = NaN;
    }
  }
  // Every change drops coordinates: as many as the path's means nothing changed.
  if (s.coordCount === c.length) return path;
  const out: PathGeometry = { commands: [], coords: [] };
  for (let i = 0; i < s.commandCount; i++) out.commands.push(s.commands[i] as number);
  for (let i = 0; i < s.coordCount; i++) out.coords.push(s.coords[i] as number);
  return out;
}

/** A line to (toX, toY), extending the line before it where that one runs on in the same direction. */
function straightLineTo(s: Straightening, toX: number, toY: number): void {
  if (s.commandCount > 0 && s.commands[s.commandCount - 1] === PathCommand.line && !Number.isNaN(s.lineFromX)) {
    if (offSegment(s, s.x, s.y, s.lineFromX, s.lineFromY, toX, toY) <= s.tolerance) {
      s.coords[s.coordCount - 2] = toX;
      s.coords[s.coordCount - 1] = toY;
      s.x = toX;
      s.y = toY;
      return;
    }
  }
  s.lineFromX = s.x;
  s.lineFromY = s.y;
  s.commands[s.commandCount++] = PathCommand.line;
  s.coords[s.coordCount++] = toX;
  s.coords[s.coordCount++] = toY;
  s.x = toX;
  s.y = toY;
}

/** distanceToSegment in original pixels: p from the segment a→b. */
function offSegment(s: Straightening, px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  return distanceToSegment(px * s.scaleX, py * s.scaleY, ax * s.scaleX, ay * s.scaleY, bx * s.scaleX, by * s.scaleY);
}
