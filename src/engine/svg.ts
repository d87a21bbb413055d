// Rewrites VTracer's SVG into the contract's SVG: SVG 1.1 with viewBox at the original
// pixel size, translate() baked into coordinates, the working-resolution scale undone,
// straight cubics written as lines, compact relative path data, #rrggbb fills.
// Nothing from the input is copied verbatim except numbers and colours, so no script,
// event attribute or external reference can reach the output.

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

/** One filled shape; a shape joined with others of its colour holds several geometries. */
export interface TracedShape {
  fill: { r: number; g: number; b: number };
  /** 0–1; omitted from the output when 1. */
  opacity: number;
  paths: PathGeometry[];
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

/** Distance from (px, py) to the segment (ax, ay)–(bx, by). */
function distanceToSegment(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const lengthSquared = dx * dx + dy * dy;
  const t = lengthSquared === 0 ? 0 : Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / lengthSquared));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
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
export function parsePathData(d: string, offsetX: number, offsetY: number, straightTolerance = 0): PathGeometry {
  const commands: number[] = [];
  const coords: number[] = [];
  const scanner: Scanner = { d, position: 0 };
  let open = false;
  let penX = 0;
  let penY = 0;
  let command = 0;
  while (true) {
    skipSeparators(scanner);
    if (scanner.position >= d.length) break;
    const code = d.charCodeAt(scanner.position);
    if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122)) {
      scanner.position++;
      if (code === 90 || code === 122) {
        if (open) commands.push(PathCommand.close);
        open = false;
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
      commands.push(PathCommand.move);
      coords.push(x, y);
      open = true;
      command = 76; // further pairs after a moveto are lines
    } else if (!open) {
      throw new Error('segment without a starting point');
    } else if (command === 76) {
      commands.push(PathCommand.line);
      coords.push(x, y);
    } else {
      const x2 = readNumber(scanner) + offsetX;
      const y2 = readNumber(scanner) + offsetY;
      const x3 = readNumber(scanner) + offsetX;
      const y3 = readNumber(scanner) + offsetY;
      // VTracer writes every straight run as a cubic, which costs bytes and reads as curves in editors.
      const straight =
        distanceToSegment(x, y, penX, penY, x3, y3) <= straightTolerance &&
        distanceToSegment(x2, y2, penX, penY, x3, y3) <= straightTolerance;
      if (straight) {
        commands.push(PathCommand.line);
        coords.push(x3, y3);
      } else {
        commands.push(PathCommand.cubic);
        coords.push(x, y, x2, y2, x3, y3);
      }
      penX = x3;
      penY = y3;
      continue;
    }
    penX = x;
    penY = y;
  }
  return { commands, coords };
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
    const geometry = parsePathData(d, offsetX, offsetY, straightTolerance);
    if (geometry.commands.length > 0) shapes.push({ fill, opacity: 1, paths: [geometry] });
  }
  return shapes;
}

export interface PathWriteOptions {
  scaleX: number;
  scaleY: number;
  decimals: number;
}

/**
 * SVG text being written, as ASCII bytes: numbers are written digit by digit, with no string
 * made per number (the output runs to 10⁶ numbers). Remembers what the next token must be
 * separated from, and counts the nodes written.
 */
interface SvgText {
  bytes: Buffer;
  length: number;
  decimals: number;
  /** 10^decimals. */
  unit: number;
  command: number;
  afterNumber: boolean;
  lastHadDot: boolean;
  /** Where the last segment ended, in rounded units: relative coordinates start from here. */
  penX: number;
  penY: number;
  nodes: number;
}

function createSvgText(decimals: number, capacity = 1 << 16): SvgText {
  return {
    bytes: Buffer.allocUnsafe(capacity),
    length: 0,
    decimals,
    unit: 10 ** decimals,
    command: -1,
    afterNumber: false,
    lastHadDot: false,
    penX: 0,
    penY: 0,
    nodes: 0,
  };
}

/** Makes room for this many more bytes. */
function reserve(text: SvgText, bytes: number): void {
  if (text.length + bytes <= text.bytes.length) return;
  const grown = Buffer.allocUnsafe(Math.max(text.bytes.length * 2, text.length + bytes));
  text.bytes.copy(grown, 0, 0, text.length);
  text.bytes = grown;
}

function writeAscii(text: SvgText, ascii: string): void {
  reserve(text, ascii.length);
  text.length += text.bytes.write(ascii, text.length, 'latin1');
}

function writeByte(text: SvgText, byte: number): void {
  reserve(text, 1);
  text.bytes[text.length++] = byte;
}

