// Writes the geometry model as Encapsulated PostScript (EPSF-3.0, LanguageLevel 3), by hand:
// no maintained npm library writes EPS, and the subset needed is small — paths, fills, and
// level-3 axial and radial shading patterns for gradients. PostScript has no transparency:
// a partly transparent shape or stop is painted opaque, its colour mixed with white paper by
// its opacity, which is exact over the paper and close over other shapes.

import { PathCommand, type Rgb, type TracedShape, type VectorImage, withOpacityPerShape } from '../geometry.ts';
import { groupShapesByFill } from './grouping.ts';
import { coordinateRounding, documentGradient, type CoordinateRounding, type DocumentGradient } from './document.ts';
import { formatLength, pointsPerPixel, type PhysicalSize } from './page.ts';
import { documentStrokeWidth } from './svg.ts';

/** Shortest text of a number rounded to `decimals` places (PostScript reads plain decimals). */
function num(value: number, decimals: number): string {
  const rounded = Number(value.toFixed(decimals));
  return String(Object.is(rounded, -0) ? 0 : rounded);
}

/** A colour as PostScript's 0–1 components, mixed with white paper by `opacity`. */
function components({ r, g, b }: Rgb, opacity = 1): string {
  const alpha = Math.max(0, Math.min(1, opacity));
  const channel = (value: number) => num((alpha * Math.max(0, Math.min(255, value)) + (1 - alpha) * 255) / 255, 4);
  return `${channel(r)} ${channel(g)} ${channel(b)}`;
}

/** Lines of text, kept short: PostScript readers are only required to take 255 characters a line. */
class PostScript {
  private readonly lines: string[] = [];
  private line = '';

  token(text: string): void {
    if (this.line.length + text.length + 1 > 200) this.newline();
    this.line = this.line ? `${this.line} ${text}` : text;
  }

  newline(): void {
    if (this.line) this.lines.push(this.line);
    this.line = '';
  }

  text(): string {
    this.newline();
    return `${this.lines.join('\n')}\n`;
  }
}

function writePath(ps: PostScript, shape: TracedShape, round: CoordinateRounding, decimals: number): boolean {
  let drawn = false;
  const x = (value: number) => num(round.x(value), decimals);
  const y = (value: number) => num(round.y(value), decimals);
  for (const { commands, coords } of shape.paths) {
    let at = 0;
    for (let index = 0; index < commands.length; index++) {
      const command = commands[index] as number;
      if (command === PathCommand.close) {
        ps.token('h');
        continue;
      }
      if (command === PathCommand.move) {
        const next = commands[index + 1];
        if (next === undefined || next === PathCommand.move || next === PathCommand.close) {
          at += 2;
          if (next === PathCommand.close) index++;
          continue;
        }
        ps.token(`${x(coords[at] as number)} ${y(coords[at + 1] as number)} m`);
        at += 2;
        continue;
      }
      drawn = true;
      if (command === PathCommand.line) {
        ps.token(`${x(coords[at] as number)} ${y(coords[at + 1] as number)} l`);
        at += 2;
        continue;
      }
      ps.token(
        `${x(coords[at] as number)} ${y(coords[at + 1] as number)} ${x(coords[at + 2] as number)} ${y(coords[at + 3] as number)} ${x(coords[at + 4] as number)} ${y(coords[at + 5] as number)} c`,
      );
      at += 6;
    }
  }
  return drawn;
}

