// Reads VTracer's SVG output into the geometry model: translate() baked into coordinates,
// straight cubics read as lines. Only numbers and colours are taken from it, so no script,
// event attribute or external reference can reach the output.

import { distanceToSegment, flat, PathCommand, type PathGeometry, type Rgb, type TracedShape } from '../geometry.ts';

export const PATH_ELEMENT = /<path\b([^>]*)\/?>/g;

/** The attributes read from the tracer's paths, compiled once: tracer output runs to 10⁵ paths. */
const ATTRIBUTE_PATTERNS = {
  d: /\sd="([^"]*)"/,
  fill: /\sfill="([^"]*)"/,
  transform: /\stransform="([^"]*)"/,
} as const;

export function attribute(attributes: string, name: keyof typeof ATTRIBUTE_PATTERNS): string | undefined {
  return ATTRIBUTE_PATTERNS[name].exec(attributes)?.[1];
}

function parseHexColour(text: string): Rgb | null {
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

/** The value of a hex digit's char code, or -1. */
function hexDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
}

/** A fill of six hex digits read in place in the document (svg[from] is its '#'), or null for any other fill. */
function readSixDigitColour(svg: string, from: number, to: number): Rgb | null {
  if (to - from !== 7 || svg.charCodeAt(from) !== 35) return null;
  let value = 0;
  for (let at = from + 1; at < to; at++) {
    const digit = hexDigit(svg.charCodeAt(at));
    if (digit < 0) return null;
    value = value * 16 + digit;
  }
  return { r: value >> 16, g: (value >> 8) & 0xff, b: value & 0xff };
}

/** What `\s` matches in a regular expression. */
function isWhitespace(code: number): boolean {
  if (code === 32 || (code >= 9 && code <= 13)) return true;
  if (code < 160) return false;
  return code === 160 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff;
}

/** Where a value of an attribute lies in the document. */
interface Span {
  start: number;
  end: number;
}

/**
 * The value of attribute `name` (as ` name="…"`, the first one) between `from` and `to` of the
 * document, found in place: ATTRIBUTE_PATTERNS on the tag's text, without the text.
 */
function findAttribute(svg: string, from: number, to: number, name: string, found: Span): boolean {
  const opening = `${name}="`;
  for (let at = svg.indexOf(opening, from + 1); at >= 0 && at + opening.length <= to; at = svg.indexOf(opening, at + 1)) {
    if (!isWhitespace(svg.charCodeAt(at - 1))) continue;
    const start = at + opening.length;
    const end = svg.indexOf('"', start);
    if (end < 0 || end >= to) return false;
    found.start = start;
    found.end = end;
    return true;
  }
  return false;
}

/** A translate() offset. */
interface Offset {
  x: number;
  y: number;
}

/** `translate(x,y)` of whole numbers, VTracer's own transform, read in place into `offset`; false for any other text. */
function readIntegerTranslate(svg: string, from: number, to: number, offset: Offset): boolean {
  const prefix = 'translate(';
  if (!svg.startsWith(prefix, from)) return false;
  const comma = svg.indexOf(',', from);
  if (comma < 0 || comma >= to - 1 || svg.charCodeAt(to - 1) !== 41) return false;
  const x = readInteger(svg, from + prefix.length, comma);
  const y = readInteger(svg, comma + 1, to - 1);
  if (Number.isNaN(x) || Number.isNaN(y)) return false;
  offset.x = x;
  offset.y = y;
  return true;
}

/** An optionally negative whole number of at most 15 digits (so exactly what Number() reads) filling from–to; NaN for anything else. */
function readInteger(text: string, from: number, to: number): number {
  let at = from;
  const sign = text.charCodeAt(at) === 45 ? -1 : 1;
  if (sign < 0) at++;
  if (at === to || to - at > 15) return NaN;
  let value = 0;
  for (; at < to; at++) {
    const code = text.charCodeAt(at);
    if (code < 48 || code > 57) return NaN;
    value = value * 10 + (code - 48);
  }
  return sign * value;
}

/** A read position in path data, and the model's arrays being filled from it. */
interface PathReader {
  text: string;
  position: number;
  end: number;
  /** Where the path data starts in `text`: offsets in errors are from it. */
  start: number;
  /** How much of SCRATCH_COMMANDS and SCRATCH_COORDS this path has filled. */
  commandCount: number;
  coordCount: number;
  penX: number;
  penY: number;
  /**
   * Where the last line began, while the last step is a line: a following line in the same
   * direction extends it instead (the tracer splits long straight runs into short ones).
   */
  lineFromX: number;
  lineFromY: number;
  straightTolerance: number;
}

