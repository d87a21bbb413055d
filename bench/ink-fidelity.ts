// Ink images against Potrace at full resolution: for every image `bench/kinds.tsv` expects to be
// `sketch`, the service's SVG (mode auto) and Potrace's (as bench/engine.ts runs it: 50 % grey
// threshold, white paper) rendered at the image's own size and at a long side of 512 px, SSIM as in
// bench/engine.ts (the lower of the scores on white and on black). Also the kind auto chose, the
// fill colours used (issue 10: at most three) and the conversion time (the fastest of three runs).
//
//   npx tsx bench/ink-fidelity.ts                    every sketch image of the corpus
//   npx tsx bench/ink-fidelity.ts document/hale      those whose path contains the text

import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { convertImage } from '../src/engine/convert.ts';
import { DEFAULT_PARAMS } from '../src/engine/params.ts';
import { ssim, toGray } from './ssim.ts';

const run = promisify(execFile);
const CORPUS_DIR = fileURLToPath(new URL('../../shared/corpus/', import.meta.url));
const KINDS = fileURLToPath(new URL('./kinds.tsv', import.meta.url));
const MAX_INPUT_PIXELS = 100_000_000;
const COMPARE_SIDES = [Infinity, 512] as const;

/** SSIM between the original and a rendered SVG at most `maxSide` on the long side, on white and on black; the lower. */
async function fidelity(original: Buffer, svg: string, width: number, height: number, maxSide: number): Promise<number> {
  const compareWidth = Math.max(1, Math.round(width * Math.min(1, maxSide / Math.max(width, height))));
  const scores: number[] = [];
  for (const background of ['#ffffff', '#000000']) {
    const rendered = new Resvg(svg, { fitTo: { mode: 'width', value: compareWidth }, background, font: { loadSystemFonts: false } }).render();
    const reference = await sharp(original, { limitInputPixels: MAX_INPUT_PIXELS })
      .rotate()
      .resize(rendered.width, rendered.height, { fit: 'fill' })
      .flatten({ background })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    scores.push(
      ssim(toGray(reference.data, reference.info.width, reference.info.height, reference.info.channels), toGray(rendered.pixels, rendered.width, rendered.height, 4)),
    );
  }
  return Math.min(...scores);
}

/** Potrace's SVG of the image thresholded at 50 % grey, on a white page, as bench/engine.ts makes it. */
async function potraceSvg(bytes: Buffer): Promise<string> {
  const { data, info } = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .flatten({ background: '#ffffff' })
    .greyscale()
    .threshold(128)
    .raw()
    .toBuffer({ resolveWithObject: true });
  const rowBytes = Math.ceil(info.width / 8);
  const bits = Buffer.alloc(rowBytes * info.height);
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      if ((data[(y * info.width + x) * info.channels] as number) < 128) {
        const index = y * rowBytes + (x >> 3);
        bits[index] = (bits[index] as number) | (0x80 >> (x & 7));
      }
    }
  }
  const pbmPath = join(tmpdir(), `ink-fidelity-${process.pid}.pbm`);
  const svgPath = join(tmpdir(), `ink-fidelity-${process.pid}.svg`);
  writeFileSync(pbmPath, Buffer.concat([Buffer.from(`P4\n${info.width} ${info.height}\n`), bits]));
  await run('potrace', ['-s', '-o', svgPath, pbmPath]);
  return readFileSync(svgPath, 'utf8').replace(/(<svg\b[^>]*>)/, '$1<rect width="100%" height="100%" fill="#ffffff"/>');
}

function inkImages(only: string | undefined): string[] {
  return readFileSync(KINDS, 'utf8')
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => line.split('\t'))
    .filter(([file, kind]) => kind === 'sketch' && file !== undefined && (!only || file.includes(only)))
    .map(([file]) => file as string);
}

async function main(): Promise<void> {
  // As in the service's workers: one libvips thread per conversion.
  sharp.concurrency(1);
  const only = process.argv[2];
  const fixed = (value: number) => value.toFixed(4);
  console.log(['image', 'auto chose', 'ms', 'KB', 'fills', 'SSIM full', 'Potrace full', 'Δ full', 'SSIM ≤512', 'Potrace ≤512', 'Δ ≤512'].join('\t'));
  for (const file of inkImages(only)) {
    const bytes = readFileSync(join(CORPUS_DIR, file));
    const result = await convertImage({ image: bytes, params: DEFAULT_PARAMS }, { maxInputPixels: MAX_INPUT_PIXELS });
    let fastest = result.processingTimeMs;
    for (let attempt = 1; attempt < 3; attempt++) {
      const again = await convertImage({ image: bytes, params: DEFAULT_PARAMS }, { maxInputPixels: MAX_INPUT_PIXELS });
      fastest = Math.min(fastest, again.processingTimeMs);
    }
    const potrace = await potraceSvg(bytes);
    const fills = new Set([...result.svg.matchAll(/fill="(#[0-9a-f]{6})"/g)].map((match) => match[1])).size;
    // One rendering at a time: at full size each holds the image several times over.
    const scores: number[] = [];
    for (const svg of [result.svg, potrace]) for (const side of COMPARE_SIDES) scores.push(await fidelity(bytes, svg, result.width, result.height, side));
    const [oursFull, ours512, theirsFull, theirs512] = scores as [number, number, number, number];
    console.log(
      [file, result.chosen.mode, fastest, (Buffer.byteLength(result.svg) / 1024).toFixed(1), fills, fixed(oursFull), fixed(theirsFull), fixed(oursFull - theirsFull), fixed(ours512), fixed(theirs512), fixed(ours512 - theirs512)].join('\t'),
    );
  }
}

await main();
