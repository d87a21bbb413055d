// The print and cut options (issue 19), a quick bench of its own:
// - centerline on the corpus's ink images against the filled ink trace (the default): fidelity
//   (SSIM on the paper's colour), nodes, the share of the ink the drawing covers and of the
//   strokes lying on ink, and pen-up travel as ordered against the strokes in scan order;
// - the time of each new option against the default on a logo, a photo and a line drawing;
// - the pictures of docs/gallery/makers/ (sources beside results, rendered by resvg).
//
//   npm run bench:makers          writes the `makers` section of docs/benchmarks.md and the gallery

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { convertImage } from '../src/engine/convert.ts';
import { parseParams } from '../src/engine/params.ts';
import type { TraceResult } from '../src/engine/types.ts';
import { CORPUS_DIR, readKindsManifest } from './corpus.ts';
import { fixed, median, tableRow } from './figures.ts';
import { compareSize, MAX_INPUT_PIXELS } from './measure.ts';
import { writeReportSection } from './report.ts';
import { ssim, toGray } from './ssim.ts';

const GALLERY = fileURLToPath(new URL('../docs/gallery/makers/', import.meta.url));
/** Images are compared at this long side at most. */
const COMPARE_SIDE = 1600;

async function convert(bytes: Buffer, params: Record<string, unknown>): Promise<TraceResult> {
  return convertImage({ image: bytes, params: parseParams(JSON.stringify(params)) }, { maxInputPixels: MAX_INPUT_PIXELS });
}

type Point = [number, number];

/** The strokes of a centerline SVG, in document order, as polylines (curves by their end points). */
function strokesOf(svg: string): Point[][] {
  const strokes: Point[][] = [];
  for (const match of svg.matchAll(/<path d="([^"]*)" fill="none"/g)) {
    const tokens = (match[1] as string).match(/[a-zA-Z]|-?(?:\d+\.?\d*|\.\d+)/g) ?? [];
    let x = 0;
    let y = 0;
    let command = '';
    let current: Point[] = [];
    let at = 0;
    const next = () => Number(tokens[at++]);
    while (at < tokens.length) {
      if (/^[a-zA-Z]$/.test(tokens[at] as string)) command = tokens[at++] as string;
      const relative = command === command.toLowerCase();
      const kind = command.toLowerCase();
      if (kind === 'm') {
        if (current.length > 0) strokes.push(current);
        const nx = next();
        const ny = next();
        x = relative ? x + nx : nx;
        y = relative ? y + ny : ny;
        current = [[x, y]];
        command = relative ? 'l' : 'L';
      } else if (kind === 'l') {
        const nx = next();
        const ny = next();
        x = relative ? x + nx : nx;
        y = relative ? y + ny : ny;
        current.push([x, y]);
      } else if (kind === 'h') {
        const nx = next();
        x = relative ? x + nx : nx;
        current.push([x, y]);
      } else if (kind === 'v') {
        const ny = next();
        y = relative ? y + ny : ny;
        current.push([x, y]);
      } else if (kind === 'c') {
        const values = [next(), next(), next(), next(), next(), next()];
        x = relative ? x + (values[4] as number) : (values[4] as number);
        y = relative ? y + (values[5] as number) : (values[5] as number);
        current.push([x, y]);
      } else {
        at++;
      }
    }
    if (current.length > 0) strokes.push(current);
  }
  return strokes;
}

function travel(strokes: Point[][]): number {
  let sum = 0;
  let pen: Point = [0, 0];
  for (const stroke of strokes) {
    const first = stroke[0] as Point;
    sum += Math.hypot(first[0] - pen[0], first[1] - pen[1]);
    pen = stroke[stroke.length - 1] as Point;
  }
  return sum;
}

/** The paper's colour as the filled trace paints it (its background), or white. */
function paperOf(svg: string): string {
  return /<path d="M0 0H[\d.]+V[\d.]+H0z" fill="(#[0-9a-f]{6})"/.exec(svg)?.[1] ?? '#ffffff';
}

/** A grey image's (2r + 1)² window maximum, then mean: the paper under the ink. */
function paperEstimate(grey: Uint8Array, width: number, height: number): Float32Array {
  const pass = (input: ArrayLike<number>, radius: number, horizontal: boolean, max: boolean): Float32Array => {
    const out = new Float32Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        let best = 0;
        let sum = 0;
        let n = 0;
        for (let k = -radius; k <= radius; k++) {
          const nx = horizontal ? x + k : x;
          const ny = horizontal ? y : y + k;
          if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
          const value = input[ny * width + nx] as number;
          best = Math.max(best, value);
          sum += value;
          n++;
        }
        out[y * width + x] = max ? best : sum / n;
      }
    }
    return out;
  };
  return pass(pass(pass(pass(grey, 5, true, true), 5, false, true), 8, true, false), 8, false, false);
}