function isSeparator(code: number): boolean {
  return code === 32 || code === 44 || code === 10 || code === 13 || code === 9;
}

function skipSeparators(reader: PathReader): void {
  while (reader.position < reader.end && isSeparator(reader.text.charCodeAt(reader.position))) reader.position++;
}

/**
 * A number at the reader's position. The data's end is the closing quote of its attribute (or
 * the end of the string, NaN), which no number reads on past.
 */
function readNumber(reader: PathReader): number {
  skipSeparators(reader);
  const d = reader.text;
  const start = reader.position;
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
    while (position < reader.end && d.charCodeAt(position) >= 48 && d.charCodeAt(position) <= 57) position++;
    reader.position = position;
    return Number(d.slice(start, position));
  }
  if (digits === 0) throw new Error(`unexpected path data at offset ${start - reader.start}`);
  reader.position = position;
  return sign * value;
}

/**
 * Path data is read into these, reused from path to path, and each path's arrays are copied out
 * at their final length: arrays grown point by point, 2 × 10⁵ of them, kept the collector busy.
 */
const SCRATCH_COMMANDS: number[] = [];
const SCRATCH_COORDS: number[] = [];

function addCommand(reader: PathReader, command: number): void {
  SCRATCH_COMMANDS[reader.commandCount++] = command;
}

function addPoint(reader: PathReader, x: number, y: number): void {
  SCRATCH_COORDS[reader.coordCount++] = x;
  SCRATCH_COORDS[reader.coordCount++] = y;
}

/** A line to (x, y), extending the line before it where that one runs on in the same direction. */
function addLine(reader: PathReader, x: number, y: number): void {
  const lastIsLine = reader.commandCount > 0 && SCRATCH_COMMANDS[reader.commandCount - 1] === PathCommand.line;
  if (lastIsLine && distanceToSegment(reader.penX, reader.penY, reader.lineFromX, reader.lineFromY, x, y) <= reader.straightTolerance) {
    SCRATCH_COORDS[reader.coordCount - 2] = x;
    SCRATCH_COORDS[reader.coordCount - 1] = y;
  } else {
    reader.lineFromX = reader.penX;
    reader.lineFromY = reader.penY;
    addCommand(reader, PathCommand.line);
    addPoint(reader, x, y);
  }
  reader.penX = x;
  reader.penY = y;
}

/**
 * The one reader, set up afresh for each path (one object instead of one per path); its text is
 * let go once a document is read, so no worker keeps a tracer's 16 MB output alive.
 */
const READER: PathReader = { text: '', position: 0, end: 0, start: 0, commandCount: 0, coordCount: 0, penX: 0, penY: 0, lineFromX: NaN, lineFromY: NaN, straightTolerance: 0 };

/**
 * Parses VTracer's path data (absolute M, L, C, Z; numbers separated by spaces or commas) with
 * the translate offset added, into absolute working-resolution coordinates. A scanner that
 * reads digits in place, with no closures made per call: tracer output runs to megabytes and
 * 10⁵ paths, and a token array of strings costs more than the tracing.
 */
export function parsePathData(d: string, offsetX: number, offsetY: number, straightTolerance = 0): PathGeometry {
  try {
    return parsePathDataIn(d, 0, d.length, offsetX, offsetY, straightTolerance);
  } finally {
    READER.text = '';
  }
}

