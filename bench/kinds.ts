// `mode: auto` on images changed the way images are changed in the wild: each labelled image of
// the corpus and of wide/ saved as JPEG, halved, flattened on white, darkened, made grey, enlarged
// 3× by repeating pixels, saved as WebP, where the change keeps its label (a photo darkened is
// still a photo; pixel art saved as JPEG is no longer pixel art). Counts the changed images whose
// kind, or the kind the classifier is in doubt about (which the self-check also traces), is the
// label. Classification only: no tracing, so it runs in a minute or two.
//
//   npm run bench:kinds                    writes its section of docs/benchmarks.md
//   npm run bench:kinds -- --reveal-holdout  also names hold-out misses on the console (never in docs)

import { join } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { classifyImage, doubtfulAlternative, type ImageKind } from '../src/engine/analyse/classify.ts';
import { firstDecodePixelsOf, statisticsOf } from '../src/engine/convert.ts';
import { decodeImage } from '../src/engine/analyse/decode.ts';
import { readKindsManifest, SHARED_CORPUS_DIR, type ImageKindName } from './corpus.ts';
import { writeReportSection } from './report.ts';
import { readWideKinds, readWideSplit, WIDE_DIR, type WidePart } from './wide.ts';

type Part = 'corpus' | WidePart;

interface Labelled {
  file: string;
  path: string;
  part: Part;
  kind: ImageKindName;
  also?: ImageKindName;
}

interface Change {
  name: string;
  what: string;
  /** Whether the change keeps an image of this kind its kind. */
  keeps: (kind: ImageKindName) => boolean;
  apply: (image: Sharp, width: number, height: number) => Sharp | undefined;
}

/** Images larger than this are left out (decoding them per change would take most of the run). */
const MAX_PIXELS = 30_000_000;

const CHANGES: Change[] = [
  { name: 'jpeg70', what: 'flattened on white, JPEG quality 70', keeps: (kind) => kind !== 'pixelart', apply: (image) => image.flatten({ background: '#ffffff' }).jpeg({ quality: 70 }) },
  {
    name: 'half',
    what: 'halved (Lanczos), images of 64 px or more',
    keeps: (kind) => kind !== 'pixelart',
    apply: (image, width, height) => (Math.max(width, height) < 64 ? undefined : image.resize(Math.max(1, Math.round(width / 2))).png()),
  },
  { name: 'onwhite', what: 'flattened on white, PNG', keeps: () => true, apply: (image) => image.flatten({ background: '#ffffff' }).png() },
  { name: 'dark', what: 'flattened on white, levels × 0.6 − 30, JPEG quality 85', keeps: (kind) => kind === 'photo', apply: (image) => image.flatten({ background: '#ffffff' }).linear(0.6, -30).jpeg({ quality: 85 }) },
  { name: 'grey', what: 'greyscale, PNG', keeps: (kind) => kind === 'photo' || kind === 'sketch', apply: (image) => image.greyscale().png() },
  {
    name: 'nearest3x',
    what: 'enlarged 3× by repeating pixels, PNG',
    keeps: (kind) => kind === 'pixelart',
    apply: (image, width, height) => (width * height * 9 > MAX_PIXELS ? undefined : image.resize(width * 3, height * 3, { kernel: 'nearest' }).png()),
  },
  { name: 'webp80', what: 'WebP quality 80', keeps: (kind) => kind !== 'pixelart', apply: (image) => image.webp({ quality: 80 }) },
];

function labelledImages(): Labelled[] {
  const images: Labelled[] = [];
  for (const entry of readKindsManifest(SHARED_CORPUS_DIR).entries.values()) {
    images.push({ file: entry.file, path: join(SHARED_CORPUS_DIR, entry.file), part: 'corpus', kind: entry.kind });
  }
  const wide = readWideKinds();
  const split = readWideSplit(wide);
  for (const entry of wide) {
    const part = split.part.get(entry.file) as WidePart;
    images.push({ file: `wide/${entry.file}`, path: join(WIDE_DIR, entry.file), part, kind: entry.kind, ...(entry.also ? { also: entry.also } : {}) });
  }
  return images;
}

/** The kind auto picks, and the one it is in doubt about, as convertImage decides them. */
async function kindsOf(bytes: Buffer): Promise<ImageKind[]> {
  const decoded = await decodeImage(bytes, { maxInputPixels: MAX_PIXELS * 9, maxWorkingPixels: firstDecodePixelsOf(bytes) });
  const stats = await statisticsOf(decoded);
  const kind = classifyImage(stats, decoded);
  const doubt = doubtfulAlternative(kind, stats, decoded);
  return doubt ? [kind, doubt] : [kind];
}

async function main(): Promise<void> {
  const reveal = process.argv.includes('--reveal-holdout');
  const parts: Part[] = ['corpus', 'tune', 'holdout'];
  const counts = new Map<string, { right: number; total: number }>();
  const count = (part: Part, change: string, right: boolean) => {
    for (const key of [`${part}:${change}`, `${part}:all`]) {
      const entry = counts.get(key) ?? { right: 0, total: 0 };
      entry.total++;
      if (right) entry.right++;
      counts.set(key, entry);
    }
  };
  const misses: string[] = [];
  for (const image of labelledImages()) {
    const { width = 0, height = 0 } = await sharp(image.path).metadata();
    if (width * height > MAX_PIXELS) continue;
    for (const change of CHANGES) {
      if (!change.keeps(image.kind)) continue;
      const pipeline = change.apply(sharp(image.path), width, height);
      if (!pipeline) continue;
      const kinds = await kindsOf(await pipeline.toBuffer());
      const right = kinds.includes(image.kind) || (image.also !== undefined && kinds.includes(image.also));
      count(image.part, change.name, right);
      if (right) continue;
      const line = `${change.name.padEnd(10)} ${image.file} (${image.part}): ${image.kind}${image.also ? `/${image.also}` : ''} → ${kinds.join(', in doubt ')}`;
      if (image.part !== 'holdout') misses.push(line);
      if (image.part !== 'holdout' || reveal) console.log(line);
    }
  }
  const cell = (part: Part, change: string) => {
    const entry = counts.get(`${part}:${change}`);
    return entry ? `${entry.right} of ${entry.total}` : '–';
  };
  const rows = [...CHANGES.map((change) => [`${change.name}: ${change.what}`, change.name]), ['**all changes**', 'all']].map(
    ([label, name]) => `| ${label} | ${parts.map((part) => cell(part, name as string)).join(' | ')} |`,
  );
  for (const part of parts) console.log(`${part}: ${cell(part, 'all')} changed images as labelled`);
  writeReportSection(
    'kinds',
    [
      '## `auto` on changed images (npm run bench:kinds)',
      '',
      'Each labelled image of the corpus and of wide/, changed as images are changed in the wild, where the change keeps',
      'its label (a photo darkened is still a photo; pixel art saved as JPEG is no longer pixel art). Counted as labelled',
      'when the kind `auto` picks, or the kind it is in doubt about and also traces, is the label (or `also`). Classification',
      `only; images over ${MAX_PIXELS / 1e6} MP are left out. The hold-out part is reported in aggregate.`,
      '',
      `| change | corpus | wide/ tune | wide/ hold-out |`,
      '|---|---|---|---|',
      ...rows,
      '',
      misses.length ? `Misses on the corpus and the tune part:\n\n${misses.map((line) => `- \`${line}\``).join('\n')}` : 'No miss on the corpus or the tune part.',
    ].join('\n'),
  );
}

await main();