interface InkRow {
  file: string;
  size: string;
  filledSsim: number;
  centerlineSsim: number;
  filledNodes: number;
  centerlineNodes: number;
  strokes: number;
  covered: number;
  onInk: number;
  ordered: number;
  unordered: number;
  filledMs: number;
  centerlineMs: number;
}

async function measureInkImage(file: string): Promise<InkRow> {
  const bytes = readFileSync(join(CORPUS_DIR, file));
  const filled = await convert(bytes, { mode: 'sketch' });
  const centerline = await convert(bytes, { centerline: true });
  const size = compareSize(filled.width, filled.height, COMPARE_SIDE);
  // Both drawn on the paper's colour: a plotter draws on the paper, the filled trace paints it.
  const paper = paperOf(filled.svg);
  const draw = (svg: string) => {
    const image = new Resvg(svg, { fitTo: { mode: 'width', value: size.width }, background: paper, font: { loadSystemFonts: false } }).render();
    return { gray: toGray(image.pixels, image.width, image.height, 4), width: image.width, height: image.height };
  };
  const drawnFilled = draw(filled.svg);
  const drawnCenterline = draw(centerline.svg);
  // resvg rounds the height of a fitted SVG itself: the source follows it.
  const { width, height } = drawnFilled;
  const source = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS }).rotate().resize(width, height, { fit: 'fill' }).flatten({ background: '#ffffff' }).toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const reference = toGray(source.data, source.info.width, source.info.height, source.info.channels);
  // The ink, from the source: darker than the paper around it by a quarter.
  const grey = reference.data as unknown as ArrayLike<number>;
  const local = paperEstimate(Uint8Array.from(grey, (v) => Math.round(v)), width, height);
  const strokesOnly = new Resvg(centerline.svg.replace(/\n<path d="[^"]*" fill="#[0-9a-f]{6}"\/>/g, ''), { fitTo: { mode: 'width', value: width } }).render().pixels;
  const anything = new Resvg(centerline.svg, { fitTo: { mode: 'width', value: width } }).render().pixels;
  let ink = 0;
  let covered = 0;
  let strokePixels = 0;
  let strokeOnInk = 0;
  const near = (p: number, radius: number, test: (q: number) => boolean) => {
    const x = p % width;
    const y = (p - x) / width;
    for (let dy = -radius; dy <= radius; dy++) for (let dx = -radius; dx <= radius; dx++) {
      const nx = x + dx;
      const ny = y + dy;
      if (nx >= 0 && ny >= 0 && nx < width && ny < height && test(ny * width + nx)) return true;
    }
    return false;
  };
  const isInk = (q: number) => (grey[q] as number) < 0.75 * (local[q] as number);
  for (let p = 0; p < width * height; p++) {
    if (isInk(p)) {
      ink++;
      if (near(p, 1, (q) => (anything[q * 4 + 3] as number) >= 128)) covered++;
    }
    if ((strokesOnly[p * 4 + 3] as number) >= 128) {
      strokePixels++;
      if (near(p, 2, isInk)) strokeOnInk++;
    }
  }
  const strokes = strokesOf(centerline.svg);
  const scanOrder = [...strokes].sort((a, b) => (a[0] as Point)[1] - (b[0] as Point)[1] || (a[0] as Point)[0] - (b[0] as Point)[0]);
  return {
    file,
    size: `${filled.width}×${filled.height}`,
    filledSsim: ssim(reference, drawnFilled.gray),
    centerlineSsim: ssim(reference, drawnCenterline.gray),
    filledNodes: filled.nodeCount,
    centerlineNodes: centerline.nodeCount,
    strokes: strokes.length,
    covered: covered / Math.max(1, ink),
    onInk: strokeOnInk / Math.max(1, strokePixels),
    ordered: travel(strokes),
    unordered: travel(scanOrder),
    filledMs: filled.processingTimeMs,
    centerlineMs: centerline.processingTimeMs,
  };
}

/** Options timed against the default, each on its own. */
const OPTIONS: { name: string; params: Record<string, unknown> }[] = [
  { name: 'default', params: {} },
  { name: 'palette (5 colours)', params: { palette: ['#1d3557', '#e63946', '#f1faee', '#a8dadc', '#457b9d'] } },
  { name: 'maxColors 8', params: { maxColors: 8 } },
  { name: 'centerline', params: { centerline: true } },
  { name: 'unit mm (+ report)', params: { unit: 'mm' } },
  { name: 'minFeature 0.5 mm', params: { unit: 'mm', minFeature: 0.5 } },
  { name: 'preset vinyl', params: { preset: 'vinyl' } },
  { name: 'preset laser', params: { preset: 'laser' } },
  { name: 'preset plotter', params: { preset: 'plotter' } },
  { name: 'preset screenprint', params: { preset: 'screenprint' } },
  { name: 'preset embroidery', params: { preset: 'embroidery' } },
];
const TIMED = ['logo/paper_accessories_calculator_512.png', 'photo/kodim23.png', 'sketch/imagetracerjs_flower_lineart.png'];