/** Writes a non-negative integer, left-padded with zeros to at least minDigits. */
function writeDigits(text: SvgText, value: number, minDigits: number): void {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  digits = Math.max(digits, minDigits);
  reserve(text, digits);
  let rest = value;
  for (let at = text.length + digits - 1; at >= text.length; at--) {
    text.bytes[at] = 48 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  text.length += digits;
}

/** Starts a command, leaving out a repeated letter (after m, implicit repeats mean l). */
function writeCommand(text: SvgText, command: number): void {
  const implicit = command === text.command || (command === LOWER_L && text.command === LOWER_M);
  if (!implicit) {
    writeByte(text, command);
    text.afterNumber = false;
  }
  text.command = command;
}

const LOWER_C = 99;
const LOWER_H = 104;
const LOWER_L = 108;
const LOWER_M = 109;
const LOWER_V = 118;
const LOWER_Z = 122;

/**
 * Appends a fixed-point integer (value × 10^decimals) with the fewest characters and only the
 * separator SVG path grammar needs: '-' separates by itself, and so does '.' after a number
 * that already has one.
 */
function writeNumber(text: SvgText, units: number): void {
  const negative = units < 0;
  const magnitude = Math.abs(units);
  let whole = magnitude;
  let fraction = 0;
  let fractionDigits = 0;
  if (text.decimals > 0 && magnitude !== 0) {
    whole = Math.floor(magnitude / text.unit);
    fraction = magnitude - whole * text.unit;
    fractionDigits = text.decimals;
    while (fraction !== 0 && fraction % 10 === 0) {
      fraction /= 10;
      fractionDigits--;
    }
  }
  const startsWithDot = !negative && whole === 0 && fraction !== 0;
  if (text.afterNumber && !negative && !(startsWithDot && text.lastHadDot)) writeByte(text, 32);
  if (negative) writeByte(text, 45);
  if (whole !== 0 || fraction === 0) writeDigits(text, whole, 1);
  if (fraction !== 0) {
    writeByte(text, 46);
    writeDigits(text, fraction, fractionDigits);
  }
  text.afterNumber = true;
  text.lastHadDot = fraction !== 0;
}

/**
 * Writes subpaths as compact relative path data. Coordinates are rounded in absolute
 * terms first, so relative steps never accumulate rounding drift.
 */
function writeGeometry(text: SvgText, geometry: PathGeometry, options: PathWriteOptions): void {
  const sx = options.scaleX * text.unit;
  const sy = options.scaleY * text.unit;
  const { commands, coords } = geometry;
  let penX = text.penX;
  let penY = text.penY;
  let startX = 0;
  let startY = 0;
  let at = 0;
  for (let index = 0; index < commands.length; index++) {
    const command = commands[index] as number;
    if (command === PathCommand.close) {
      writeByte(text, LOWER_Z);
      text.command = LOWER_Z;
      text.afterNumber = false;
      // After z the pen returns to the subpath start.
      penX = startX;
      penY = startY;
      continue;
    }
    if (command === PathCommand.move) {
      const next = commands[index + 1];
      // A subpath without segments encloses nothing (the tracer emits these for single pixels).
      if (next === undefined || next === PathCommand.move || next === PathCommand.close) {
        at += 2;
        if (next === PathCommand.close) index++;
        continue;
      }
      startX = Math.round((coords[at] as number) * sx);
      startY = Math.round((coords[at + 1] as number) * sy);
      at += 2;
      writeCommand(text, LOWER_M);
      writeNumber(text, startX - penX);
      writeNumber(text, startY - penY);
      text.nodes++;
      penX = startX;
      penY = startY;
      continue;
    }
    if (command === PathCommand.line) {
      const toX = Math.round((coords[at] as number) * sx);
      const toY = Math.round((coords[at + 1] as number) * sy);
      at += 2;
      // z draws the closing line itself.
      if (commands[index + 1] === PathCommand.close && toX === startX && toY === startY) continue;
      const dx = toX - penX;
      const dy = toY - penY;
      if (dx === 0 && dy === 0) continue;
      if (dy === 0) {
        writeCommand(text, LOWER_H);
        writeNumber(text, dx);
      } else if (dx === 0) {
        writeCommand(text, LOWER_V);
        writeNumber(text, dy);
      } else {
        writeCommand(text, LOWER_L);
        writeNumber(text, dx);
        writeNumber(text, dy);
      }
      text.nodes++;
      penX = toX;
      penY = toY;
      continue;
    }
    const toX = Math.round((coords[at + 4] as number) * sx);
    const toY = Math.round((coords[at + 5] as number) * sy);
    writeCommand(text, LOWER_C);
    writeNumber(text, Math.round((coords[at] as number) * sx) - penX);
    writeNumber(text, Math.round((coords[at + 1] as number) * sy) - penY);
    writeNumber(text, Math.round((coords[at + 2] as number) * sx) - penX);
    writeNumber(text, Math.round((coords[at + 3] as number) * sy) - penY);
    writeNumber(text, toX - penX);
    writeNumber(text, toY - penY);
    text.nodes++;
    at += 6;
    penX = toX;
    penY = toY;
  }
  text.penX = penX;
  text.penY = penY;
}

/**
 * One path element's data. The pen starts at the origin (the first moveto is absolute by
 * definition even when written as 'm') and the first command is always written.
 */
function writeShapeData(text: SvgText, paths: PathGeometry[], options: PathWriteOptions): void {
  text.command = -1;
  text.afterNumber = false;
  text.penX = 0;
  text.penY = 0;
  for (const geometry of paths) writeGeometry(text, geometry, options);
}

/** Path data of one shape's geometries, and its node count. */
export function writePathData(paths: PathGeometry[], options: PathWriteOptions): { d: string; nodes: number } {
  const text = createSvgText(options.decimals, 1024);
  writeShapeData(text, paths, options);
  return { d: text.bytes.toString('latin1', 0, text.length), nodes: text.nodes };
}

function writeHexColour(text: SvgText, { r, g, b }: { r: number; g: number; b: number }): void {
  writeByte(text, 35);
  for (const channel of [r, g, b]) {
    const value = Math.max(0, Math.min(255, Math.round(channel)));
    writeByte(text, HEX_DIGITS.charCodeAt(value >> 4));
    writeByte(text, HEX_DIGITS.charCodeAt(value & 15));
  }
}

const HEX_DIGITS = '0123456789abcdef';

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
  const latestGroupOf = new Map<number, number>();
  const groups: TracedShape[] = [];
  for (let index = 0; index < shapes.length; index++) {
    const shape = shapes[index] as TracedShape;
    const box = boxes[index] as Box;
    if (!Number.isFinite(box.x0)) continue;
    const c0 = Math.floor((box.x0 - extent.x0) / cell);
    const c1 = Math.floor((box.x1 - extent.x0) / cell);
    const r0 = Math.floor((box.y0 - extent.y0) / cell);
    const r1 = Math.floor((box.y1 - extent.y0) / cell);
    let touched = -1;
    for (let row = r0; row <= r1; row++) {
      for (let column = c0; column <= c1; column++) touched = Math.max(touched, latestGroupAt[row * columns + column] as number);
    }
    const { r, g, b } = shape.fill;
    const colour = (((r << 16) | (g << 8) | b) >>> 0) * 1024 + Math.round(shape.opacity * 1000);
    let target = latestGroupOf.get(colour) ?? -1;
    if (target > touched) {
      const group = groups[target] as TracedShape;
      for (const geometry of shape.paths) group.paths.push(geometry);
    } else {
      target = groups.length;
      groups.push({ fill: shape.fill, opacity: shape.opacity, paths: [...shape.paths] });
      latestGroupOf.set(colour, target);
    }
    for (let row = r0; row <= r1; row++) {
      for (let column = c0; column <= c1; column++) {
        const at = row * columns + column;
        if ((latestGroupAt[at] as number) < target) latestGroupAt[at] = target;
      }
    }
  }
  return groups;
}

