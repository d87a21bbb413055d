// Is any changed copy destroyed? Each image of the corpus and of wide/'s tune part, changed the way
// images are changed in the wild (bench/changes.ts: JPEG, halved, on white, darkened, grey, pixels
// repeated, WebP), converted at default params and measured against raw VTracer on the same copy,
// by the engine bench's signs of a destroyed result (bench/targets.ts). Measures on inputs nobody
// tuned on, without touching the hold-out part: changed copies of the hold-out would be the
// hold-out. Copies of 8 MP or more are left out (their 100 % crops would take most of the run).
//
//   npm run bench:robust                      writes its section of docs/benchmarks.md
//   npm run bench:robust -- --only zune       copies of images whose name contains "zune"; nothing written
//   npm run bench:robust -- --change half     one change; nothing written
//   npm run bench:robust -- --more            the harder changes (MORE_CHANGES: on black, blurred,
//                                             quartered, enlarged, JPEG 40, cropped, padded, low
//                                             contrast, over-sharpened); writes their own section

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp, { type Metadata } from 'sharp';
import { CHANGES, labelledImages, MORE_CHANGES, type Change, type Labelled } from './changes.ts';
import { argumentValue } from './corpus.ts';
import { CROP_PIXELS, LARGE_PIXELS } from './crops.ts';
import { fixed, median, tableRow } from './figures.ts';
import { measureImage, type ImageRow, type SetImage } from './images.ts';
import { cacheKey, convertWithService, CACHE_DIR } from './measure.ts';
import { writeReportSection } from './report.ts';
import { destroyedSigns } from './targets.ts';

interface CopyRow {
  change: Change;
  original: Labelled;
  row: ImageRow;
}

const EXTENSIONS: Record<string, string> = { jpeg: 'jpg', png: 'png', webp: 'webp' };