/** A level-3 shading dictionary: one exponential (linear) function per pair of stops, stitched. */
function shading(gradient: DocumentGradient, opacity: number): string {
  const stops = gradient.stops;
  const pieces: string[] = [];
  const bounds: string[] = [];
  const encode: string[] = [];
  for (let i = 0; i + 1 < stops.length; i++) {
    const a = stops[i] as (typeof stops)[number];
    const b = stops[i + 1] as (typeof stops)[number];
    pieces.push(`<< /FunctionType 2 /Domain [0 1] /C0 [${components(a.color, a.opacity * opacity)}] /C1 [${components(b.color, b.opacity * opacity)}] /N 1 >>`);
    if (i + 2 < stops.length) bounds.push(num(b.offset, 6));
    encode.push('0 1');
  }
  const first = stops[0];
  const fn =
    pieces.length === 0 && first
      ? `<< /FunctionType 2 /Domain [0 1] /C0 [${components(first.color, first.opacity * opacity)}] /C1 [${components(first.color, first.opacity * opacity)}] /N 1 >>`
      : `<< /FunctionType 3 /Domain [0 1] /Functions [${pieces.join(' ')}] /Bounds [${bounds.join(' ')}] /Encode [${encode.join(' ')}] >>`;
  const coords =
    gradient.kind === 'linear'
      ? `/ShadingType 2 /Coords [${[gradient.x1, gradient.y1, gradient.x2, gradient.y2].map((v) => num(v, 4)).join(' ')}]`
      : `/ShadingType 3 /Coords [${[gradient.cx, gradient.cy, 0, gradient.cx, gradient.cy, gradient.r].map((v) => num(v, 4)).join(' ')}]`;
  return `<< ${coords} /ColorSpace /DeviceRGB /Extend [true true] /Function ${fn} >>`;
}

export function writeEps(image: VectorImage, decimals: number, page?: PhysicalSize): Buffer {
  const { width, height } = image;
  const ps = new PostScript();
  // The bounding box in points: the pixel size, or the physical size at `dpi` (whole points
  // rounded up, as the box must hold the drawing; the exact size in the HiResBoundingBox).
  const scale = pointsPerPixel(page);
  const pageWidth = width * scale;
  const pageHeight = height * scale;
  const header = [
    '%!PS-Adobe-3.0 EPSF-3.0',
    `%%BoundingBox: 0 0 ${Math.ceil(pageWidth - 1e-6)} ${Math.ceil(pageHeight - 1e-6)}`,
    `%%HiResBoundingBox: 0 0 ${formatLength(pageWidth)} ${formatLength(pageHeight)}`,
    '%%Creator: vectorize',
    '%%Title: Vectorized image',
    '%%LanguageLevel: 3',
    '%%Pages: 1',
    '%%EndComments',
    '%%BeginProlog',
    '/m /moveto load def /l /lineto load def /c /curveto load def /h /closepath load def',
    '/rg /setrgbcolor load def /f /fill load def /s /stroke load def',
    '%%EndProlog',
    '%%Page: 1 1',
    // Pixel coordinates run downwards from the top left; PostScript's upwards from the bottom left.
    scale === 1 ? `save 0 ${height} translate 1 -1 scale` : `save 0 ${formatLength(pageHeight, 6)} translate ${formatLength(scale, 8)} ${formatLength(-scale, 8)} scale`,
  ].join('\n');
  const round = coordinateRounding(image, decimals);
  if (image.background) {
    ps.token(`${components(image.background)} rg 0 0 m ${width} 0 l ${width} ${height} l 0 ${height} l h f`);
    ps.newline();
  }
  // A translucent drawing's opacity is taken per shape (PostScript has no transparency).
  for (const shape of groupShapesByFill(withOpacityPerShape(image).shapes)) {
    ps.token('newpath');
    if (!writePath(ps, shape, round, decimals)) {
      ps.newline();
      continue;
    }
    if (shape.stroke && shape.fill.kind === 'flat') {
      // A centerline stroke: round caps and joins, as a pen draws it.
      ps.token(`${num(documentStrokeWidth(shape.stroke.width, image), 3)} setlinewidth 1 setlinecap 1 setlinejoin ${components(shape.fill.color)} rg s`);
    } else if (shape.fill.kind === 'flat') {
      ps.token(`${components(shape.fill.color, shape.opacity)} rg f`);
    } else {
      // A shading pattern filled like a colour (padded beyond its ends as in SVG): a fill is
      // anti-aliased by renderers where a clip with shfill is not.
      ps.token(`<< /PatternType 2 /Shading ${shading(documentGradient(shape.fill, image), shape.opacity)} >> matrix makepattern setpattern f`);
    }
    ps.newline();
  }
  const trailer = ['restore', 'showpage', '%%Trailer', '%%EOF', ''].join('\n');
  return Buffer.from(`${header}\n${ps.text()}${trailer}`, 'latin1');
}
