// Rewrites VTracer's SVG into the contract's SVG: SVG 1.1 with viewBox at the original
// pixel size, translate() baked into coordinates, the working-resolution scale undone,
// straight cubics written as lines, compact relative path data, #rrggbb fills.
// Nothing from the input is copied verbatim except numbers and colours, so no script,
// event attribute or external reference can reach the output.

/** One filled shape in absolute working-resolution coordinates. */
export interface TracedShape {
  fill: { r: number; g: number; b: number };
  /** 0–1; omitted from the output when 1. */
  opacity: number;
  subpaths: Subpath[];
}

export type Point = readonly [number, number];

export type Segment = { kind: 'line'; to: Point } | { kind: 'cubic'; c1: Point; c2: Point; to: Point };

export interface Subpath {
  start: Point;
  segments: Segment[];
  closed: boolean;
}

const PATH_ELEMENT = /<path\b([^>]*)\/?>/g;

/** The attributes read from the tracer's paths, compiled once: tracer output runs to 10⁵ paths. */
const ATTRIBUTE_PATTERNS = {
  d: /\sd="([^"]*)"/,
  fill: /\sfill="([^"]*)"/,
  transform: /\stransform="([^"]*)"/,
} as const;

function attribute(attributes: string, name: keyof typeof ATTRIBUTE_PATTERNS): string | undefined {
  return ATTRIBUTE_PATTERNS[name].exec(attributes)?.[1];
}

function parseHexColour(text: string): { r: number; g: number; b: number } | null {
  const six = /^#([0-9a-f]{6})$/i.exec(text);
  if (six?.[1]) {
    const value = parseInt(six[1], 16);
    return { r: value >> 16, g: (value >> 8) & 0xff, b: value & 0xff };
  }
  const three = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(text);
  if (three?.[1] && three[2] && three[3]) {
    return { r: parseInt(three[1], 16) * 17, g: parseInt(three[2], 16) * 17, b: parseInt(three[3], 16) * 17 };
  }
  return null;
}

/** Distance from p to the segment a–b. */
function distanceToSegment(p: Point, a: Point, b: Point): number {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const lengthSquared = dx * dx + dy * dy;
  const t = lengthSquared === 0 ? 0 : Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / lengthSquared));
  return Math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy));
}

/** A read position in path data. */
interface Scanner {
  d: string;
  position: number;
}

function isSeparator(code: number): boolean {
  return code === 32 || code === 44 || code === 10 || code === 13 || code === 9;
}

function skipSeparators(scanner: Scanner): void {
  while (scanner.position < scanner.d.length && isSeparator(scanner.d.charCodeAt(scanner.position))) scanner.position++;
}

function readNumber(scanner: Scanner): number {
  skipSeparators(scanner);
  const { d } = scanner;
  const start = scanner.position;
  let position = start;
  let sign = 1;
  let code = d.charCodeAt(position);
  if (code === 45 || code === 43) {
    if (code === 45) sign = -1;
    code = d.charCodeAt(++position);
  }
  let value = 0;
  let digits = 0;
  while (code >= 48 && code <= 57) {
    value = value * 10 + (code - 48);
    digits++;
    code = d.charCodeAt(++position);
  }
  if (code === 46) {
    let scale = 0.1;
    code = d.charCodeAt(++position);
    while (code >= 48 && code <= 57) {
      value += (code - 48) * scale;
      scale /= 10;
      digits++;
      code = d.charCodeAt(++position);
    }
  }
  if (code === 101 || code === 69) {
    // Exponents are rare enough to hand to Number.
    position++;
    const next = d.charCodeAt(position);
    if (next === 45 || next === 43) position++;
    while (position < d.length && d.charCodeAt(position) >= 48 && d.charCodeAt(position) <= 57) position++;
    scanner.position = position;
    return Number(d.slice(start, position));
  }
  if (digits === 0) throw new Error(`unexpected path data at offset ${start}`);
  scanner.position = position;
  return sign * value;
}

/**
 * Parses VTracer's path data (absolute M, L, C, Z; numbers separated by spaces or commas) with
 * the translate offset added, into absolute working-resolution coordinates. A scanner that
 * reads digits in place, with no closures made per call: tracer output runs to megabytes and
 * 10⁵ paths, and a token array of strings costs more than the tracing.
 */
