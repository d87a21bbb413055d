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

function attribute(attributes: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(attributes);
  return match?.[1];
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

/**
 * Parses VTracer's path data (absolute M, L, C, Z; numbers separated by spaces or commas) with
 * the translate offset added, into absolute working-resolution coordinates. A scanner that
 * reads digits in place: tracer output for line art runs to megabytes, and a token array of
 * strings costs more than the tracing.
 */
export function parsePathData(d: string, offsetX: number, offsetY: number): Subpath[] {
  const subpaths: Subpath[] = [];
  let current: Subpath | null = null;
  let command = 0;
  let position = 0;
  const length = d.length;
  const numbers = new Float64Array(6);

  const readNumber = (): number => {
    while (position < length) {
      const code = d.charCodeAt(position);
      if (code === 32 || code === 44 || code === 10 || code === 13 || code === 9) position++;
      else break;
    }
    const start = position;
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
      while (position < length && d.charCodeAt(position) >= 48 && d.charCodeAt(position) <= 57) position++;
      value = Number(d.slice(start, position));
      return value;
    }
    if (digits === 0) throw new Error(`unexpected path data at offset ${start}`);
    return sign * value;
  };
  const arity = (letter: number): number => (letter === 67 ? 6 : letter === 77 || letter === 76 ? 2 : 0);

  while (true) {
    while (position < length) {
      const code = d.charCodeAt(position);
      if (code === 32 || code === 44 || code === 10 || code === 13 || code === 9) position++;
      else break;
    }
    if (position >= length) break;
    const code = d.charCodeAt(position);
    if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122)) {
      position++;
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
    const needed = arity(command);
    if (needed === 0) throw new Error(`number without a command at offset ${position}`);
    for (let i = 0; i < needed; i++) numbers[i] = readNumber();
    const point = (i: number): Point => [(numbers[i] as number) + offsetX, (numbers[i + 1] as number) + offsetY];
    if (command === 77) {
      current = { start: point(0), segments: [], closed: false };
      subpaths.push(current);
      command = 76; // further pairs after a moveto are lines
    } else if (!current) {
      throw new Error('segment without a starting point');
    } else if (command === 76) {
      current.segments.push({ kind: 'line', to: point(0) });
    } else {
      current.segments.push({ kind: 'cubic', c1: point(0), c2: point(2), to: point(4) });
    }
  }
  return subpaths;
}

/** Extracts VTracer's paths: fill colour, translate offset and path data. */
export function parseTracerSvg(svg: string): TracedShape[] {
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
    const subpaths = parsePathData(d, offsetX, offsetY);
    if (subpaths.length > 0) shapes.push({ fill, opacity: 1, subpaths });
  }
  return shapes;
}

/** Distance from p to the segment a–b. */
function distanceToSegment(p: Point, a: Point, b: Point): number {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const lengthSquared = dx * dx + dy * dy;
  const t = lengthSquared === 0 ? 0 : Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / lengthSquared));
  return Math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy));
}

/**
 * Replaces cubics whose control points lie on the chord by lines: VTracer writes every
 * straight run as a cubic, which costs bytes and reads as curves in editors.
 */
