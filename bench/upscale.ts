// Resolution independence: a small raster traced and shown at the size of a known larger original.
// Three sets, each measured against the same reference by the service's SVG, VTracer's SVG of the
// same small input (both rendered by resvg at the reference size) and a Lanczos enlargement:
//   shrunk — corpus images that are neither photos nor pixel art (bench/kinds.tsv), shrunk 4×;
//   emoji  — upscale/emoji32 as the input, upscale/emoji512 as the reference;
//   icons  — upscale/icons-svg rendered by resvg at 128 px (input) and at 512 px (reference).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { countGradientFills } from './svg-paint.ts';
import {
  cached,
  cacheKey,
  compareSize,
  convertWithService,
  MAX_INPUT_PIXELS,
  Reference,
  svgToPng,
  traceWithVtracer,
} from './measure.ts';
import { fixed, kb, median, tableRow, type Target } from './figures.ts';
import { listFolder, type CorpusImage, type KindEntry } from './corpus.ts';

/** Corpus images are shrunk by this factor to make the small input. */
export const SHRINK_FACTOR = 4;
/** References are the original at no more than this long side. */
export const REFERENCE_MAX_SIDE = 1536;
/**
 * A shrunk input smaller than this on its long side is left out: 4× below a 32 px icon is an
 * 8 px image, which no one vectorizes, and SSIM on a 32 px reference says little.
 */
export const MIN_SHRUNK_INPUT_SIDE = 16;
const ICON_INPUT_SIZE = 128;
const ICON_REFERENCE_SIZE = 512;

export type UpscaleSet = 'shrunk' | 'emoji' | 'icons';

/** A corpus image left out of the shrunk set, and why. */
export interface SkippedCase {
  skipped: string;
}

interface UpscaleCase {
  set: UpscaleSet;
  /** The image as the report names it (path relative to the corpus). */
  name: string;
  /** The corpus file the input is, unchanged (emoji32), for the kinds check. */
  inputFile?: string;
  input: Buffer;
  reference: Buffer;
  width: number;
  height: number;
}

export interface UpscaleRow {
  set: UpscaleSet;
  name: string;
  inputFile?: string;
  inputWidth: number;
  inputHeight: number;
  width: number;
  height: number;
  chosenMode: string;
  chosen: string;
  ours: { ssim: number; bytes: number; gradients: number; timeMs: number };
  vtracer: { ssim: number; bytes: number };
  lanczos: { ssim: number };
}

/**
 * Box filter: each output pixel is the mean of a factor×factor block, in premultiplied alpha, as
 * coverage anti-aliasing draws artwork at a smaller size. Width and height are multiples of factor.
 */
function boxShrink(rgba: Buffer, width: number, height: number, factor: number): Buffer {
  const outWidth = width / factor;
  const outHeight = height / factor;
  const out = Buffer.alloc(outWidth * outHeight * 4);
  for (let oy = 0; oy < outHeight; oy++) {
    for (let ox = 0; ox < outWidth; ox++) {
      let alpha = 0;
      let red = 0;
      let green = 0;
      let blue = 0;
      for (let y = oy * factor; y < (oy + 1) * factor; y++) {
        for (let x = ox * factor; x < (ox + 1) * factor; x++) {
          const i = (y * width + x) * 4;
          const a = rgba[i + 3] as number;
          alpha += a;
          red += (rgba[i] as number) * a;
          green += (rgba[i + 1] as number) * a;
          blue += (rgba[i + 2] as number) * a;
        }
      }
      const o = (oy * outWidth + ox) * 4;
      if (alpha > 0) {
        out[o] = Math.round(red / alpha);
        out[o + 1] = Math.round(green / alpha);
        out[o + 2] = Math.round(blue / alpha);
      }
      out[o + 3] = Math.round(alpha / (factor * factor));
    }
  }
  return out;
}

const rawToPng = (pixels: Buffer, width: number, height: number): Promise<Buffer> =>
  sharp(pixels, { raw: { width, height, channels: 4 } }).png().toBuffer();

/**
 * The reference is the original fitted to REFERENCE_MAX_SIDE (Lanczos 3) and cropped by at most
 * three pixels on the right and bottom to a multiple of the factor; the input is its box-filtered shrink.
 */