export function parsePathData(d: string, offsetX: number, offsetY: number, straightTolerance = 0): Subpath[] {
  const subpaths: Subpath[] = [];
  const scanner: Scanner = { d, position: 0 };
  let current: Subpath | null = null;
  let command = 0;
  while (true) {
    skipSeparators(scanner);
    if (scanner.position >= d.length) break;
    const code = d.charCodeAt(scanner.position);
    if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122)) {
      scanner.position++;
      if (code === 90 || code === 122) {
        if (current) current.closed = true;
        current = null;
        continue;
      }
      if (code !== 77 && code !== 76 && code !== 67) {
        throw new Error(`path command ${String.fromCharCode(code)} not expected from the tracer`);
      }
      command = code;
      continue;
    }
    if (command === 0) throw new Error(`number without a command at offset ${scanner.position}`);
    const x = readNumber(scanner) + offsetX;
    const y = readNumber(scanner) + offsetY;
    if (command === 77) {
      current = { start: [x, y], segments: [], closed: false };
      subpaths.push(current);
      command = 76; // further pairs after a moveto are lines
    } else if (!current) {
      throw new Error('segment without a starting point');
    } else if (command === 76) {
      current.segments.push({ kind: 'line', to: [x, y] });
    } else {
      const x2 = readNumber(scanner) + offsetX;
      const y2 = readNumber(scanner) + offsetY;
      const x3 = readNumber(scanner) + offsetX;
      const y3 = readNumber(scanner) + offsetY;
      const from = current.segments.at(-1)?.to ?? current.start;
      const to: Point = [x3, y3];
      const c1: Point = [x, y];
      const c2: Point = [x2, y2];
      // VTracer writes every straight run as a cubic, which costs bytes and reads as curves in editors.
      const straight =
        distanceToSegment(c1, from, to) <= straightTolerance && distanceToSegment(c2, from, to) <= straightTolerance;
      current.segments.push(straight ? { kind: 'line', to } : { kind: 'cubic', c1, c2, to });
    }
  }
  return subpaths;
}

/**
 * Extracts VTracer's paths: fill colour, translate offset and path data. Cubics whose control
 * points lie within straightTolerance (working pixels) of their chord are read as lines.
 */
export function parseTracerSvg(svg: string, straightTolerance = 0): TracedShape[] {
  const shapes: TracedShape[] = [];
  for (const match of svg.matchAll(PATH_ELEMENT)) {
    const attributes = match[1] ?? '';
    const d = attribute(attributes, 'd');
    if (!d) continue;
    const fill = parseHexColour(attribute(attributes, 'fill') ?? '#000000');
    if (!fill) throw new Error('tracer wrote a fill that is not a hex colour');
    let offsetX = 0;
    let offsetY = 0;
    const transform = attribute(attributes, 'transform');
    if (transform) {
      const translate = /^translate\(\s*([-+\d.eE]+)[ ,]+([-+\d.eE]+)\s*\)$/.exec(transform.trim());
      if (!translate) throw new Error(`tracer wrote an unexpected transform ${transform}`);
      offsetX = Number(translate[1]);
      offsetY = Number(translate[2]);
    }
    const subpaths = parsePathData(d, offsetX, offsetY, straightTolerance);
    if (subpaths.length > 0) shapes.push({ fill, opacity: 1, subpaths });
  }
  return shapes;
}

/** Formats a fixed-point integer (value × 10^decimals) with the fewest characters. */
function formatFixed(units: number, decimals: number): string {
  if (units === 0) return '0';
  let text: string;
  if (decimals === 0) {
    text = String(units);
  } else {
    const negative = units < 0;
    const digits = String(Math.abs(units)).padStart(decimals + 1, '0');
    const whole = digits.slice(0, digits.length - decimals);
    const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
    text = (negative ? '-' : '') + (whole === '0' && fraction ? '' : whole) + (fraction ? `.${fraction}` : '');
  }
  return text;
}

export interface PathWriteOptions {
  scaleX: number;
  scaleY: number;
  decimals: number;
}

/** Path data being written, and what the next token must be separated from. */
interface PathText {
  out: string;
  decimals: number;
  command: string;
  afterNumber: boolean;
  lastHadDot: boolean;
}

/** Starts a command, leaving out a repeated letter (after m, implicit repeats mean l). */
function writeCommand(text: PathText, command: string): void {
  const implicit = text.out !== '' && (command === text.command || (command === 'l' && text.command === 'm'));
  if (!implicit) {
    text.out += command;
    text.afterNumber = false;
  }
  text.command = command;
}

/** Appends a number with only the separator SVG path grammar needs. */
function writeNumber(text: PathText, units: number): void {
  const number = formatFixed(units, text.decimals);
  if (text.afterNumber) {
    const first = number.charCodeAt(0);
    // '-' separates by itself, and so does '.' after a number that already has one.
    if (first !== 45 && !(first === 46 && text.lastHadDot)) text.out += ' ';
  }
  text.out += number;
  text.afterNumber = true;
  text.lastHadDot = number.includes('.');
}

