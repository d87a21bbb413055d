// Writes the geometry model as the contract's SVG: SVG 1.1 with viewBox at the original pixel
// size, the working-resolution scale undone, compact relative path data, #rrggbb fills and
// gradients in <defs>. Also counts path nodes in any SVG.

import { PathCommand, shapeBox, type GradientPaint, type PathGeometry, type Rgb, type TracedShape, type VectorImage } from '../geometry.ts';
import { gatherByPaint, groupShapesByFill } from './grouping.ts';
import { attribute, PATH_ELEMENT } from '../trace/tracer-output.ts';
import { formatLength, unitsPerPixel, type PhysicalSize } from './page.ts';
import { reserve, writeAscii, writeByte, type AsciiText } from './ascii-text.ts';
import { EngineError } from '../types.ts';

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
interface SvgText extends AsciiText {
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
const LOWER_Q = 113;
const LOWER_V = 118;
const LOWER_Z = 122;

/**
 * Appends a fixed-point integer (value × 10^decimals) with the fewest characters and only the
 * separator SVG path grammar needs: '-' separates by itself, and so does '.' after a number
 * that already has one.
 */
function writeNumber(text: SvgText, units: number): void {
  // Written digit by digit, a NaN would come out as NUL bytes: a broken document, not an error.
  if (!Number.isFinite(units)) throw new EngineError('engine_failed', 'a fitted outline has a coordinate that is not a finite number');
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
  // The current point in working coordinates, and its subpath's start: where a cubic begins.
  let fromX = 0;
  let fromY = 0;
  let subpathX = 0;
  let subpathY = 0;
  let at = 0;
  // No closure over the pen here: a captured variable that changes lives in memory, not a register.
  for (let index = 0; index < commands.length; index++) {
    const command = commands[index] as number;
    if (command === PathCommand.close) {
      writeByte(text, LOWER_Z);
      text.command = LOWER_Z;
      text.afterNumber = false;
      // After z the pen returns to the subpath start.
      penX = startX;
      penY = startY;
      fromX = subpathX;
      fromY = subpathY;
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
      subpathX = fromX = coords[at] as number;
      subpathY = fromY = coords[at + 1] as number;
      startX = Math.round(fromX * sx);
      startY = Math.round(fromY * sy);
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
      fromX = coords[at] as number;
      fromY = coords[at + 1] as number;
      const toX = Math.round(fromX * sx);
      const toY = Math.round(fromY * sy);
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
    // A quadratic raised to a cubic (rounded polygons, trace/rounded.ts) is written as one: two numbers fewer.
    if (quadraticControl(fromX, fromY, coords, at, QUADRATIC_CONTROL)) {
      writeCommand(text, LOWER_Q);
      writeNumber(text, Math.round((QUADRATIC_CONTROL[0] as number) * sx) - penX);
      writeNumber(text, Math.round((QUADRATIC_CONTROL[1] as number) * sy) - penY);
    } else {
      writeCommand(text, LOWER_C);
      writeNumber(text, Math.round((coords[at] as number) * sx) - penX);
      writeNumber(text, Math.round((coords[at + 1] as number) * sy) - penY);
      writeNumber(text, Math.round((coords[at + 2] as number) * sx) - penX);
      writeNumber(text, Math.round((coords[at + 3] as number) * sy) - penY);
    }
    writeNumber(text, toX - penX);
    writeNumber(text, toY - penY);
    text.nodes++;
    fromX = coords[at + 4] as number;
    fromY = coords[at + 5] as number;
    at += 6;
    penX = toX;
    penY = toY;
  }
  text.penX = penX;
  text.penY = penY;
}

/** Where quadraticControl puts the control point it finds: one array for every cubic written. */
const QUADRATIC_CONTROL = new Float64Array(2);

/**
 * Whether a cubic (from x0, y0; its points at coords[at]) was raised from a quadratic, whose
 * control point is then written to `control`; false for a true cubic.
 */
function quadraticControl(x0: number, y0: number, coords: number[], at: number, control: Float64Array): boolean {
  const x3 = coords[at + 4] as number;
  const y3 = coords[at + 5] as number;
  // A raised quadratic has c1 = p0 + 2/3 (q − p0) and c2 = p3 + 2/3 (q − p3): both give the same q.
  const qx = x0 + 1.5 * ((coords[at] as number) - x0);
  const qy = y0 + 1.5 * ((coords[at + 1] as number) - y0);
  const tolerance = 1e-6 * (1 + Math.abs(qx) + Math.abs(qy));
  if (Math.abs(x3 + 1.5 * ((coords[at + 2] as number) - x3) - qx) > tolerance) return false;
  if (Math.abs(y3 + 1.5 * ((coords[at + 3] as number) - y3) - qy) > tolerance) return false;
  control[0] = qx;
  control[1] = qy;
  return true;
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

function writeHexColour(text: SvgText, { r, g, b }: Rgb): void {
  writeByte(text, 35);
  for (const channel of [r, g, b]) {
    const value = Math.max(0, Math.min(255, Math.round(channel)));
    writeByte(text, HEX_DIGITS.charCodeAt(value >> 4));
    writeByte(text, HEX_DIGITS.charCodeAt(value & 15));
  }
}

const HEX_DIGITS = '0123456789abcdef';

/** Shortest decimal text of a value rounded to this many decimals. */
function formatNumber(value: number, decimals: number): string {
  const rounded = Number(value.toFixed(decimals));
  return String(Object.is(rounded, -0) ? 0 : rounded);
}

/** A gradient paint as a definition whose coordinates are in the document's (original pixel) space. */
function writeGradient(text: SvgText, id: string, paint: GradientPaint, image: VectorImage, decimals: number): void {
  const x = (value: number) => formatNumber(value * image.scaleX, decimals);
  const y = (value: number) => formatNumber(value * image.scaleY, decimals);
  if (paint.kind === 'linear') {
    writeAscii(
      text,
      `\n<linearGradient id="${id}" gradientUnits="userSpaceOnUse" x1="${x(paint.x1)}" y1="${y(paint.y1)}" x2="${x(paint.x2)}" y2="${y(paint.y2)}">`,
    );
  } else {
    // Radial gradients are circles: the radius is scaled by the mean of the two axes' scales.
    const r = formatNumber((paint.r * (image.scaleX + image.scaleY)) / 2, decimals);
    writeAscii(text, `\n<radialGradient id="${id}" gradientUnits="userSpaceOnUse" cx="${x(paint.cx)}" cy="${y(paint.cy)}" r="${r}">`);
  }
  for (const stop of paint.stops) {
    writeAscii(text, `<stop offset="${formatNumber(Math.max(0, Math.min(1, stop.offset)), 4)}" stop-color="`);
    writeHexColour(text, stop.color);
    writeByte(text, 34);
    if (stop.opacity < 0.995) writeAscii(text, ` stop-opacity="${formatNumber(Math.max(0, stop.opacity), 3)}"`);
    writeAscii(text, '/>');
  }
  writeAscii(text, paint.kind === 'linear' ? '</linearGradient>' : '</radialGradient>');
}

/** How shapes are laid out in the document: `groupBy: color` puts each paint's shapes in one `<g>`. */
export interface SvgLayout {
  groupBy?: 'none' | 'color';
  /** The shapes do not overlap (cut-outs), so grouping may reorder them freely. */
  disjoint?: boolean;
  /** `width` and `height` in this unit (the viewBox stays in pixels); pixels when unset. */
  page?: PhysicalSize;
}

/** A stroke's width in the document's pixels: working pixels scaled by the mean of the two axes. */
export function documentStrokeWidth(width: number, image: VectorImage): number {
  return (width * (image.scaleX + image.scaleY)) / 2;
}

/**
 * A blurred element's filter region: its box widened on each side by the least of these shares of
 * the box that holds the blur's reach (BLUR_REACH deviations along the box's shorter side). A
 * shape too small for the largest, or whose region would pass the picture's edge, gets the whole
 * picture. Renderers draw each filtered element on a canvas of its filter region: over the whole
 * picture, a forest tile's 102 blurred shapes (512 × 336) took resvg 10.7 s to draw, 43 s at
 * 1024 px, and on their boxes 0.09 s, the same pixels.
 */
const BLUR_MARGINS = [0.125, 0.25, 0.5, 1, 2, 4, 8, 16] as const;
/** A blur's reach in deviations: what lies beyond is under a thousandth of its light. */
const BLUR_REACH = 4;

/** A blur filter: its deviation (document pixels, as written) and its region's BLUR_MARGINS share, none for the whole picture. */
interface BlurFilter {
  deviation: string;
  margin: number | undefined;
}

/** The filter a group of blurred shapes is drawn with. */
function blurFilterOf(group: readonly TracedShape[], image: VectorImage): BlurFilter {
  const deviation = formatNumber(documentStrokeWidth((group[0] as TracedShape).blur as number, image), 2);
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const shape of group) {
    const box = shapeBox(shape);
    x0 = Math.min(x0, box.x0);
    y0 = Math.min(y0, box.y0);
    x1 = Math.max(x1, box.x1);
    y1 = Math.max(y1, box.y1);
  }
  const width = (x1 - x0) * image.scaleX;
  const height = (y1 - y0) * image.scaleY;
  const margin = Math.min(width, height) > 0 ? BLUR_MARGINS.find((share) => share * Math.min(width, height) >= BLUR_REACH * Number(deviation)) : undefined;
  // A region past the picture's edge would blur there against clear, where the picture's own edge
  // ends the blur as the whole-picture region does (renderers differ at that edge): kept whole.
  const inside = margin !== undefined && x0 * image.scaleX - margin * width >= 0 && y0 * image.scaleY - margin * height >= 0 && x1 * image.scaleX + margin * width <= image.width && y1 * image.scaleY + margin * height <= image.height;
  return { deviation, margin: inside ? margin : undefined };
}

/** The `<filter>` element of a BlurFilter. */
function blurFilterElement(id: string, { deviation, margin }: BlurFilter, width: number, height: number): string {
  const region = margin === undefined ? `filterUnits="userSpaceOnUse" x="0" y="0" width="${width}" height="${height}"` : `x="-${margin}" y="-${margin}" width="${1 + 2 * margin}" height="${1 + 2 * margin}"`;
  return `\n<filter id="${id}" ${region}><feGaussianBlur stdDeviation="${deviation}"/></filter>`;
}

/** Writes the fill (and, unless `withoutOpacity`, opacity) attributes of a path or group, after its opening. */
function writePaint(text: SvgText, shape: TracedShape, gradientIds: Map<GradientPaint, string>, image: VectorImage, blurId: string | undefined, withoutOpacity = false): void {
  if (blurId) writeAscii(text, ` filter="url(#${blurId})"`);
  if (shape.stroke && shape.fill.kind === 'flat') {
    // A centerline stroke: an open line of the ink's colour and width, round at its ends and bends as a pen draws it.
    writeAscii(text, ' fill="none" stroke="');
    writeHexColour(text, shape.fill.color);
    writeAscii(text, `" stroke-width="${formatLength(documentStrokeWidth(shape.stroke.width, image), 2)}" stroke-linecap="round" stroke-linejoin="round"`);
    return;
  }
  if (shape.fill.kind === 'flat') {
    writeAscii(text, ' fill="');
    writeHexColour(text, shape.fill.color);
    writeByte(text, 34);
  } else {
    writeAscii(text, ` fill="url(#${gradientIds.get(shape.fill) as string})"`);
  }
  if (!withoutOpacity) writeOpacity(text, shape);
}

/** A fill's opacity, where it is not opaque (a centerline stroke is opaque ink). */
function writeOpacity(text: SvgText, shape: TracedShape): void {
  if (!shape.stroke && shape.opacity < 0.995) writeAscii(text, ` fill-opacity="${Math.round(shape.opacity * 1000) / 1000}"`);
}

/** Writes `<path d="…"` for these geometries; false (and nothing written) when they enclose nothing. */
function openPath(text: SvgText, paths: PathGeometry[], options: PathWriteOptions): boolean {
  const element = text.length;
  writeAscii(text, '\n<path d="');
  const dStart = text.length;
  const nodesBefore = text.nodes;
  writeShapeData(text, paths, options);
  if (text.length === dStart) {
    text.length = element;
    text.nodes = nodesBefore;
    return false;
  }
  writeByte(text, 34);
  return true;
}

/**
 * Writes the contract's SVG document, counting the nodes (segment endpoints) it writes.
 * Gradients and soft edges' blurs go into one <defs> block first and are referenced by local id
 * (url(#gN), url(#bN)), the only kinds of reference the document holds. Without grouping, shapes of one paint are joined into
 * one path where paint order allows; grouped by colour, each keeps its own path (and its own
 * opacity) inside the `<g>` of its fill colour, and a colour has one group, or more where paint
 * order requires it.
 */
export function writeSvgDocument(image: VectorImage, decimals: number, layout: SvgLayout = {}): { svg: string; nodeCount: number } {
  const { width, height } = image;
  const options: PathWriteOptions = { scaleX: image.scaleX, scaleY: image.scaleY, decimals };
  const text = createSvgText(decimals);
  writeAscii(text, `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 ${width} ${height}" ${documentSize(width, height, layout.page)}>`);
  const grouped = layout.groupBy === 'color';
  const groups = grouped ? gatherByPaint(image.shapes, { disjoint: layout.disjoint, anyOpacity: true }) : groupShapesByFill(image.shapes).map((shape) => [shape]);
  const gradientIds = new Map<GradientPaint, string>();
  for (const group of groups) {
    const fill = (group[0] as TracedShape).fill;
    if (fill.kind === 'flat' || gradientIds.has(fill)) continue;
    if (gradientIds.size === 0) writeAscii(text, '\n<defs>');
    const id = `g${gradientIds.size}`;
    gradientIds.set(fill, id);
    // Gradient coordinates get one decimal more than paths: a stop's position shifts colours over a whole shape.
    writeGradient(text, id, fill, image, decimals + 1);
  }
  // Soft edges: one filter per blur width and margin (a blur spreads past its shape: BLUR_MARGINS).
  const blurIds = new Map<string, string>();
  const groupBlurIds = new Map<readonly TracedShape[], string>();
  for (const group of groups) {
    if (!(group[0] as TracedShape).blur) continue;
    const filter = blurFilterOf(group, image);
    const key = `${filter.deviation} ${filter.margin ?? 'whole'}`;
    let id = blurIds.get(key);
    if (id === undefined) {
      if (gradientIds.size === 0 && blurIds.size === 0) writeAscii(text, '\n<defs>');
      id = `b${blurIds.size}`;
      blurIds.set(key, id);
      writeAscii(text, blurFilterElement(id, filter, width, height));
    }
    groupBlurIds.set(group, id);
  }
  if (gradientIds.size > 0 || blurIds.size > 0) writeAscii(text, '\n</defs>');
  // Translucent artwork: its shapes, stacked, take the drawing's opacity once, as one group.
  const translucent = image.opacity !== undefined && image.opacity < 1;
  if (translucent) writeAscii(text, `\n<g opacity="${formatNumber(Math.max(0, image.opacity ?? 1), 3)}">`);
  if (image.background) {
    writeAscii(text, `\n<path d="M0 0H${width}V${height}H0z" fill="`);
    writeHexColour(text, image.background);
    writeAscii(text, '"/>');
    text.nodes += 4;
  }
  for (const group of groups) {
    const first = group[0] as TracedShape;
    if (!grouped) {
      if (!openPath(text, first.paths, options)) continue;
      writePaint(text, first, gradientIds, image, groupBlurIds.get(group));
      writeAscii(text, '/>');
      continue;
    }
    const element = text.length;
    writeAscii(text, '\n<g');
    // The group holds the colour; opacity can differ from path to path (a colour's anti-aliased rims).
    writePaint(text, first, gradientIds, image, groupBlurIds.get(group), true);
    writeByte(text, 62);
    let members = 0;
    for (const shape of group) {
      if (!openPath(text, shape.paths, options)) continue;
      writeOpacity(text, shape);
      writeAscii(text, '/>');
      members++;
    }
    if (members === 0) text.length = element;
    else writeAscii(text, '\n</g>');
  }
  if (translucent) writeAscii(text, '\n</g>');
  writeAscii(text, '\n</svg>');
  return { svg: text.bytes.toString('latin1', 0, text.length), nodeCount: text.nodes };
}

/** The document's `width` and `height`: pixels, or the physical size in mm or inches (`unit`, `dpi`). */
function documentSize(width: number, height: number, page: PhysicalSize | undefined): string {
  if (!page || page.unit === 'px') return `width="${width}" height="${height}"`;
  const perPixel = unitsPerPixel(page);
  // A micrometre in mm, a tenth of a thousandth in inches.
  const places = page.unit === 'mm' ? 3 : 4;
  return `width="${formatLength(width * perPixel, places)}${page.unit}" height="${formatLength(height * perPixel, places)}${page.unit}"`;
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