/** Writes the contract's SVG document, counting the nodes (segment endpoints) it writes. */
export function writeSvgDocument(shapes: TracedShape[], options: SvgDocumentOptions): { svg: string; nodeCount: number } {
  const { width, height } = options;
  const text = createSvgText(options.decimals);
  writeAscii(
    text,
    `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">`,
  );
  if (options.background) {
    writeAscii(text, `\n<path d="M0 0H${width}V${height}H0z" fill="`);
    writeHexColour(text, options.background);
    writeAscii(text, '"/>');
    text.nodes += 4;
  }
  for (const shape of groupShapesByFill(shapes)) {
    const element = text.length;
    writeAscii(text, '\n<path d="');
    const dStart = text.length;
    const nodesBefore = text.nodes;
    writeShapeData(text, shape.paths, options);
    if (text.length === dStart) {
      // Nothing enclosed: no element.
      text.length = element;
      text.nodes = nodesBefore;
      continue;
    }
    writeAscii(text, '" fill="');
    writeHexColour(text, shape.fill);
    writeByte(text, 34);
    if (shape.opacity < 0.995) writeAscii(text, ` fill-opacity="${Math.round(shape.opacity * 1000) / 1000}"`);
    writeAscii(text, '/>');
  }
  writeAscii(text, '\n</svg>');
  return { svg: text.bytes.toString('latin1', 0, text.length), nodeCount: text.nodes };
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