/**
 * Writes subpaths as compact relative path data. Coordinates are rounded in absolute
 * terms first, so relative steps never accumulate rounding drift.
 */
export function writePathData(subpaths: Subpath[], options: PathWriteOptions): string {
  const unit = 10 ** options.decimals;
  const sx = options.scaleX * unit;
  const sy = options.scaleY * unit;
  const text: PathText = { out: '', decimals: options.decimals, command: '', afterNumber: false, lastHadDot: false };
  let penX = 0;
  let penY = 0;
  for (const subpath of subpaths) {
    // A subpath without segments encloses nothing (the tracer emits these for single pixels).
    if (subpath.segments.length === 0) continue;
    const startX = Math.round(subpath.start[0] * sx);
    const startY = Math.round(subpath.start[1] * sy);
    // The first moveto is absolute by definition even when written as 'm' (the pen starts at 0,0).
    writeCommand(text, 'm');
    writeNumber(text, startX - penX);
    writeNumber(text, startY - penY);
    penX = startX;
    penY = startY;
    const last = subpath.segments.length - 1;
    for (let index = 0; index <= last; index++) {
      const segment = subpath.segments[index] as Segment;
      const toX = Math.round(segment.to[0] * sx);
      const toY = Math.round(segment.to[1] * sy);
      const dx = toX - penX;
      const dy = toY - penY;
      if (segment.kind === 'line') {
        // z draws the closing line itself.
        if (subpath.closed && index === last && toX === startX && toY === startY) break;
        if (dx === 0 && dy === 0) continue;
        if (dy === 0) {
          writeCommand(text, 'h');
          writeNumber(text, dx);
        } else if (dx === 0) {
          writeCommand(text, 'v');
          writeNumber(text, dy);
        } else {
          writeCommand(text, 'l');
          writeNumber(text, dx);
          writeNumber(text, dy);
        }
      } else {
        writeCommand(text, 'c');
        writeNumber(text, Math.round(segment.c1[0] * sx) - penX);
        writeNumber(text, Math.round(segment.c1[1] * sy) - penY);
        writeNumber(text, Math.round(segment.c2[0] * sx) - penX);
        writeNumber(text, Math.round(segment.c2[1] * sy) - penY);
        writeNumber(text, dx);
        writeNumber(text, dy);
      }
      penX = toX;
      penY = toY;
    }
    if (subpath.closed) {
      text.out += 'z';
      text.command = 'z';
      text.afterNumber = false;
      // After z the pen returns to the subpath start.
      penX = startX;
      penY = startY;
    }
  }
  return text.out;
}

function hexColour({ r, g, b }: { r: number; g: number; b: number }): string {
  return `#${[r, g, b].map((c) => Math.max(0, Math.min(255, Math.round(c))).toString(16).padStart(2, '0')).join('')}`;
}

export interface SvgDocumentOptions {
  /** Original pixel size: viewBox, width and height. */
  width: number;
  height: number;
  /** Original size ÷ working size, per axis. */
  scaleX: number;
  scaleY: number;
  decimals: number;
  /** Opaque background painted first (line art on white), or none. */
  background?: { r: number; g: number; b: number };
}

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

function includePoint(box: Box, p: Point): void {
  if (p[0] < box.x0) box.x0 = p[0];
  if (p[1] < box.y0) box.y0 = p[1];
  if (p[0] > box.x1) box.x1 = p[0];
  if (p[1] > box.y1) box.y1 = p[1];
}

function shapeBox(shape: TracedShape): Box {
  const box: Box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  for (const subpath of shape.subpaths) {
    includePoint(box, subpath.start);
    for (const segment of subpath.segments) {
      if (segment.kind === 'cubic') {
        includePoint(box, segment.c1);
        includePoint(box, segment.c2);
      }
      includePoint(box, segment.to);
    }
  }
  return box;
}

/** Cells of the occupancy grid used by groupShapesByFill, at most. */
const GROUPING_GRID_CELLS = 1 << 18;

/**
 * Joins shapes of the same colour into one path element where paint order allows it: a shape
 * may move back to the latest group of its colour when it touches no group painted after that
 * one. "Touches" is decided on a coarse grid of cells, each remembering the latest group whose
 * bounding boxes cover it: conservative (shapes in one cell count as touching), so no overlap can
 * change what is painted on top, or the fill by winding; and linear in the covered cells, where
 * comparing boxes pairwise was quadratic on photos of 10⁵ specks.
 * Saves an element per shape; pixel art, photos and logos have many small same-coloured shapes.
 */
