// Reading the files back as a maker's tool would, with readers that are not the engine's: the
// colours a PDF, EPS, DXF or PNG paints, the size of its page (pdfinfo, Ghostscript's bbox
// device), and the SVG's own paint attributes. For the print and cut tests (issue 19).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inflateSync } from 'node:zlib';
import dxfParser, { type DxfParser as DxfParserType } from 'dxf-parser';
import sharp from 'sharp';

const run = promisify(execFile);
// dxf-parser's CommonJS build exports the class itself; its types describe an ES module.
export const DxfParser = dxfParser as unknown as typeof DxfParserType;

function hex(r: number, g: number, b: number): string {
  return `#${[r, g, b].map((v) => Math.max(0, Math.min(255, Math.round(v))).toString(16).padStart(2, '0')).join('')}`;
}

/** Every `#rrggbb` an SVG fills or strokes with, and whether it uses anything else (gradients, opacity). */
export function svgPaints(svg: string): { colours: Set<string>; gradients: number; partialOpacity: number } {
  const colours = new Set<string>();
  for (const match of svg.matchAll(/\s(?:fill|stroke|stop-color)="(#[0-9a-fA-F]{6})"/g)) colours.add((match[1] as string).toLowerCase());
  return {
    colours,
    gradients: (svg.match(/<(?:linear|radial)Gradient\b/g) ?? []).length,
    partialOpacity: (svg.match(/\s(?:fill-|stroke-|stop-)?opacity="(?!1")/g) ?? []).length,
  };
}

/** The content streams of a PDF, inflated. */
export function pdfContent(pdf: Buffer): string {
  const text = pdf.toString('latin1');
  const parts: string[] = [];
  for (const match of text.matchAll(/stream\r?\n/g)) {
    const start = (match.index as number) + match[0].length;
    const end = text.indexOf('endstream', start);
    try {
      parts.push(inflateSync(pdf.subarray(start, end)).toString('latin1'));
    } catch {
      parts.push(text.slice(start, end));
    }
  }
  return parts.join('\n');
}

/** The RGB colours a PDF fills and strokes with (operators rg, sc, scn and their stroke forms). */
export function pdfColours(pdf: Buffer): Set<string> {
  const colours = new Set<string>();
  for (const match of pdfContent(pdf).matchAll(/(?:^|\s)([\d.]+) ([\d.]+) ([\d.]+) (?:rg|RG|sc|SC|scn|SCN)\b/g)) {
    colours.add(hex(Number(match[1]) * 255, Number(match[2]) * 255, Number(match[3]) * 255));
  }
  return colours;
}

/** The RGB colours an EPS sets (`r g b rg`, its prolog's setrgbcolor, or setrgbcolor itself). */
export function epsColours(eps: string): Set<string> {
  const colours = new Set<string>();
  for (const match of eps.matchAll(/(?:^|\s)([\d.]+) ([\d.]+) ([\d.]+) (?:rg|setrgbcolor)\b/g)) {
    colours.add(hex(Number(match[1]) * 255, Number(match[2]) * 255, Number(match[3]) * 255));
  }
  return colours;
}

/** The page size of a PDF as pdfinfo reads it, in points. */
export async function pdfPageSize(pdf: Uint8Array): Promise<{ width: number; height: number }> {
  return inTempDir(async (dir) => {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    const { stdout } = await run('pdfinfo', [join(dir, 'in.pdf')]);
    const match = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(stdout);
    if (!match) throw new Error(`pdfinfo gave no page size: ${stdout}`);
    return { width: Number(match[1]), height: Number(match[2]) };
  });
}

/** What an EPS marks, as Ghostscript's bbox device measures it (points). */
export async function epsMarkedBox(eps: Uint8Array): Promise<{ x0: number; y0: number; x1: number; y1: number }> {
  return inTempDir(async (dir) => {
    writeFileSync(join(dir, 'in.eps'), eps);
    const { stderr } = await run('gs', ['-q', '-dSAFER', '-dBATCH', '-dNOPAUSE', '-sDEVICE=bbox', join(dir, 'in.eps')]);
    const match = /%%HiResBoundingBox: ([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+)/.exec(stderr);
    if (!match) throw new Error(`Ghostscript gave no bounding box: ${stderr}`);
    return { x0: Number(match[1]), y0: Number(match[2]), x1: Number(match[3]), y1: Number(match[4]) };
  });
}

async function inTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'vectorize-read-'));
  try {
    return await work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface DxfEntity {
  type: string;
  shape?: boolean;
  layer: string;
  vertices: { x: number; y: number }[];
}

/**
 * A DXF read by dxf-parser (entities, header variables), and the true colours (group 420) its
 * text gives layers and entities, as `#rrggbb` (dxf-parser keeps only a layer's colour index).
 */
export function readDxf(text: string): { entities: DxfEntity[]; header: Record<string, unknown>; layers: string[]; trueColours: Set<string> } {
  const dxf = new DxfParser().parseSync(text);
  if (!dxf) throw new Error('dxf-parser could not read the file');
  const lines = text.split(/\r?\n/);
  const trueColours = new Set<string>();
  for (let i = 0; i + 1 < lines.length; i += 2) {
    if ((lines[i] as string).trim() === '420') trueColours.add(`#${Number((lines[i + 1] as string).trim()).toString(16).padStart(6, '0')}`);
  }
  return { entities: dxf.entities as unknown as DxfEntity[], header: dxf.header as Record<string, unknown>, layers: Object.keys(dxf.tables.layer.layers), trueColours };
}

/**
 * The colours of a PNG's inner pixels (each with its 8 neighbours of the same colour, so no
 * anti-aliased edge is counted), how many of each, and how many pixels are neither clear nor opaque.
 */
export async function pngInnerColours(png: Uint8Array): Promise<{ colours: Map<string, number>; translucentInner: number }> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const word = (x: number, y: number) => data.readUInt32LE((y * width + x) * 4);
  const colours = new Map<string, number>();
  let translucentInner = 0;
  for (let y = 1; y + 1 < height; y++) {
    for (let x = 1; x + 1 < width; x++) {
      const here = word(x, y);
      let inner = true;
      for (let dy = -1; dy <= 1 && inner; dy++) for (let dx = -1; dx <= 1; dx++) if (word(x + dx, y + dy) !== here) inner = false;
      if (!inner) continue;
      const at = (y * width + x) * 4;
      const alpha = data[at + 3] as number;
      if (alpha === 0) continue;
      if (alpha < 255) {
        translucentInner++;
        continue;
      }
      const colour = hex(data[at] as number, data[at + 1] as number, data[at + 2] as number);
      colours.set(colour, (colours.get(colour) ?? 0) + 1);
    }
  }
  return { colours, translucentInner };
}
