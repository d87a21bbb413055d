// Contact sheets for people (docs/gallery/): for each image of bench/gallery.tsv, the original,
// the service's SVG and raw VTracer's side by side as the bench compares them (with the Lanczos
// enlargement where a larger reference exists), and for large images 100 % crops. The sheets go
// to docs/gallery/engine/ (rewritten each time); docs/gallery/README.md gets its `engine` section,
// so other sections and folders of docs/gallery/ stay as they are.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { CROP_SIDE, svgCrop, type Crop } from './crops.ts';
import { fixed, kb } from './figures.ts';
import { baselineKey, vtracerCropsKey, type ImageRow } from './images.ts';
import type { WindowAt } from './compare.ts';
import { rasterAt, readCachedFile, renderSvg, rgbaToPng } from './measure.ts';
import { writeReportSection } from './report.ts';
import { signedPercent } from './targets.ts';

const GALLERY_LIST = fileURLToPath(new URL('./gallery.tsv', import.meta.url));
export const GALLERY_DIR = fileURLToPath(new URL('../docs/gallery/', import.meta.url));
const SHEETS_DIR = join(GALLERY_DIR, 'engine');
const INDEX_PATH = join(GALLERY_DIR, 'README.md');

/** A panel's box: images are fitted into it (shrunk, or enlarged by whole pixels). */
const PANEL = 384;
/** Wide images get wider panels, stacked. */
const WIDE_PANEL = 768;
/** The part of each 512 px crop shown at 100 %. */
const CROP_SHOWN = 320;
const GAP = 8;
const LABEL_HEIGHT = 34;
const FONT = "font-family=\"DejaVu Sans, Liberation Sans, Arial, sans-serif\" font-size=\"12\" fill=\"#222\"";

export interface GalleryEntry {
  file: string;
  note: string;
}

export function readGalleryList(): GalleryEntry[] {
  return readFileSync(GALLERY_LIST, 'utf8')
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'))
    .map((line) => {
      const [file = '', note = ''] = line.split('\t');
      return { file, note };
    });
}