export function straightenCubics(subpaths: Subpath[], tolerance: number): Subpath[] {
  return subpaths.map((subpath) => {
    let from = subpath.start;
    const segments = subpath.segments.map((segment): Segment => {
      const start = from;
      from = segment.to;
      if (
        segment.kind === 'cubic' &&
        distanceToSegment(segment.c1, start, segment.to) <= tolerance &&
        distanceToSegment(segment.c2, start, segment.to) <= tolerance
      ) {
        return { kind: 'line', to: segment.to };
      }
      return segment;
    });
    return { ...subpath, segments };
  });
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

/** Appends numbers with only the separators SVG path grammar needs. */
function joinNumbers(numbers: string[]): string {
  let out = '';
  let previous = '';
  for (const number of numbers) {
    const needsSpace =
      previous !== '' && !number.startsWith('-') && !(number.startsWith('.') && previous.includes('.'));
    out += (needsSpace ? ' ' : '') + number;
    previous = number;
  }
  return out;
}

export interface PathWriteOptions {
  scaleX: number;
  scaleY: number;
  decimals: number;
}

/**
 * Writes subpaths as compact relative path data. Coordinates are rounded in absolute
 * terms first, so relative steps never accumulate rounding drift.
 */
export function writePathData(subpaths: Subpath[], options: PathWriteOptions): string {
  const unit = 10 ** options.decimals;
  const quantise = (p: Point): [number, number] => [
    Math.round(p[0] * options.scaleX * unit),
    Math.round(p[1] * options.scaleY * unit),
  ];
  const fmt = (units: number): string => formatFixed(units, options.decimals);
  let out = '';
  let lastCommand = '';
  let pen: [number, number] = [0, 0];
  let first = true;
  const emit = (command: string, numbers: string[]): void => {
    // A repeated command letter may be left out (after m, implicit repeats mean l).
    const implicit = command === lastCommand || (command === 'l' && lastCommand === 'm');
    const body = joinNumbers(numbers);
    if (implicit && out !== '') {
      out += body.startsWith('-') ? body : ` ${body}`;
    } else {
      out += command + body;
    }
    lastCommand = command === 'm' ? 'm' : command;
  };
  for (const subpath of subpaths) {
    // A subpath without segments encloses nothing (the tracer emits these for single pixels).
    if (subpath.segments.length === 0) continue;
    const start = quantise(subpath.start);
    // The first moveto is absolute by definition even when written as 'm'.
    emit('m', [fmt(start[0] - (first ? 0 : pen[0])), fmt(start[1] - (first ? 0 : pen[1]))]);
    first = false;
    pen = start;
    const last = subpath.segments.length - 1;
    for (const [index, segment] of subpath.segments.entries()) {
      const to = quantise(segment.to);
      const dx = to[0] - pen[0];
      const dy = to[1] - pen[1];
      // z draws the closing line itself.
      if (subpath.closed && index === last && segment.kind === 'line' && to[0] === start[0] && to[1] === start[1]) break;
      if (segment.kind === 'line') {
        if (dx === 0 && dy === 0) continue;
        if (dy === 0) emit('h', [fmt(dx)]);
        else if (dx === 0) emit('v', [fmt(dy)]);
        else emit('l', [fmt(dx), fmt(dy)]);
      } else {
        const c1 = quantise(segment.c1);
        const c2 = quantise(segment.c2);
        emit('c', [
          fmt(c1[0] - pen[0]),
          fmt(c1[1] - pen[1]),
          fmt(c2[0] - pen[0]),
          fmt(c2[1] - pen[1]),
          fmt(dx),
          fmt(dy),
        ]);
      }
      pen = to;
    }
    if (subpath.closed) {
      out += 'z';
      lastCommand = 'z';
      // After z the pen returns to the subpath start.
      pen = start;
    }
  }
  return out;
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

function shapeBox(shape: TracedShape): Box {
  const box: Box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  const include = (p: Point): void => {
    box.x0 = Math.min(box.x0, p[0]);
    box.y0 = Math.min(box.y0, p[1]);
    box.x1 = Math.max(box.x1, p[0]);
    box.y1 = Math.max(box.y1, p[1]);
  };
  for (const subpath of shape.subpaths) {
    include(subpath.start);
    for (const segment of subpath.segments) {
      if (segment.kind === 'cubic') {
        include(segment.c1);
        include(segment.c2);
      }
      include(segment.to);
    }
  }
  return box;
}

function overlap(a: Box, b: Box): boolean {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

interface ShapeGroup {
  fill: TracedShape['fill'];
  opacity: number;
  subpaths: Subpath[];
  boxes: Box[];
  union: Box;
}

/** How many groups back a shape may move to join one of its colour. */
const GROUPING_LOOKBACK = 48;

/**
 * Joins shapes of the same colour into one path element where paint order allows it: a shape
 * may move back past groups it does not touch (bounding boxes disjoint). Only shapes whose
 * boxes are disjoint from the group's are joined, so no overlap can change the fill by winding.
 * Saves an element per shape; pixel art and logos have many small same-coloured shapes.
 */
export function groupShapesByFill(shapes: TracedShape[]): TracedShape[] {
  const groups: ShapeGroup[] = [];
  const touches = (group: ShapeGroup, box: Box): boolean =>
    overlap(group.union, box) && group.boxes.some((member) => overlap(member, box));
  for (const shape of shapes) {
    const box = shapeBox(shape);
    let target: ShapeGroup | undefined;
    for (let i = groups.length - 1; i >= 0 && i >= groups.length - GROUPING_LOOKBACK; i--) {
      const group = groups[i] as ShapeGroup;
      const sameColour =
        group.opacity === shape.opacity &&
        group.fill.r === shape.fill.r &&
        group.fill.g === shape.fill.g &&
        group.fill.b === shape.fill.b;
      const touching = touches(group, box);
      if (sameColour && !touching) {
        target = group;
        break;
      }
      if (touching) break;
    }
    if (target) {
      target.subpaths.push(...shape.subpaths);
      target.boxes.push(box);
      target.union = {
        x0: Math.min(target.union.x0, box.x0),
        y0: Math.min(target.union.y0, box.y0),
        x1: Math.max(target.union.x1, box.x1),
        y1: Math.max(target.union.y1, box.y1),
      };
    } else {
      groups.push({ fill: shape.fill, opacity: shape.opacity, subpaths: [...shape.subpaths], boxes: [box], union: box });
    }
  }
  return groups.map((group) => ({ fill: group.fill, opacity: group.opacity, subpaths: group.subpaths }));
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