async function shrunkCase(file: string, bytes: Buffer): Promise<UpscaleCase | SkippedCase> {
  const metadata = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS }).rotate().metadata();
  const upright = (metadata.orientation ?? 1) >= 5;
  const fitted = compareSize(
    (upright ? metadata.height : metadata.width) as number,
    (upright ? metadata.width : metadata.height) as number,
    REFERENCE_MAX_SIDE,
  );
  const width = Math.max(SHRINK_FACTOR, fitted.width - (fitted.width % SHRINK_FACTOR));
  const height = Math.max(SHRINK_FACTOR, fitted.height - (fitted.height % SHRINK_FACTOR));
  if (Math.max(width, height) / SHRINK_FACTOR < MIN_SHRUNK_INPUT_SIDE) {
    return { skipped: `${file} (${width / SHRINK_FACTOR}×${height / SHRINK_FACTOR} px shrunk)` };
  }
  const { data } = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .resize(Math.max(width, fitted.width), Math.max(height, fitted.height), { fit: 'fill' })
    .extract({ left: 0, top: 0, width, height })
    .toColourspace('srgb')
    .ensureAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  const small = boxShrink(data, width, height, SHRINK_FACTOR);
  return {
    set: 'shrunk',
    name: file,
    input: await rawToPng(small, width / SHRINK_FACTOR, height / SHRINK_FACTOR),
    reference: await rawToPng(data, width, height),
    width,
    height,
  };
}

async function pngCase(set: UpscaleSet, name: string, input: Buffer, reference: Buffer, inputFile?: string): Promise<UpscaleCase> {
  const { width = 0, height = 0 } = await sharp(reference).metadata();
  return { set, name, inputFile, input, reference, width, height };
}

/** The cases of all three sets found under `dir`, filtered by `only` (a substring of the name). */
export async function* upscaleCases(
  dir: string,
  corpus: CorpusImage[],
  kinds: Map<string, KindEntry>,
  only?: string,
): AsyncGenerator<UpscaleCase | SkippedCase> {
  const wanted = (name: string): boolean => !only || name.includes(only);
  for (const { file } of corpus) {
    const kind = kinds.get(file)?.kind;
    if (!kind || kind === 'photo' || kind === 'pixelart' || !wanted(file)) continue;
    yield shrunkCase(file, readFileSync(join(dir, file)));
  }
  for (const inputFile of listFolder('upscale/emoji32', /\.png$/i, dir)) {
    const referenceFile = inputFile.replace('/emoji32/', '/emoji512/');
    if (!wanted(inputFile) || !existsSync(join(dir, referenceFile))) continue;
    yield pngCase('emoji', inputFile, readFileSync(join(dir, inputFile)), readFileSync(join(dir, referenceFile)), inputFile);
  }
  for (const file of listFolder('upscale/icons-svg', /\.svg$/i, dir)) {
    if (!wanted(file)) continue;
    const svg = readFileSync(join(dir, file), 'utf8');
    yield pngCase('icons', file, svgToPng(svg, ICON_INPUT_SIZE), svgToPng(svg, ICON_REFERENCE_SIZE));
  }
}

export async function measureUpscaleCase(upscale: UpscaleCase): Promise<UpscaleRow> {
  const reference = new Reference(upscale.reference, upscale.width, upscale.height);
  const result = await convertWithService(upscale.input);
  const ours = {
    ssim: await reference.fidelity({ svg: result.svg }),
    bytes: Buffer.byteLength(result.svg),
    gradients: countGradientFills(result.svg),
    timeMs: result.processingTimeMs,
  };
  // Baselines depend only on the input and the reference, both made afresh each run.
  const pair = Buffer.concat([upscale.input, upscale.reference]);
  const vtracer = await cached(cacheKey('vtracer-upscale', pair, JSON.stringify(upscale.set)), async () => {
    const { svg } = await traceWithVtracer(upscale.input);
    return { ssim: await reference.fidelity({ svg }), bytes: Buffer.byteLength(svg) };
  });
  const lanczos = await cached(cacheKey('lanczos-upscale', pair, 'lanczos3'), async () => ({
    ssim: await reference.fidelity({ raster: upscale.input }),
  }));
  return {
    set: upscale.set,
    name: upscale.name,
    inputFile: upscale.inputFile,
    inputWidth: result.width,
    inputHeight: result.height,
    width: upscale.width,
    height: upscale.height,
    chosenMode: result.chosen.mode,
    chosen: `${result.chosen.mode}/${result.chosen.curveMode}`,
    ours,
    vtracer,
    lanczos,
  };
}