/** parsePathData on the data between `start` and `end` of `text` (the tracer's document), read in place. */
function parsePathDataIn(text: string, start: number, end: number, offsetX: number, offsetY: number, straightTolerance: number): PathGeometry {
  const reader = READER;
  reader.text = text;
  reader.position = start;
  reader.end = end;
  reader.start = start;
  reader.commandCount = 0;
  reader.coordCount = 0;
  reader.penX = 0;
  reader.penY = 0;
  reader.lineFromX = NaN;
  reader.lineFromY = NaN;
  reader.straightTolerance = straightTolerance;
  let open = false;
  let command = 0;
  while (true) {
    skipSeparators(reader);
    if (reader.position >= end) break;
    const code = text.charCodeAt(reader.position);
    if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122)) {
      reader.position++;
      if (code === 90 || code === 122) {
        if (open) addCommand(reader, PathCommand.close);
        open = false;
        continue;
      }
      if (code !== 77 && code !== 76 && code !== 67) {
        throw new Error(`path command ${String.fromCharCode(code)} not expected from the tracer`);
      }
      command = code;
      continue;
    }
    if (command === 0) throw new Error(`number without a command at offset ${reader.position - start}`);
    const x = readNumber(reader) + offsetX;
    const y = readNumber(reader) + offsetY;
    if (command === 77) {
      addCommand(reader, PathCommand.move);
      addPoint(reader, x, y);
      open = true;
      command = 76; // further pairs after a moveto are lines
      reader.penX = x;
      reader.penY = y;
    } else if (!open) {
      throw new Error('segment without a starting point');
    } else if (command === 76) {
      addLine(reader, x, y);
    } else {
      const x2 = readNumber(reader) + offsetX;
      const y2 = readNumber(reader) + offsetY;
      const x3 = readNumber(reader) + offsetX;
      const y3 = readNumber(reader) + offsetY;
      // VTracer writes every straight run as a cubic, which costs bytes and reads as curves in editors.
      const straight =
        distanceToSegment(x, y, reader.penX, reader.penY, x3, y3) <= straightTolerance &&
        distanceToSegment(x2, y2, reader.penX, reader.penY, x3, y3) <= straightTolerance;
      if (straight) {
        addLine(reader, x3, y3);
      } else {
        addCommand(reader, PathCommand.cubic);
        addPoint(reader, x, y);
        addPoint(reader, x2, y2);
        addPoint(reader, x3, y3);
        reader.penX = x3;
        reader.penY = y3;
      }
    }
  }
  return { commands: SCRATCH_COMMANDS.slice(0, reader.commandCount), coords: SCRATCH_COORDS.slice(0, reader.coordCount) };
}

/**
 * Extracts VTracer's paths: fill colour, translate offset and path data. Cubics whose control
 * points lie within straightTolerance (working pixels) of their chord are read as lines; every
 * path is moved by (dx, dy), a tile's place in the picture (tiles.ts). Read in place, by char
 * codes: the document runs to 16 MB and 2 × 10⁵ paths, and a regular expression's match,
 * substrings and arrays per path cost as much as the numbers.
 */
export function parseTracerSvg(svg: string, straightTolerance = 0, dx = 0, dy = 0): TracedShape[] {
  const shapes: TracedShape[] = [];
  try {
    readPaths(svg, straightTolerance, shapes, dx, dy);
  } finally {
    READER.text = '';
  }
  return shapes;
}

/** parseTracerSvg's loop over the document's path elements, appending their shapes to `shapes`. */
function readPaths(svg: string, straightTolerance: number, shapes: TracedShape[], dx: number, dy: number): void {
  const d: Span = { start: 0, end: 0 };
  const fill: Span = { start: 0, end: 0 };
  const transform: Span = { start: 0, end: 0 };
  const offset: Offset = { x: 0, y: 0 };
  for (let tag = svg.indexOf('<path'); tag >= 0; tag = svg.indexOf('<path', tag + 1)) {
    // PATH_ELEMENT: `<path` as a whole word, its attributes up to the next '>'.
    const after = svg.charCodeAt(tag + 5);
    if ((after >= 48 && after <= 57) || (after >= 65 && after <= 90) || (after >= 97 && after <= 122) || after === 95) continue;
    const close = svg.indexOf('>', tag + 5);
    if (close < 0) break;
    const from = tag + 5;
    if (!findAttribute(svg, from, close, 'd', d) || d.end === d.start) {
      tag = close;
      continue;
    }
    const colour = findAttribute(svg, from, close, 'fill', fill)
      ? (readSixDigitColour(svg, fill.start, fill.end) ?? parseHexColour(svg.slice(fill.start, fill.end)))
      : parseHexColour('#000000');
    if (!colour) throw new Error('tracer wrote a fill that is not a hex colour');
    let offsetX = dx;
    let offsetY = dy;
    if (findAttribute(svg, from, close, 'transform', transform) && transform.end > transform.start) {
      if (readIntegerTranslate(svg, transform.start, transform.end, offset)) {
        offsetX += offset.x;
        offsetY += offset.y;
      } else {
        const text = svg.slice(transform.start, transform.end);
        const translate = /^translate\(\s*([-+\d.eE]+)[ ,]+([-+\d.eE]+)\s*\)$/.exec(text.trim());
        if (!translate) throw new Error(`tracer wrote an unexpected transform ${text}`);
        offsetX += Number(translate[1]);
        offsetY += Number(translate[2]);
      }
    }
    const geometry = parsePathDataIn(svg, d.start, d.end, offsetX, offsetY, straightTolerance);
    if (geometry.commands.length > 0) shapes.push({ fill: flat(colour), opacity: 1, paths: [geometry] });
    tag = close;
  }
}