/** The changed copy as a file in the bench cache (measureImage reads a path), or undefined when the change does not apply. */
async function changedCopy(original: Labelled, metadata: Metadata, change: Change): Promise<string | undefined> {
  const { width = 0, height = 0, hasAlpha, channels } = metadata;
  // On white changes nothing on an opaque image, grey nothing on a grey one: not a new copy.
  if ((change.name === 'onwhite' || change.name === 'onblack') && !hasAlpha) return undefined;
  if (change.name === 'grey' && (channels ?? 3) <= 2) return undefined;
  // Pixels repeated 3× are measured on pixel art only: on anything else VTracer traces every
  // repeated pixel as a square (9 MB for the corpus's bird photograph), a mosaic that matches the
  // copy at 512 px and that the engine rightly does not draw (it finds the enlargement and traces
  // the image as it traces the original: same SVG, same score).
  if (change.name === 'nearest3x' && original.kind !== 'pixelart') return undefined;
  const pipeline = change.apply(sharp(original.path), width, height);
  if (!pipeline) return undefined;
  const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
  if (info.width * info.height >= LARGE_PIXELS) return undefined;
  const dir = join(CACHE_DIR, 'robust');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${cacheKey(change.name, data, original.file)}.${EXTENSIONS[info.format] ?? info.format}`);
  writeFileSync(path, data);
  return path;
}

function setImageOf(original: Labelled, change: Change, path: string): SetImage {
  const keeps = change.keeps(original.kind);
  return {
    set: original.part === 'corpus' ? 'corpus' : 'wide',
    part: original.part,
    file: `${original.file}@${change.name}`,
    path,
    manifestKey: original.file,
    // A label the change does not keep is no label: pixel art saved as JPEG is compared smoothly.
    ...(keeps ? { expected: original.kind } : {}),
    ...(keeps && original.also ? { also: original.also } : {}),
  };
}

async function main(): Promise<void> {
  const only = argumentValue('--only');
  const changeName = argumentValue('--change');
  const more = process.argv.includes('--more');
  const pool = more ? MORE_CHANGES : CHANGES;
  const changes = pool.filter((change) => !changeName || change.name === changeName);
  if (!changes.length) throw new Error(`--change ${changeName}: one of ${pool.map((change) => change.name).join(', ')}`);
  const originals = labelledImages().filter((image) => image.part !== 'holdout' && (!only || image.file.includes(only)));
  // Load the engine once so the first copy's time is not module loading.
  await convertWithService(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#808080' } }).png().toBuffer());
  const rows: CopyRow[] = [];
  for (const original of originals) {
    const metadata = await sharp(original.path).metadata();
    for (const change of changes) {
      const path = await changedCopy(original, metadata, change);
      if (!path) continue;
      const row = await measureImage(setImageOf(original, change, path), { baselines: true, potrace: false, keepSvg: false });
      rows.push({ change, original, row });
      const signs = destroyedSigns(row);
      const vtracer = row.vtracer?.comparison.ssim;
      console.log(
        `${change.name.padEnd(9)} ${original.file.padEnd(60)} ${row.chosen.padEnd(16)} ${String(Math.round(row.timeMs)).padStart(6)} ms ssim ${fixed(row.ours.ssim)} vtracer ${fixed(vtracer)}` +
          (signs.length ? `  DESTROYED: ${signs.join('; ')}` : ''),
      );
    }
  }
  const destroyed = rows.filter(({ row }) => destroyedSigns(row).length);
  console.log(`\n${destroyed.length} of ${rows.length} changed copies destroyed`);
  if (only || changeName) return;
  const perChange = changes.map((change) => {
    const of = rows.filter((entry) => entry.change === change);
    const margins = of.flatMap(({ row }) => (row.vtracer ? [row.ours.ssim - row.vtracer.comparison.ssim] : []));
    return tableRow([
      `${change.name}: ${change.what}`,
      of.length,
      of.filter(({ row }) => destroyedSigns(row).length).length,
      fixed(median(of.map(({ row }) => row.ours.ssim))),
      fixed(median(of.flatMap(({ row }) => (row.vtracer ? [row.vtracer.comparison.ssim] : [])))),
      fixed(Math.min(...margins)),
      Math.round(median(of.map(({ row }) => row.timeMs))),
    ]);
  });
  writeReportSection(
    more ? 'robustmore' : 'robust',
    [
      ...(more
        ? [
            '## Harder changes: is any destroyed (npm run bench:robust -- --more)',
            '',
            'The images of 2 MP or less of the corpus and of the wide/ tune part, with harder changes than bench:kinds’s',
            '(bench/changes.ts, MORE_CHANGES): flattened on black (where the image has transparency), blurred, quartered,',
            'enlarged 2×, saved as JPEG 40, cropped to its centre, set in a white margin, its contrast halved, over-sharpened.',
            'A blurred copy of ink is compared with its blur, which the ink path draws crisp, as a',
            'person wants it: SSIM counts the crisp strokes against it, so a destroyed blurred ink copy may be the right drawing.',
          ]
        : [
            '## Changed copies: is any destroyed (npm run bench:robust)',
            '',
            'Every image of the corpus and of the wide/ tune part, changed as images are changed in the wild (the changes of',
            'bench:kinds; on white only where the image has transparency, grey only where it has colour, pixels repeated only on',
            'pixel art: elsewhere VTracer traces the copy as a mosaic of its repeated pixels).',
          ]),
      'Each copy is converted at default',
      'params and measured like the engine bench against raw VTracer on the same copy: destroyed when the conversion fails,',
      'coverage changes by more than 10 % of the image, SSIM is more than 0.03 below VTracer (at 1×, or 4× for inputs of',
      `128 px or less), or, for copies of ${CROP_PIXELS / 1e6} MP or more, a 100 % crop is more than 0.05 below VTracer's trace of the copy shrunk`,
      'to 1.5 MP. Copies of 8 MP or more are left out; the hold-out part is never changed (its copies would be the hold-out).',
      '',
      '| change | copies | destroyed | median SSIM | VTracer | worst margin to VTracer | median ms |',
      '|---|---|---|---|---|---|---|',
      ...perChange,
      tableRow([
        '**all changes**',
        rows.length,
        destroyed.length,
        fixed(median(rows.map(({ row }) => row.ours.ssim))),
        fixed(median(rows.flatMap(({ row }) => (row.vtracer ? [row.vtracer.comparison.ssim] : [])))),
        '',
        Math.round(median(rows.map(({ row }) => row.timeMs))),
      ]),
      '',
      destroyed.length
        ? `Destroyed copies:\n\n${destroyed.map(({ change, original, row }) => `- ${original.file} ${change.name} (${original.kind} → ${row.chosen}): ${destroyedSigns(row).join('; ')}`).join('\n')}`
        : 'No changed copy destroyed.',
    ].join('\n'),
  );
}

await main();
