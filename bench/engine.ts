// Engine benchmark: every image of the corpus (../shared/corpus) and of the wide set
// (../shared/corpus/wide, split into a tune and a hold-out part by bench/wide-split.tsv) converted
// by the service's convertImage at default params, against raw VTracer at its command-line
// defaults, Potrace on ink and a Lanczos enlargement where a larger reference exists; measured by
// SSIM, the worst region's Oklab difference and opaque coverage (bench/compare.ts), large images
// also at 100 % (bench/crops.ts); the corpus's ink, resolution-independence and inputEnhance
// sections as before. Prints the targets met or not, writes docs/benchmarks.md and the gallery.
//
//   npm run bench                          both sets; writes docs/benchmarks.md and docs/gallery/
//   npm run bench -- --set corpus          one set (corpus, wide, tune or holdout); nothing written
//   npm run bench -- --only fox            images whose name contains "fox" (corpus and tune part)
//   npm run bench -- --set tune --only small/   combinable
//   npm run bench -- --gallery-only        only the gallery's images; rewrites docs/gallery/
//   npm run bench -- --ours-only           no baselines (and no targets): the engine's figures alone,
//                                          each part's times and the hold-out part's kinds in aggregate
//   npm run bench -- --save PATH           also saves each image's figures (bench/changed.ts)
//   npm run bench -- --against PATH        what changed since a saved run: the corpus and the tune
//                                          part image by image, the hold-out part in aggregate
//   npm run bench -- --reveal-holdout      also names hold-out images on the console (never in docs):
//                                          for the final check from outside, not while tuning
//   npm run bench -- --dir PATH            a held-out set laid out like the corpus (bash
//                                          bench/heldout-set.sh PATH); written to its own section
//
// Baselines are cached in bench/.cache (or BENCH_CACHE_DIR), keyed by file and configuration; the
// first run traces every image with VTracer at full resolution, which takes long on large photos.

import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import sharp from 'sharp';
import { argumentValue, CORPUS_DIR, HELD_OUT_DIR, listCorpus, readKindsManifest } from './corpus.ts';
import { holdoutKinds, method, printImageRow, printRobustness, printSummary, resultSections, timeLine, type EnhanceRow, type Results, type SplitCounts } from './engine-report.ts';
import { galleryBytes, GALLERY_DIR, readGalleryList, writeGallery } from './gallery.ts';
import { COMPARE_MAX_SIDE, corpusImages, corpusManifestGaps, measureImage, wideImages, type ImageRow, type SetImage } from './images.ts';
import { inkTargets, measureInk, printInkRow, type InkRow } from './ink.ts';
import { changeLines, saveRows } from './changed.ts';
import { compareSize, convertWithService, potraceAvailable, Reference, workerConverter } from './measure.ts';
import { printTargets, type Target } from './figures.ts';
import { REPORT_PATH, writeReportSection, writeReportTop } from './report.ts';
import { corpusTargets, robustnessTargets, rowsOf, timeFigures, timeTargets, type Scope, type TimeFigures } from './targets.ts';
import { measureUpscaleCase, printUpscaleRow, upscaleCases, upscaleTargets, type UpscaleRow } from './upscale.ts';
import { readWideKinds, readWideSplit } from './wide.ts';

const SETS = ['corpus', 'wide', 'tune', 'holdout'] as const;
type SetChoice = (typeof SETS)[number];

/** Categories on which inputEnhance is measured: noisy photographs and scans. */
const ENHANCE_CATEGORIES = new Set(['photo', 'document']);

interface Options {
  set?: SetChoice;
  only?: string;
  galleryOnly: boolean;
  baselines: boolean;
  revealHoldout: boolean;
  save?: string;
  against?: string;
}

function readOptions(): Options {
  const set = argumentValue('--set');
  if (set !== undefined && !(SETS as readonly string[]).includes(set)) throw new Error(`--set ${set}: one of ${SETS.join(', ')}`);
  return {
    set: set as SetChoice | undefined,
    only: argumentValue('--only'),
    galleryOnly: process.argv.includes('--gallery-only'),
    baselines: !process.argv.includes('--ours-only'),
    revealHoldout: process.argv.includes('--reveal-holdout'),
    save: argumentValue('--save'),
    against: argumentValue('--against'),
  };
}