export function groupShapesByFill(shapes: TracedShape[]): TracedShape[] {
  const boxes = shapes.map(shapeBox);
  const extent: Box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  for (const box of boxes) {
    if (!Number.isFinite(box.x0)) continue;
    extent.x0 = Math.min(extent.x0, box.x0);
    extent.y0 = Math.min(extent.y0, box.y0);
    extent.x1 = Math.max(extent.x1, box.x1);
    extent.y1 = Math.max(extent.y1, box.y1);
  }
  if (!Number.isFinite(extent.x0)) return shapes;
  const cell = Math.max(1, Math.sqrt(((extent.x1 - extent.x0) * (extent.y1 - extent.y0)) / GROUPING_GRID_CELLS));
  const columns = Math.floor((extent.x1 - extent.x0) / cell) + 1;
  const rows = Math.floor((extent.y1 - extent.y0) / cell) + 1;
  const latestGroupAt = new Int32Array(columns * rows).fill(-1);
  const latestGroupOf = new Map<string, number>();
  const groups: TracedShape[] = [];
  shapes.forEach((shape, index) => {
    const box = boxes[index] as Box;
    const c0 = Math.floor((box.x0 - extent.x0) / cell);
    const c1 = Math.floor((box.x1 - extent.x0) / cell);
    const r0 = Math.floor((box.y0 - extent.y0) / cell);
    const r1 = Math.floor((box.y1 - extent.y0) / cell);
    let touched = -1;
    for (let row = r0; row <= r1; row++) {
      for (let column = c0; column <= c1; column++) touched = Math.max(touched, latestGroupAt[row * columns + column] as number);
    }
    const colour = `${shape.fill.r},${shape.fill.g},${shape.fill.b},${shape.opacity}`;
    let target = latestGroupOf.get(colour) ?? -1;
    if (target > touched) {
      const group = groups[target] as TracedShape;
      for (const subpath of shape.subpaths) group.subpaths.push(subpath);
    } else {
      target = groups.length;
      groups.push({ fill: shape.fill, opacity: shape.opacity, subpaths: [...shape.subpaths] });
      latestGroupOf.set(colour, target);
    }
    for (let row = r0; row <= r1; row++) {
      for (let column = c0; column <= c1; column++) {
        const at = row * columns + column;
        if ((latestGroupAt[at] as number) < target) latestGroupAt[at] = target;
      }
    }
  });
  return groups;
}

/** Writes the contract's SVG document. */
export function writeSvgDocument(shapes: TracedShape[], options: SvgDocumentOptions): string {
  const { width, height } = options;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">`,
  ];
  if (options.background) {
    parts.push(`<path d="M0 0H${width}V${height}H0z" fill="${hexColour(options.background)}"/>`);
  }
  for (const shape of groupShapesByFill(shapes)) {
    const d = writePathData(shape.subpaths, options);
    if (d === '') continue;
    const opacity = shape.opacity < 0.995 ? ` fill-opacity="${Math.round(shape.opacity * 1000) / 1000}"` : '';
    parts.push(`<path d="${d}" fill="${hexColour(shape.fill)}"${opacity}/>`);
  }
  parts.push('</svg>');
  return parts.join('\n');
}

const ARGUMENTS_PER_SEGMENT: Record<string, number> = { m: 2, l: 2, h: 1, v: 1, c: 6, s: 4, q: 4, t: 2, a: 7, z: 0 };
const PATH_DATA_TOKEN = /[A-Za-z]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/g;

/** Anchor points of one path's data: every segment endpoint (M, L, H, V, C, S, Q, T, A) counts one, Z none. */
export function countPathNodes(d: string): number {
  let nodes = 0;
  let arity = 0;
  let pendingNumbers = 0;
  for (const token of d.match(PATH_DATA_TOKEN) ?? []) {
    if (token.length === 1 && token.charCodeAt(0) > 57) {
      arity = ARGUMENTS_PER_SEGMENT[token.toLowerCase()] ?? 0;
      pendingNumbers = 0;
      continue;
    }
    if (arity === 0) continue;
    pendingNumbers++;
    if (pendingNumbers === arity) {
      nodes++;
      pendingNumbers = 0;
    }
  }
  return nodes;
}

/** Anchor points over all `<path>` elements of an SVG document. */
export function countNodes(svg: string): number {
  let nodes = 0;
  for (const match of svg.matchAll(PATH_ELEMENT)) {
    const d = attribute(match[1] ?? '', 'd');
    if (d) nodes += countPathNodes(d);
  }
  return nodes;
}
