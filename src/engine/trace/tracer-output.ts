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
  // Where the last line began, while the last step is a line: a following line in the same
  // direction extends it instead (the tracer splits long straight runs into short ones).
  let lineFromX = NaN;
  let lineFromY = NaN;
  const addLine = (x: number, y: number) => {
    const last = commands.length - 1;
    if (commands[last] === PathCommand.line && distanceToSegment(penX, penY, lineFromX, lineFromY, x, y) <= straightTolerance) {
      coords[coords.length - 2] = x;
      coords[coords.length - 1] = y;
    } else {
      lineFromX = penX;
      lineFromY = penY;
      commands.push(PathCommand.line);
      coords.push(x, y);
    }
    penX = x;
    penY = y;
  };
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
      penX = x;
      penY = y;
    } else if (!open) {
      throw new Error('segment without a starting point');
    } else if (command === 76) {
      addLine(x, y);
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
        addLine(x3, y3);
      } else {
        commands.push(PathCommand.cubic);
        coords.push(x, y, x2, y2, x3, y3);
        penX = x3;
        penY = y3;
      }
    }
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
    if (geometry.commands.length > 0) shapes.push({ fill: flat(fill), opacity: 1, paths: [geometry] });
  }
  return shapes;
}