interface Panel {
  png: Buffer;
  width: number;
  height: number;
  label: [string, string];
  /** The worst window (bench/compare.ts), outlined in red, in panel pixels. */
  mark?: WindowAt;
}

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Fits a PNG into a box: Lanczos when shrinking, whole-pixel nearest neighbour when enlarging;
 * `mark` (in the PNG's pixels) is scaled with it.
 */
async function fitPanel(png: Buffer, box: number, label: [string, string], mark?: WindowAt): Promise<Panel> {
  const { width = 1, height = 1 } = await sharp(png).metadata();
  const long = Math.max(width, height);
  const scale = long > box ? box / long : Math.max(1, Math.floor(box / long));
  const targetWidth = Math.max(1, Math.round(width * scale));
  const targetHeight = Math.max(1, Math.round(height * scale));
  const resized = await sharp(png)
    .resize(targetWidth, targetHeight, { fit: 'fill', kernel: scale > 1 ? 'nearest' : 'lanczos3' })
    .png()
    .toBuffer();
  const scaleX = targetWidth / width;
  const scaleY = targetHeight / height;
  return {
    png: resized,
    width: targetWidth,
    height: targetHeight,
    label,
    ...(mark && mark.width > 0
      ? { mark: { x: mark.x * scaleX, y: mark.y * scaleY, width: mark.width * scaleX, height: mark.height * scaleY } }
      : {}),
  };
}

/** Panels side by side (or stacked, `vertical`) with their labels, on a checkerboard where transparent. */
async function sheet(panels: Panel[], vertical: boolean): Promise<Buffer> {
  const cellWidth = Math.max(...panels.map((panel) => panel.width));
  const cellHeight = Math.max(...panels.map((panel) => panel.height)) + LABEL_HEIGHT;
  const width = vertical ? cellWidth + 2 * GAP : panels.length * (cellWidth + GAP) + GAP;
  const height = vertical ? panels.length * (cellHeight + GAP) + GAP : cellHeight + 2 * GAP;
  const parts = panels.map((panel, index) => {
    const x = vertical ? GAP : GAP + index * (cellWidth + GAP);
    const y = vertical ? GAP + index * (cellHeight + GAP) : GAP;
    const image = `data:image/png;base64,${panel.png.toString('base64')}`;
    return [
      `<text x="${x}" y="${y + 13}" ${FONT} font-weight="bold">${escapeXml(panel.label[0])}</text>`,
      `<text x="${x}" y="${y + 28}" ${FONT}>${escapeXml(panel.label[1])}</text>`,
      `<rect x="${x}" y="${y + LABEL_HEIGHT}" width="${panel.width}" height="${panel.height}" fill="url(#checks)"/>`,
      `<image x="${x}" y="${y + LABEL_HEIGHT}" width="${panel.width}" height="${panel.height}" href="${image}"/>`,
      panel.mark
        ? `<rect x="${x + panel.mark.x}" y="${y + LABEL_HEIGHT + panel.mark.y}" width="${panel.mark.width}" height="${panel.mark.height}" fill="none" stroke="#e00000" stroke-width="2"/>`
        : '',
    ].join('');
  });
  const svg = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">`,
    '<defs><pattern id="checks" width="16" height="16" patternUnits="userSpaceOnUse">',
    '<rect width="16" height="16" fill="#c8c8c8"/><rect width="8" height="8" fill="#a0a0a0"/><rect x="8" y="8" width="8" height="8" fill="#a0a0a0"/>',
    '</pattern></defs>',
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    ...parts,
    '</svg>',
  ].join('');
  const rendered = new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } }).render().asPng();
  // A palette of 128 colours keeps a sheet of photos to a few hundred KB.
  return sharp(rendered).png({ palette: true, colours: 128, quality: 80, effort: 8, dither: 0.6 }).toBuffer();
}

const figures = (row: ImageRow, which: 'ours' | 'vtracer' | 'lanczos'): string => {
  const comparison = which === 'ours' ? row.ours : which === 'vtracer' ? row.vtracer?.comparison : row.lanczos;
  if (!comparison) return 'not measured';
  const bytes = which === 'ours' ? row.bytes : which === 'vtracer' ? row.vtracer?.bytes : undefined;
  return [bytes !== undefined ? `${kb(bytes)} KB` : '', `SSIM ${fixed(comparison.ssim, 3)}`, `worst ΔE ${comparison.worstDe.toFixed(1)}`]
    .filter(Boolean)
    .join(' · ');
};

const slug = (file: string): string => file.replace(/\.[a-z]+$/i, '').replace(/[^\w.-]+/g, '_');

function comparedAs(row: ImageRow): string {
  if (row.compared === 'reference') return `input ${row.width}×${row.height}, compared at ${row.compareWidth}×${row.compareHeight}`;
  if (row.compared === '1×') return `${row.width}×${row.height}, compared at ${row.compareWidth}×${row.compareHeight}`;
  return `${row.width}×${row.height} enlarged ${row.compared} (${row.image.expected === 'pixelart' ? 'nearest' : 'Lanczos 3'})`;
}