/** The images a run measures, in order: the corpus, then wide/ (tune part first). */
function selectImages(options: Options, gallery: Set<string>): SetImage[] {
  const corpus = options.set === undefined || options.set === 'corpus' ? corpusImages(CORPUS_DIR) : [];
  const wide = HELD_OUT_DIR || options.set === 'corpus' ? [] : wideImages().sort((a, b) => (a.part === b.part ? 0 : a.part === 'tune' ? -1 : 1));
  return [...corpus, ...wide].filter((image) => {
    if (options.set === 'tune' || options.set === 'holdout') {
      if (image.part !== options.set) return false;
    }
    if (options.galleryOnly && !gallery.has(image.file)) return false;
    if (options.only) {
      // A hold-out image is never picked by name while tuning: --only reaches the corpus and the tune part.
      if (image.part === 'holdout' && !options.revealHoldout) return false;
      return image.file.includes(options.only);
    }
    return true;
  });
}

function splitCounts(): SplitCounts {
  const split = readWideSplit(readWideKinds());
  const count = (part: 'tune' | 'holdout'): [number, number] => {
    const files = [...split.part].filter(([, side]) => side === part).map(([file]) => file);
    return [files.length, new Set(files.map((file) => split.source.get(file))).size];
  };
  const [tune, tuneSources] = count('tune');
  const [holdout, holdoutSources] = count('holdout');
  return { tune, tuneSources, holdout, holdoutSources };
}

function report(results: Results, load: number[], minutes: number): string {
  const cpu = cpus();
  return [
    '# Engine benchmark',
    '',
    `Generated by \`npm run bench\` (bench/engine.ts) on ${new Date().toISOString().slice(0, 10)}; the run took ${minutes.toFixed(1)} min.`,
    `Machine: ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} cores; Node ${process.version}; one conversion at a time, in one worker process of the engine pool (libvips on one thread), as the service converts.`,
    `Load average when the run started: ${load.map((value) => value.toFixed(2)).join(', ')} (1, 5, 15 min) — other work shared the machine, so times are upper bounds.`,
    '',
    'Contact sheets of about two dozen of these images (original, ours, raw VTracer, 100 % crops of large',
    'images) are in [docs/gallery/](gallery/README.md).',
    '',
    ...method(splitCounts()),
    '',
    ...resultSections(results),
  ].join('\n');
}

/** The results on a held-out set laid out like the corpus, between the `heldout` markers. */
function writeHeldOutSection(results: Results): void {
  const { rows } = results;
  const categories = [...new Set(rows.map((row) => row.image.file.split('/')[0] as string))].sort();
  const section = [
    '## Held-out images (`npm run bench -- --dir PATH`)',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)} on ${rows.length} images that are not in the corpus, assembled by`,
    '`bench/heldout-set.sh` from files on this machine and from Debian packages (the script names each',
    'file’s package and licence): ' + categories.map((c) => `${c} ${rows.filter((r) => r.image.file.startsWith(`${c}/`)).length}`).join(', ') + '.',
    'Same method and targets as the corpus above.',
    '',
    ...resultSections(results).map((line) => (line.startsWith('#') ? `#${line}` : line)),
  ].join('\n');
  writeReportSection('heldout', section);
  console.log(`wrote the held-out section of ${REPORT_PATH}`);
}