export function printUpscaleRow(row: UpscaleRow): void {
  console.log(
    [
      `${row.set} ${row.name}`.padEnd(60),
      row.chosen.padEnd(16),
      `${row.inputWidth}→${row.width} px`.padEnd(14),
      `ssim ${fixed(row.ours.ssim)}`,
      `${kb(row.ours.bytes).padStart(7)} KB`,
      `gradients ${row.ours.gradients}`,
      `| vtracer ssim ${fixed(row.vtracer.ssim)} ${kb(row.vtracer.bytes).padStart(7)} KB`,
      `| lanczos ssim ${fixed(row.lanczos.ssim)}`,
    ].join(' '),
  );
}

/** Emoji must beat a Lanczos enlargement by this much SSIM. */
const EMOJI_MARGIN = 0.02;

const namesOf = (rows: UpscaleRow[]): string => rows.map((row) => row.name.split('/').pop()).join(', ');

export function upscaleTargets(rows: UpscaleRow[]): Target[] {
  const targets: Target[] = [];
  const shrunk = rows.filter((row) => row.set === 'shrunk');
  if (shrunk.length > 0) {
    const ours = median(shrunk.map((row) => row.ours.ssim));
    const lanczos = median(shrunk.map((row) => row.lanczos.ssim));
    const belowVtracer = shrunk.filter((row) => row.ours.ssim < row.vtracer.ssim);
    targets.push(
      {
        name: `shrunk ${SHRINK_FACTOR}×: median SSIM ≥ Lanczos median`,
        figures: `${fixed(ours)} vs ${fixed(lanczos)} (${shrunk.length} images)`,
        met: ours >= lanczos,
      },
      {
        name: `shrunk ${SHRINK_FACTOR}×: no image below VTracer’s SSIM`,
        figures: belowVtracer.length ? `${belowVtracer.length} below: ${namesOf(belowVtracer)}` : 'none below',
        met: belowVtracer.length === 0,
      },
    );
  }
  const emoji = rows.filter((row) => row.set === 'emoji');
  if (emoji.length > 0) {
    const ours = median(emoji.map((row) => row.ours.ssim));
    const lanczos = median(emoji.map((row) => row.lanczos.ssim));
    const short = emoji.filter((row) => row.ours.ssim < row.lanczos.ssim + EMOJI_MARGIN);
    const pixelArt = emoji.filter((row) => row.chosenMode === 'pixelart');
    targets.push(
      {
        name: `emoji pairs: median SSIM ≥ Lanczos median + ${EMOJI_MARGIN}`,
        figures: `${fixed(ours)} vs ${fixed(lanczos)} + ${EMOJI_MARGIN}; per image ${emoji.length - short.length} of ${emoji.length} met${short.length ? ` (short: ${namesOf(short)})` : ''}`,
        met: ours >= lanczos + EMOJI_MARGIN,
      },
      {
        name: 'emoji pairs: none traced as pixel art',
        figures: pixelArt.length ? `${pixelArt.length} of ${emoji.length} as pixel art: ${namesOf(pixelArt)}` : `none of ${emoji.length}`,
        met: pixelArt.length === 0,
      },
    );
  }
  const icons = rows.filter((row) => row.set === 'icons');
  if (icons.length > 0) {
    const withGradients = icons.filter((row) => row.ours.gradients > 0).length;
    const ours = median(icons.map((row) => row.ours.ssim));
    const lanczos = median(icons.map((row) => row.lanczos.ssim));
    const belowLanczos = icons.filter((row) => row.ours.ssim < row.lanczos.ssim);
    const oursBytes = median(icons.map((row) => row.ours.bytes));
    const vtracerBytes = median(icons.map((row) => row.vtracer.bytes));
    targets.push(
      {
        name: 'gradient icons: gradient fills in most of them',
        figures: `${withGradients} of ${icons.length}`,
        met: withGradients > icons.length / 2,
      },
      {
        name: 'gradient icons: median SSIM ≥ Lanczos median',
        figures: `${fixed(ours)} vs ${fixed(lanczos)}; per image ${icons.length - belowLanczos.length} of ${icons.length} met`,
        met: ours >= lanczos,
      },
      {
        name: 'gradient icons: median bytes ≤ half of VTracer’s',
        figures: `${kb(oursBytes)} KB vs ${kb(vtracerBytes)} KB (ratio ${(oursBytes / vtracerBytes).toFixed(3)})`,
        met: oursBytes <= vtracerBytes / 2,
      },
    );
  }
  return targets;
}