/** The sheet of one image at the comparison size. */
async function wholeSheet(row: ImageRow, svg: string): Promise<Buffer> {
  const bytes = readFileSync(row.image.path);
  const wide = row.compareWidth / row.compareHeight >= 2.5;
  const box = wide ? WIDE_PANEL : PANEL;
  const reference = row.image.referencePath
    ? readFileSync(row.image.referencePath)
    : await rgbaToPng(await rasterAt(bytes, row.compareWidth, row.compareHeight, row.compared !== '1×' && row.image.expected === 'pixelart' ? 'nearest' : 'lanczos3'));
  const vtracer = readCachedFile(`${baselineKey('vtracer', bytes, row.compareKey)}.png`);
  const panels = [
    await fitPanel(reference, box, [row.image.referencePath ? 'reference (512 px render)' : 'original', comparedAs(row)]),
    await fitPanel(await rgbaToPng(renderSvg(svg, row.compareWidth)), box, [`ours: ${row.chosen}`, figures(row, 'ours')], row.ours.worstAt),
  ];
  if (vtracer) {
    panels.push(await fitPanel(vtracer, box, ['raw VTracer (command-line defaults)', figures(row, 'vtracer')], row.vtracer?.comparison.worstAt));
  }
  if (row.lanczos) {
    const enlarged = await rgbaToPng(await rasterAt(bytes, row.compareWidth, row.compareHeight));
    panels.push(await fitPanel(enlarged, box, ['Lanczos 3 enlargement', figures(row, 'lanczos')], row.lanczos.worstAt));
  }
  return sheet(panels, wide);
}

/** The middle CROP_SHOWN px of a crop. */
function shownPart(crop: Crop): Crop {
  const side = Math.min(CROP_SHOWN, crop.width, crop.height);
  return { ...crop, left: crop.left + Math.floor((crop.width - side) / 2), top: crop.top + Math.floor((crop.height - side) / 2), width: side, height: side };
}

/** A window of a crop in the pixels of the part of it shown, if it lies within. */
function shownMark(at: WindowAt, offset: { left: number; top: number; width: number; height: number }): WindowAt | undefined {
  const x = at.x - offset.left;
  const y = at.y - offset.top;
  if (x < 0 || y < 0 || x + at.width > offset.width || y + at.height > offset.height) return undefined;
  return { x, y, width: at.width, height: at.height };
}

/** 100 % crops of a large image: the detail and smooth tiles (or the centre), original, ours, VTracer at 1.5 MP. */
async function cropSheets(row: ImageRow, svg: string): Promise<{ name: string; png: Buffer }[]> {
  const bytes = readFileSync(row.image.path);
  const sheets: { name: string; png: Buffer }[] = [];
  const crops = row.crops ?? [];
  const shown = crops.filter((crop) => crop.crop.name !== 'centre');
  for (const cropRow of shown.length ? shown : crops) {
    const index = crops.indexOf(cropRow);
    const part = shownPart(cropRow.crop);
    const offset = { left: part.left - cropRow.crop.left, top: part.top - cropRow.crop.top, width: part.width, height: part.height };
    const original = await sharp(bytes, { limitInputPixels: false }).rotate().extract(part).png().toBuffer();
    const ours = await rgbaToPng(svgCrop(svg, row.width, row.height, part));
    const vtracerCrop = readCachedFile(`${vtracerCropsKey(bytes)}-crop${index}.png`);
    const where = `${cropRow.crop.name} tile at ${part.left}, ${part.top}`;
    const panels = [
      await fitPanel(original, CROP_SHOWN, [`original, 100 %`, where]),
      await fitPanel(ours, CROP_SHOWN, ['ours, 100 %', `crop SSIM ${fixed(cropRow.ours.ssim, 3)} · worst ΔE ${cropRow.ours.worstDe.toFixed(1)}`], shownMark(cropRow.ours.worstAt, offset)),
    ];
    if (vtracerCrop) {
      const vtracerPart = await sharp(vtracerCrop).extract(offset).png().toBuffer();
      panels.push(
        await fitPanel(
          vtracerPart,
          CROP_SHOWN,
          ['VTracer of 1.5 MP, 100 %', `crop SSIM ${fixed(cropRow.vtracer.ssim, 3)} · worst ΔE ${cropRow.vtracer.worstDe.toFixed(1)}`],
          shownMark(cropRow.vtracer.worstAt, offset),
        ),
      );
    }
    sheets.push({ name: `${slug(row.image.file)}.crop-${cropRow.crop.name}.png`, png: await sheet(panels, false) });
  }
  return sheets;
}