/** A source beside its result, both 480 px wide on white, the result's cut lines drawn when asked. */
async function galleryPicture(name: string, file: string, params: Record<string, unknown>, outlines = false): Promise<string> {
  const bytes = readFileSync(join(CORPUS_DIR, file));
  const result = await convert(bytes, params);
  const width = 480;
  // Cut-outs drawn with a thin white line round every piece: where the blade goes.
  const cutLines = ' stroke="#ffffff" stroke-width="1.5" stroke-linejoin="round"';
  const svg = outlines
    ? result.svg.replace(/(<path d="[^"]*" fill="#[0-9a-f]{6}")/g, `$1${cutLines}`).replace(/(<g fill="#[0-9a-f]{6}")/g, `$1${cutLines}`)
    : result.svg;
  const right = new Resvg(svg, { background: '#ffffff', fitTo: { mode: 'width', value: width }, font: { loadSystemFonts: false } }).render();
  const left = await sharp(bytes).rotate().resize(width, right.height, { fit: 'fill' }).flatten({ background: '#ffffff' }).png().toBuffer();
  const out = `${name}.png`;
  await sharp({ create: { width: 2 * width + 12, height: right.height, channels: 3, background: '#9a9a9a' } })
    .composite([
      { input: left, left: 0, top: 0 },
      { input: right.asPng(), left: width + 12, top: 0 },
    ])
    .png({ compressionLevel: 9, palette: true, colours: 256 })
    .toFile(join(GALLERY, out));
  return out;
}

const GALLERY_ITEMS: { name: string; file: string; params: Record<string, unknown>; outlines?: boolean; caption: string }[] = [
  { name: 'centerline-flower', file: 'sketch/imagetracerjs_flower_lineart.png', params: { centerline: true }, caption: 'Line drawing, `centerline: true`: strokes along the lines, the dark knots filled' },
  { name: 'centerline-handwriting', file: 'document/skimage_text_handwriting_gray.png', params: { centerline: true }, caption: 'Handwriting under uneven light, `centerline: true`' },
  { name: 'centerline-etching', file: 'sketch/piranesi_carceri_etching_1000.png', params: { centerline: true }, caption: 'Etching, `centerline: true`: hatching as strokes, dense shadow filled' },
  { name: 'palette-logo', file: 'logo/flat_shapes_transparency_300.png', params: { palette: ['#1d3557', '#e63946', '#f1faee', '#a8dadc'] }, caption: 'Logo, `palette: ["#1d3557", "#e63946", "#f1faee", "#a8dadc"]`: each shape the nearest in Oklab' },
  { name: 'palette-photo', file: 'photo/kodim23.png', params: { palette: ['#1d3557', '#e63946', '#f1faee', '#a8dadc', '#457b9d', '#f4a261'] }, caption: 'Photograph, a six-colour palette' },
  { name: 'maxcolors-photo', file: 'photo/kodim23.png', params: { maxColors: 6 }, caption: 'Photograph, `maxColors: 6`: its dominant colours' },
  { name: 'maxcolors-icon', file: 'logo/visioncortex_icon_400.png', params: { maxColors: 3 }, caption: 'Logo with gradients, `maxColors: 3`: navy, white and gold exactly' },
  { name: 'vinyl-calculator', file: 'logo/paper_accessories_calculator_512.png', params: { preset: 'vinyl' }, outlines: true, caption: '`preset: vinyl`: cut-outs in mm, at most 8 colours, nothing under 0.5 mm (cut lines drawn white)' },
  { name: 'embroidery-maps', file: 'logo/paper_accessories_maps_512.png', params: { preset: 'embroidery' }, outlines: true, caption: '`preset: embroidery`: cut-outs, 6 colours, nothing under 1 mm (cut lines drawn white)' },
];

async function main(): Promise<void> {
  const manifest = readKindsManifest();
  const inkImages = [...manifest.entries].filter(([, entry]) => entry.kind === 'sketch').map(([path]) => path).sort();
  const inkRows: InkRow[] = [];
  for (const file of inkImages) {
    const row = await measureInkImage(file);
    inkRows.push(row);
    console.log(
      `${file.padEnd(48)} ssim filled ${fixed(row.filledSsim)} centerline ${fixed(row.centerlineSsim)} | nodes ${row.filledNodes} → ${row.centerlineNodes} | ` +
        `covered ${(row.covered * 100).toFixed(1)} % on ink ${(row.onInk * 100).toFixed(1)} % | travel ${row.ordered.toFixed(0)} / ${row.unordered.toFixed(0)} | ${row.filledMs} ms → ${row.centerlineMs} ms`,
    );
  }

  const timings = new Map<string, number[]>();
  for (const file of TIMED) {
    const bytes = readFileSync(join(CORPUS_DIR, file));
    await convert(bytes, {}); // warm-up: the first conversion of a kind pays for compiling its code paths
    for (const option of OPTIONS) {
      const result = await convert(bytes, option.params);
      const list = timings.get(option.name) ?? [];
      list.push(result.processingTimeMs);
      timings.set(option.name, list);
      console.log(`${file.padEnd(48)} ${option.name.padEnd(22)} ${result.processingTimeMs} ms, ${result.nodeCount} nodes${result.report ? `, report ${JSON.stringify(result.report)}` : ''}`);
    }
  }

  mkdirSync(GALLERY, { recursive: true });
  const pictures: string[] = [];
  for (const item of GALLERY_ITEMS) {
    const picture = await galleryPicture(item.name, item.file, item.params, item.outlines);
    pictures.push(`### ${item.caption}\n\nSource \`${item.file}\` on the left, the result rendered by resvg on the right.\n\n![${item.name}](${picture})`);
    console.log(`gallery ${picture}`);
  }
  writeFileSync(
    join(GALLERY, 'README.md'),
    `# Print and cut: pictures\n\nWritten by \`npm run bench:makers\` (\`bench/makers.ts\`): each corpus image beside what the service makes of it with the print and cut options (docs/parameters.md, "Print and cut").\n\n${pictures.join('\n\n')}\n`,
  );

  const body = [
    '## Print and cut (`npm run bench:makers`)',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} in-process (\`convertImage\`), one run each, on a 2-core machine shared with other work (times vary by ±30 %).`,
    '',
    '### Centerline against the filled ink trace, on the corpus ink images',
    '',
    'SSIM: the SVG rendered on the paper\'s colour (the filled trace paints the paper, a plotter draws on it) against the source, at most 1600 px on the long side. Ink covered: the source\'s ink pixels (darker than the paper around them by a quarter) within a pixel of anything drawn; on ink: the stroke pixels within 2 px of ink. Pen-up travel (pixels): from the top left, stroke end to next stroke start, as ordered against the same strokes in scan order (by their first point, each in its own direction).',
    '',
    tableRow(['image', 'size', 'SSIM filled', 'SSIM centerline', 'nodes filled', 'nodes centerline', 'strokes', 'ink covered', 'strokes on ink', 'pen-up travel ordered', 'in scan order', 'time filled', 'time centerline']),
    tableRow(Array.from({ length: 13 }, () => '---')),
    ...inkRows.map((row) =>
      tableRow([
        `\`${row.file}\``,
        row.size,
        fixed(row.filledSsim, 3),
        fixed(row.centerlineSsim, 3),
        row.filledNodes,
        row.centerlineNodes,
        row.strokes,
        `${(row.covered * 100).toFixed(1)} %`,
        `${(row.onInk * 100).toFixed(1)} %`,
        row.ordered.toFixed(0),
        `${row.unordered.toFixed(0)} (${(row.ordered / Math.max(1, row.unordered)).toFixed(2)}×)`,
        `${row.filledMs} ms`,
        `${row.centerlineMs} ms`,
      ]),
    ),
    '',
    `Nodes: centerline ${(median(inkRows.map((row) => row.centerlineNodes / row.filledNodes)) * 100).toFixed(0)} % of the filled trace's (median). Pen-up travel: ${(median(inkRows.map((row) => row.ordered / Math.max(1, row.unordered))) * 100).toFixed(0)} % of scan order's (median).`,
    '',
    '### Time of each option',
    '',
    `\`processingTimeMs\` of one conversion each, after a warm-up, on ${TIMED.map((file) => `\`${file}\``).join(', ')}.`,
    '',
    tableRow(['option', ...TIMED.map((file) => file.split('/').pop() as string)]),
    tableRow(['---', ...TIMED.map(() => '---')]),
    ...OPTIONS.map((option) => tableRow([option.name, ...(timings.get(option.name) ?? []).map((ms) => `${ms} ms`)])),
    '',
    'Pictures: [docs/gallery/makers/](gallery/makers/README.md).',
  ].join('\n');
  writeReportSection('makers', body);
  console.log('wrote the makers section of docs/benchmarks.md and docs/gallery/makers/');
}

await main();