const SET_TITLES: Record<UpscaleSet, string> = {
  shrunk: `Corpus images shrunk ${SHRINK_FACTOR}× (neither photo nor pixel art in bench/kinds.tsv)`,
  emoji: 'Emoji pairs (upscale/emoji32 → upscale/emoji512)',
  icons: `Gradient icons (upscale/icons-svg at ${ICON_INPUT_SIZE} px → ${ICON_REFERENCE_SIZE} px)`,
};

/** One table a set, headed at `level`: per image, then the medians; `skipped` follows the shrunk set's. */
export function upscaleTables(rows: UpscaleRow[], level: string, skipped: string[]): string[] {
  const lines: string[] = [];
  for (const set of ['shrunk', 'emoji', 'icons'] as const) {
    const inSet = rows.filter((row) => row.set === set);
    if (inSet.length === 0) continue;
    const margin = set === 'emoji' ? EMOJI_MARGIN : 0;
    const versus = set === 'emoji' ? `≥ Lanczos + ${EMOJI_MARGIN}` : set === 'icons' ? '≥ Lanczos' : '≥ VTracer';
    const meets = (row: UpscaleRow): boolean =>
      set === 'shrunk' ? row.ours.ssim >= row.vtracer.ssim : row.ours.ssim >= row.lanczos.ssim + margin;
    const medianOf = (pick: (row: UpscaleRow) => number): number => median(inSet.map(pick));
    lines.push(
      `${level} ${SET_TITLES[set]}`,
      '',
      `| image | input → reference px | auto chose | SSIM | VTracer SSIM | Lanczos SSIM | ${versus} | KB | VTracer KB | gradient fills |`,
      '|---|---|---|---|---|---|---|---|---|---|',
      ...inSet.map((row) =>
        tableRow([
          row.name,
          `${row.inputWidth}×${row.inputHeight} → ${row.width}×${row.height}`,
          row.chosen,
          fixed(row.ours.ssim),
          fixed(row.vtracer.ssim),
          fixed(row.lanczos.ssim),
          meets(row) ? 'yes' : '**no**',
          kb(row.ours.bytes),
          kb(row.vtracer.bytes),
          row.ours.gradients,
        ]),
      ),
      tableRow([
        '**median**',
        '',
        '',
        fixed(medianOf((row) => row.ours.ssim)),
        fixed(medianOf((row) => row.vtracer.ssim)),
        fixed(medianOf((row) => row.lanczos.ssim)),
        '',
        kb(medianOf((row) => row.ours.bytes)),
        kb(medianOf((row) => row.vtracer.bytes)),
        '',
      ]),
      '',
    );
    if (set === 'shrunk' && skipped.length) lines.push(`Left out as too small: ${skipped.join(', ')}.`, '');
  }
  return lines;
}

export const UPSCALE_METHOD = [
  `Inputs and references: each corpus image that bench/kinds.tsv calls neither photo nor pixel art is`,
  `fitted to at most ${REFERENCE_MAX_SIDE} px on its long side (Lanczos 3, only where larger) and cropped by at most three`,
  `pixels on the right and bottom to a multiple of ${SHRINK_FACTOR}: that is the reference. The input is the reference shrunk`,
  `${SHRINK_FACTOR}× with a box filter (each pixel the mean of a ${SHRINK_FACTOR}×${SHRINK_FACTOR} block in premultiplied alpha, as coverage`,
  `anti-aliasing draws artwork small); images whose input would be under ${MIN_SHRUNK_INPUT_SIDE} px on its long side are left`,
  'out (named below its table). The emoji pairs are the 32 px and 512 px PNGs of the same emoji;',
  `the gradient icons are SVGs rendered by resvg at ${ICON_INPUT_SIZE} px (input) and ${ICON_REFERENCE_SIZE} px (reference). Each input is`,
  'converted by `convertImage` at the default params and by VTracer at its command-line defaults; both',
  'SVGs are rendered by resvg at the reference size, and the input is also enlarged to it with Lanczos 3',
  '(sharp). SSIM is taken at the reference size, on white and on black, and the lower one reported.',
  '"Gradient fills" counts the `<linearGradient>`/`<radialGradient>` elements a fill references.',
];