/**
 * Writes the sheets of every gallery image measured in `rows` (with its SVG kept) and the gallery
 * index. Refuses hold-out images: they are never shown.
 */
export async function writeGallery(rows: ImageRow[], entries: GalleryEntry[]): Promise<{ sheets: number; bytes: number }> {
  rmSync(SHEETS_DIR, { recursive: true, force: true });
  mkdirSync(SHEETS_DIR, { recursive: true });
  const sections: string[] = [];
  let sheets = 0;
  let total = 0;
  const write = (name: string, png: Buffer): string => {
    writeFileSync(join(SHEETS_DIR, name), png);
    sheets++;
    total += png.length;
    return `engine/${name}`;
  };
  for (const set of ['corpus', 'wide'] as const) {
    const inSet = entries.filter((entry) => entry.file.startsWith('wide/') === (set === 'wide'));
    sections.push(`### ${set === 'corpus' ? 'Corpus' : 'wide/ (tune part)'}`, '');
    for (const entry of inSet) {
      const row = rows.find((candidate) => candidate.image.file === entry.file);
      if (row?.image.part === 'holdout') throw new Error(`gallery: ${entry.file} is in the hold-out part and is never shown`);
      if (!row?.svg) {
        sections.push(`#### ${entry.file}`, '', row?.error ? `The engine failed: ${row.error}` : 'Not measured in this run.', '');
        continue;
      }
      const destroyed = Math.abs(row.ours.coverage) > 0.1 ? ` · **coverage ${signedPercent(row.ours.coverage)}**` : '';
      sections.push(
        `#### ${entry.file}`,
        '',
        `${entry.note}. Labelled ${row.image.expected ?? '–'}${row.image.also ? ` (or ${row.image.also})` : ''}; auto chose ${row.chosen}; ${row.timeMs} ms${destroyed}.`,
        '',
        `![${entry.file}: original, ours, VTracer](${write(`${slug(entry.file)}.png`, await wholeSheet(row, row.svg))})`,
        '',
      );
      for (const crop of await cropSheets(row, row.svg)) sections.push(`![${entry.file}: 100 % crop](${write(crop.name, crop.png)})`, '');
    }
  }
  const body = [
    '## What the engine makes of the images it is measured on',
    '',
    `Written by \`npm run bench\` (or \`npm run bench -- --gallery-only\`) on ${new Date().toISOString().slice(0, 10)}, from the images listed in`,
    '[`bench/gallery.tsv`](../../bench/gallery.tsv): the corpus and the tune part of `wide/` (the hold-out part is',
    'never shown). Each sheet shows the images as the bench compares them ([method](../benchmarks.md)):',
    'the original (or, for small icons, the 512 px reference), our SVG rendered with resvg, raw VTracer’s',
    'SVG at its command-line defaults, and, where a larger reference exists, the input enlarged with',
    'Lanczos 3. Small inputs are shown at their comparison size (4×, or the 512 px reference); a panel',
    'smaller than its box is enlarged by whole pixels, a larger one shrunk. Transparency shows as a',
    'checkerboard. Under each: bytes, SSIM and the worst region’s Oklab colour difference (ΔE_ok ×100;',
    'about 2 is just noticeable, above 10 is a visible fault); the red square is that worst window.',
    `Large images also get 100 % crops (the middle ${CROP_SHOWN} px of the bench’s ${CROP_SIDE} px crops) against VTracer’s`,
    'trace of the image shrunk to 1.5 MP.',
    '',
    ...sections,
  ].join('\n');
  writeReportSection('engine', body, INDEX_PATH, '# Gallery\n');
  return { sheets, bytes: total };
}

/** Bytes of every file under docs/gallery/, other folders included. */
export function galleryBytes(dir = GALLERY_DIR): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? galleryBytes(path) : readFileSync(path).length;
  }
  return total;
}