async function main(): Promise<void> {
  const started = performance.now();
  // As in the service's worker processes: one libvips thread per conversion.
  sharp.concurrency(1);
  const options = readOptions();
  const load = loadavg();
  const potraceInstalled = options.baselines && (await potraceAvailable());
  const galleryList = readGalleryList();
  const galleryFiles = new Set(galleryList.map((entry) => entry.file));
  const images = selectImages(options, galleryFiles);
  const fullRun = !options.set && !options.only && !options.galleryOnly && options.baselines;
  const corpusRun = !options.galleryOnly && (options.set === undefined || options.set === 'corpus');

  // Images are converted as the service converts them, in a worker process of the engine pool
  // that warms up as its workers do (runtime/warm-up.ts); this process only measures.
  const converter = workerConverter();
  const rows: ImageRow[] = [];
  const inkRows: InkRow[] = [];
  const enhanceRows: EnhanceRow[] = [];
  let holdoutCount = 0;
  try {
    for (const image of images) {
      const keepSvg = galleryFiles.has(image.file) || (image.set === 'corpus' && image.expected === 'sketch' && corpusRun);
      const row = await measureImage(image, { baselines: options.baselines, potrace: potraceInstalled, keepSvg, convert: converter.convert });
      rows.push(row);
      const hidden = image.part === 'holdout' && !options.revealHoldout;
      printImageRow(row, hidden ? ++holdoutCount : null);
      if (corpusRun && image.set === 'corpus' && row.svg && image.expected === 'sketch') {
        const ink = await measureInk(image.file, readFileSync(image.path), { svg: row.svg, width: row.width, height: row.height, chosen: row.chosen }, {
          potrace: potraceInstalled,
          vtracer: options.baselines,
        });
        inkRows.push(ink);
        printInkRow(ink);
      }
      if (corpusRun && fullRun && image.set === 'corpus' && ENHANCE_CATEGORIES.has(image.file.split('/')[0] ?? '') && !HELD_OUT_DIR) {
        const bytes = readFileSync(image.path);
        const enhanced = await convertWithService(bytes, { inputEnhance: true });
        const size = compareSize(enhanced.width, enhanced.height, COMPARE_MAX_SIDE);
        const on = { ssim: await new Reference(bytes, size.width, size.height).fidelity({ svg: enhanced.svg }), bytes: Buffer.byteLength(enhanced.svg), timeMs: enhanced.processingTimeMs };
        enhanceRows.push({ file: image.file, off: { ssim: row.ours.ssim, bytes: row.bytes, timeMs: row.timeMs }, on });
        console.log(`inputEnhance ${image.file}: ssim ${on.ssim.toFixed(4)}, ${(on.bytes / 1024).toFixed(1)} KB, ${on.timeMs} ms`);
      }
      if (!galleryFiles.has(image.file)) delete row.svg;
    }
  } finally {
    await converter.close();
  }

  if (options.save) saveRows(options.save, rows);
  if (options.against) for (const line of changeLines(options.against, rows)) console.log(line);

  const upscaleRows: UpscaleRow[] = [];
  const upscaleSkipped: string[] = [];
  if (corpusRun && options.baselines) {
    const manifest = readKindsManifest();
    for await (const upscale of upscaleCases(CORPUS_DIR, listCorpus(), manifest.entries, options.only)) {
      if ('skipped' in upscale) {
        upscaleSkipped.push(upscale.skipped);
        console.log(`shrunk ${upscale.skipped}: left out, too small`);
        continue;
      }
      const row = await measureUpscaleCase(upscale);
      upscaleRows.push(row);
      printUpscaleRow(row);
    }
  }

  // The gallery shows the corpus and the tune part; a held-out set's run leaves it as it is.
  if (!HELD_OUT_DIR && (options.galleryOnly || fullRun)) {
    const written = await writeGallery(rows, galleryList);
    console.log(`wrote ${written.sheets} sheets (${(written.bytes / 1e6).toFixed(1)} MB; docs/gallery/ ${(galleryBytes() / 1e6).toFixed(1)} MB in all) to ${GALLERY_DIR}`);
    if (options.galleryOnly) return;
  }
  // A union scope is shown only when it adds something: wide/ with both parts, both sets with both.
  const has = (scope: Scope): boolean => rowsOf(rows, scope).length > 0;
  const scopes: Scope[] = (['corpus', 'tune', 'holdout', 'wide', 'all'] as const).filter((scope) =>
    scope === 'wide' ? has('tune') && has('holdout') : scope === 'all' ? has('corpus') && has('wide') : has(scope),
  );
  const time: Partial<Record<Scope, TimeFigures>> = {};
  for (const scope of scopes) time[scope] = timeFigures(rowsOf(rows, scope));
  time.all ??= timeFigures(rows);
  if (!options.baselines) {
    // Kinds and times need no baseline: the hold-out part's kinds are printed in aggregate all the same.
    const holdout = rows.filter((row) => row.image.part === 'holdout');
    if (holdout.length) console.log(holdoutKinds(holdout));
    for (const scope of scopes) console.log(timeLine(scope, time[scope] as TimeFigures));
    return;
  }
  const corpusOnly: Target[] = [...corpusTargets(rows), ...inkTargets(inkRows), ...upscaleTargets(upscaleRows)];
  const results: Results = {
    rows,
    scopes,
    robustness: robustnessTargets(rows, scopes),
    corpusTargets: corpusOnly,
    timeTargets: timeTargets(timeFigures(rows)),
    time,
    inkRows,
    upscaleRows,
    upscaleSkipped,
    enhanceRows,
    manifestGaps: corpusRun && !options.only ? corpusManifestGaps(CORPUS_DIR, rowsOf(rows, 'corpus').map((row) => row.image)) : { missing: [], unlabelled: [] },
  };
  console.log('');
  printSummary(results);
  printRobustness(results.robustness, scopes);
  printTargets([...results.timeTargets, ...corpusOnly]);
  const minutes = (performance.now() - started) / 60_000;
  console.log(`the run took ${minutes.toFixed(1)} min`);
  if (HELD_OUT_DIR) {
    if (!options.only) writeHeldOutSection(results);
  } else if (fullRun) {
    writeReportTop(report(results, load, minutes));
    console.log(`wrote ${REPORT_PATH}`);
  }
}

await main();
