// Engine benchmark: for every image of ../shared/corpus, the service's convertImage at default
// params against raw VTracer at its command-line defaults (same binding) and, for the ink images,
// Debian's potrace; the kinds auto picks against bench/kinds.tsv; ink images at full resolution;
// and resolution independence (bench/upscale.ts). Prints the figures and writes docs/benchmarks.md.
//
//   npm run bench                 all images, writes docs/benchmarks.md
//   npm run bench -- --only photo images whose path contains "photo", no docs written
//   npm run bench -- --dir PATH   a held-out set laid out like the corpus (one folder per category,
//                                 upscale/ pairs, kinds.tsv); its results go to the `heldout` section
//                                 of docs/benchmarks.md (bash bench/heldout-set.sh PATH assembles it)
//
// Baselines (VTracer at full resolution takes minutes on the largest images) are cached in
// bench/.cache, keyed by file and configuration; delete the folder to measure them again.

import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { TraceParams } from '../src/engine/params.ts';
import { countNodes } from '../src/engine/write/svg.ts';
import { argumentValue, CORPUS_DIR, HELD_OUT_DIR, listCorpus, readKindsManifest, type ImageKindName, type KindEntry } from './corpus.ts';
import { FULL_RESOLUTION_MAX_PIXELS, inkTable, inkTargets, measureInk, printInkRow, type InkRow } from './ink.ts';
import {
  cached,
  cacheKey,
  compareSize,
  convertWithService,
  potraceAvailable,
  Reference,
  traceWithPotrace,
  traceWithVtracer,
  VTRACER_CLI_DEFAULTS,
  type Measurement,
  type TracedSvg,
} from './measure.ts';
import { fixed, kb, median, percentile, printTargets, tableRow, targetTable, type Target } from './figures.ts';
import { REPORT_PATH, writeReportSection, writeReportTop } from './report.ts';
import { measureUpscaleCase, printUpscaleRow, UPSCALE_METHOD, upscaleCases, upscaleTables, upscaleTargets, type UpscaleRow } from './upscale.ts';

/** Images are compared at this long side at most: fidelity as seen, not per source pixel. */
const COMPARE_MAX_SIDE = 512;

interface Row {
  file: string;
  category: string;
  /** The kind bench/kinds.tsv expects, if it lists the image. */
  expected?: ImageKindName;
  width: number;
  height: number;
  chosenMode: string;
  chosen: string;
  ours: Measurement;
  vtracer: Measurement | null;
  potrace: Measurement | null;
}

interface OurConversion {
  measurement: Measurement;
  svg: string;
  width: number;
  height: number;
  chosenMode: string;
  chosen: string;
}

async function measureOurs(bytes: Buffer, overrides: Partial<TraceParams> = {}): Promise<OurConversion> {
  const result = await convertWithService(bytes, overrides);
  const size = compareSize(result.width, result.height, COMPARE_MAX_SIDE);
  return {
    measurement: {
      timeMs: result.processingTimeMs,
      bytes: Buffer.byteLength(result.svg),
      nodes: result.nodeCount,
      ssim: await new Reference(bytes, size.width, size.height).fidelity({ svg: result.svg }),
    },
    svg: result.svg,
    width: result.width,
    height: result.height,
    chosenMode: result.chosen.mode,
    chosen: `${result.chosen.mode}/${result.chosen.curveMode}`,
  };
}

/** A baseline tracer's figures at the comparison size of the corpus table. */
async function measureBaseline(trace: (bytes: Buffer) => Promise<TracedSvg>, bytes: Buffer, width: number, height: number): Promise<Measurement> {
  const { svg, timeMs } = await trace(bytes);
  const size = compareSize(width, height, COMPARE_MAX_SIDE);
  return {
    timeMs,
    bytes: Buffer.byteLength(svg),
    nodes: countNodes(svg),
    ssim: await new Reference(bytes, size.width, size.height).fidelity({ svg }),
  };
}

const VTRACER_MARGIN = 0.02;

/** The corpus targets of the first rounds; ink images answer to the ink targets instead of VTracer's. */
function corpusTargets(rows: Row[]): Target[] {
  if (rows.length === 0) return [];
  const compared = rows.filter((row) => row.vtracer);
  const oursSsim = median(compared.map((row) => row.ours.ssim));
  const vtracerSsim = median(compared.map((row) => row.vtracer?.ssim ?? 0));
  const oursBytes = median(compared.map((row) => row.ours.bytes));
  const vtracerBytes = median(compared.map((row) => row.vtracer?.bytes ?? 0));
  const worst = compared
    .filter((row) => row.expected !== 'sketch')
    .map((row) => ({ file: row.file, gap: (row.vtracer?.ssim ?? 0) - row.ours.ssim }))
    .sort((a, b) => b.gap - a.gap)[0];
  const pixelArt = rows.filter((row) => (row.expected ?? row.category) === 'pixelart');
  const lowestPixelArt = Math.min(...pixelArt.map((row) => row.ours.ssim));
  const p95 = percentile(rows.map((row) => row.ours.timeMs), 95);
  return [
    {
      name: 'median SSIM ≥ VTracer’s',
      figures: `${fixed(oursSsim)} vs ${fixed(vtracerSsim)} (${compared.length} images)`,
      met: oursSsim >= vtracerSsim,
    },
    {
      name: 'median SVG bytes ≤ half of VTracer’s',
      figures: `${kb(oursBytes)} KB vs ${kb(vtracerBytes)} KB (ratio ${(oursBytes / vtracerBytes).toFixed(3)})`,
      met: oursBytes <= vtracerBytes / 2,
    },
    {
      name: `no image other than ink more than ${VTRACER_MARGIN} SSIM below VTracer’s`,
      figures: worst ? `largest shortfall ${fixed(worst.gap)} (${worst.file})` : '–',
      met: !worst || worst.gap <= VTRACER_MARGIN,
    },
    {
      name: 'pixel art SSIM ≥ 0.99',
      figures: pixelArt.length ? `lowest ${fixed(lowestPixelArt)}` : '–',
      met: pixelArt.length === 0 || lowestPixelArt >= 0.99,
    },
    { name: 'p95 time in-process < 2000 ms', figures: `${p95.toFixed(0)} ms`, met: p95 < 2000 },
  ];
}

interface KindsCheck {
  manifestPath: string;
  checked: number;
  mismatches: (KindEntry & { chosen: string })[];
  /** Listed in the manifest but not found in the corpus. */
  missing: string[];
  /** Corpus images the manifest does not list. */
  unlabelled: string[];
}

/**
 * Compares the manifest with the kind auto chose. Files not converted elsewhere in the run (the
 * 512 px emoji references) are converted here.
 */
async function checkKinds(
  manifest: { path: string; entries: Map<string, KindEntry> },
  chosenByFile: Map<string, string>,
  corpusFiles: string[],
  only: string | undefined,
): Promise<KindsCheck> {
  const check: KindsCheck = { manifestPath: manifest.path, checked: 0, mismatches: [], missing: [], unlabelled: [] };
  for (const entry of manifest.entries.values()) {
    if (only && !entry.file.includes(only)) continue;
    let chosen = chosenByFile.get(entry.file);
    if (chosen === undefined) {
      const path = join(CORPUS_DIR, entry.file);
      if (!existsSync(path)) {
        check.missing.push(entry.file);
        continue;
      }
      chosen = (await convertWithService(readFileSync(path))).chosen.mode;
    }
    check.checked++;
    if (chosen !== entry.kind) check.mismatches.push({ ...entry, chosen });
  }
  check.unlabelled = corpusFiles.filter((file) => !manifest.entries.has(file));
  return check;
}

function kindsTarget(check: KindsCheck): Target {
  return {
    name: 'every image in the kinds manifest gets the kind a person expects',
    figures:
      `${check.checked - check.mismatches.length} of ${check.checked} as expected` +
      (check.missing.length ? `; ${check.missing.length} listed but missing` : '') +
      (check.unlabelled.length ? `; ${check.unlabelled.length} not listed` : ''),
    met: check.mismatches.length === 0 && check.missing.length === 0 && check.unlabelled.length === 0,
  };
}

function kindsSection(check: KindsCheck, level: string): string[] {
  return [
    `${level} Kinds auto picks (${check.manifestPath.endsWith('bench/kinds.tsv') ? 'bench/kinds.tsv' : 'kinds.tsv of the set'})`,
    '',
    `${check.checked} images checked against the manifest; ${check.mismatches.length} mismatches.`,
    '',
    ...(check.mismatches.length
      ? [
          '| image | expected | auto chose | why a person expects it |',
          '|---|---|---|---|',
          ...check.mismatches.map((m) => tableRow([m.file, m.kind, `**${m.chosen}**`, m.why])),
          '',
        ]
      : []),
    ...(check.missing.length ? [`Listed but not in the corpus: ${check.missing.join(', ')}.`, ''] : []),
    ...(check.unlabelled.length ? [`Not listed in the manifest: ${check.unlabelled.join(', ')}.`, ''] : []),
  ];
}

interface EnhanceRow {
  file: string;
  off: Measurement;
  on: Measurement;
}

/** Categories on which inputEnhance is measured: noisy photographs and scans. */
const ENHANCE_CATEGORIES = new Set(['photo', 'document']);

function enhanceSection(rows: EnhanceRow[]): string[] {
  if (rows.length === 0) return [];
  const meanOf = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
  return [
    '## inputEnhance on photos and scans',
    '',
    'The same conversion with `inputEnhance: true` (for photos, specks of one or two pixels merged into',
    'their surroundings after the palette step; for line art, a median and small-image upscale), on the',
    'photo and document images.',
    '',
    '| image | SSIM off | SSIM on | KB off | KB on | ms off | ms on |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.file} | ${fixed(row.off.ssim)} | ${fixed(row.on.ssim)} | ${kb(row.off.bytes)} | ${kb(row.on.bytes)} | ${row.off.timeMs.toFixed(0)} | ${row.on.timeMs.toFixed(0)} |`,
    ),
    `| **mean** | ${fixed(meanOf(rows.map((r) => r.off.ssim)))} | ${fixed(meanOf(rows.map((r) => r.on.ssim)))} | ${kb(meanOf(rows.map((r) => r.off.bytes)))} | ${kb(meanOf(rows.map((r) => r.on.bytes)))} | ${meanOf(rows.map((r) => r.off.timeMs)).toFixed(0)} | ${meanOf(rows.map((r) => r.on.timeMs)).toFixed(0)} |`,
    '',
  ];
}

/** Images other than ink more than 0.02 SSIM below VTracer, with what VTracer spent on them. */
function shortfallNotes(rows: Row[], level: string): string[] {
  const short = rows.filter((row) => row.expected !== 'sketch' && row.vtracer && row.vtracer.ssim - row.ours.ssim > VTRACER_MARGIN);
  if (short.length === 0) return [];
  return [
    `${level} Where fidelity falls short of VTracer`,
    '',
    ...short.map(
      (row) =>
        `- ${row.file} (${row.chosen}): SSIM ${fixed(row.ours.ssim)} vs ${fixed(row.vtracer?.ssim)}; VTracer traced all ${row.width}×${row.height} pixels in ${((row.vtracer?.timeMs ?? 0) / 1000).toFixed(1)} s into ${kb(row.vtracer?.bytes ?? 0)} KB, the service ${row.ours.timeMs.toFixed(0)} ms into ${kb(row.ours.bytes)} KB.`,
    ),
    '',
  ];
}

interface Results {
  rows: Row[];
  inkRows: InkRow[];
  upscaleRows: UpscaleRow[];
  /** Corpus images too small to shrink, with their shrunk size. */
  upscaleSkipped: string[];
  kinds: KindsCheck;
  targets: Target[];
  enhanceRows: EnhanceRow[];
}

/** The sections a run's results make, under headings of `level` ('##' at the top, '###' in the held-out section). */
function resultSections(results: Results, level: string): string[] {
  const sub = `${level}#`;
  return [
    `${level} Targets`,
    '',
    ...targetTable(results.targets),
    '',
    ...shortfallNotes(results.rows, sub),
    ...kindsSection(results.kinds, level),
    ...(results.inkRows.length
      ? [
          `${level} Ink images at full resolution`,
          '',
          'Images of kind `sketch` in the manifest. SSIM against the original at its own size (above',
          `${FULL_RESOLUTION_MAX_PIXELS / 1e6} MP, the largest size within it), on white and on black, the lower one; fill colours are`,
          'the distinct fills of the SVG, background included. VTracer’s colour trace is shown, not a target.',
          '',
          ...inkTable(results.inkRows),
        ]
      : []),
    ...(results.upscaleRows.length
      ? [
          `${level} Resolution independence`,
          '',
          ...UPSCALE_METHOD,
          '',
          ...upscaleTables(results.upscaleRows, sub, results.upscaleSkipped),
        ]
      : []),
    `${level} Per image`,
    '',
    '| image | size | expected | auto chose | ms | KB | nodes | SSIM | VTracer ms | VTracer KB | VTracer nodes | VTracer SSIM | Potrace SSIM |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...results.rows.map((row) =>
      tableRow([
        row.file,
        `${row.width}×${row.height}`,
        row.expected ?? '–',
        row.chosen,
        row.ours.timeMs.toFixed(0),
        kb(row.ours.bytes),
        row.ours.nodes,
        fixed(row.ours.ssim),
        row.vtracer ? row.vtracer.timeMs.toFixed(0) : '–',
        row.vtracer ? kb(row.vtracer.bytes) : '–',
        row.vtracer ? row.vtracer.nodes : '–',
        fixed(row.vtracer?.ssim),
        fixed(row.potrace?.ssim),
      ]),
    ),
    '',
  ];
}

function report(results: Results, load: number[], minutes: number): string {
  const cpu = cpus();
  return [
    '# Engine benchmark',
    '',
    `Generated by \`npm run bench\` (bench/engine.ts) on ${new Date().toISOString().slice(0, 10)}; the run took ${minutes.toFixed(1)} min.`,
    '',
    `Machine: ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} cores; Node ${process.version}; one conversion at a time, in-process, libvips limited to one thread as in the service's workers.`,
    `Load average when the run started: ${load.map((value) => value.toFixed(2)).join(', ')} (1, 5, 15 min) — other work shared the machine, so times are upper bounds.`,
    '',
    'Method: every image one folder below the shared corpus (../shared/corpus, see its SOURCES.md; not',
    'upscale/, measured apart) is converted by `convertImage` at the default params, by raw VTracer through',
    'the same binding at its command-line defaults (color, stacked, filter_speckle 4, color_precision 6,',
    'gradient_step 16, spline, corner_threshold 60, segment_length 4, splice_threshold 45, path_precision 2)',
    "on the full-resolution image, and, for the ink images (kind `sketch` in bench/kinds.tsv), by Debian's",
    '`potrace -s` on the image thresholded at 50 % grey. Time covers decoding, tracing and writing the SVG.',
    'Fidelity is the mean SSIM (11×11 Gaussian window, σ 1.5, on BT.601 luma) between the original and the',
    `SVG rendered with resvg, both scaled to a long side of at most ${COMPARE_MAX_SIDE} px and composited on white and on`,
    'black; the lower of the two is reported. Ink images are compared again at full resolution, and',
    'resolution independence at the reference size (below). Nodes are counted as the service counts them',
    '(every segment endpoint, Z none). The kind auto picks (`chosen.mode`) is checked against',
    'bench/kinds.tsv for every image it lists, upscale/ included.',
    '',
    ...resultSections(results, '##'),
    ...enhanceSection(results.enhanceRows),
  ].join('\n');
}

/** The results on a held-out set, between the `heldout` markers of docs/benchmarks.md. */
function writeHeldOutSection(results: Results): void {
  const { rows, upscaleRows } = results;
  const categories = [...new Set(rows.map((r) => r.category))].sort();
  const upscaleSets = ['shrunk', 'emoji', 'icons'].map((set) => `${set} ${upscaleRows.filter((r) => r.set === set).length}`);
  const section = [
    '## Held-out images (`npm run bench -- --dir PATH`)',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)} on ${rows.length} images that are not in the corpus, assembled by`,
    '`bench/heldout-set.sh` from files on this machine and from Debian packages (the script names each',
    'file’s package and licence): ' + categories.map((c) => `${c} ${rows.filter((r) => r.category === c).length}`).join(', ') + ';',
    `resolution independence: ${upscaleSets.join(', ')}. Same method and targets as the corpus above.`,
    '',
    ...resultSections(results, '###'),
  ].join('\n');
  writeReportSection('heldout', section);
  console.log(`wrote the held-out section of ${REPORT_PATH}`);
}

async function main(): Promise<void> {
  const started = performance.now();
  // As in the service's worker processes: one libvips thread per conversion.
  sharp.concurrency(1);
  const only = argumentValue('--only');
  const skipBaselines = process.argv.includes('--ours-only');
  const load = loadavg();
  const potraceInstalled = await potraceAvailable();
  const manifest = readKindsManifest();
  const corpus = listCorpus();
  const rows: Row[] = [];
  const inkRows: InkRow[] = [];
  const enhanceRows: EnhanceRow[] = [];
  const chosenByFile = new Map<string, string>();
  for (const { file, category } of corpus) {
    if (only && !file.includes(only)) continue;
    const bytes = readFileSync(join(CORPUS_DIR, file));
    const expected = manifest.entries.get(file)?.kind;
    const ours = await measureOurs(bytes);
    chosenByFile.set(file, ours.chosenMode);
    const vtracer = skipBaselines
      ? null
      : await cached(cacheKey('vtracer', bytes, JSON.stringify(VTRACER_CLI_DEFAULTS) + COMPARE_MAX_SIDE), () =>
          measureBaseline(traceWithVtracer, bytes, ours.width, ours.height),
        );
    const potrace =
      expected === 'sketch' && !skipBaselines && potraceInstalled
        ? await cached(cacheKey('potrace', bytes, `threshold128-white-${COMPARE_MAX_SIDE}`), () =>
            measureBaseline(traceWithPotrace, bytes, ours.width, ours.height),
          )
        : null;
    const row: Row = { file, category, expected, width: ours.width, height: ours.height, chosenMode: ours.chosenMode, chosen: ours.chosen, ours: ours.measurement, vtracer, potrace };
    rows.push(row);
    let enhanced: Measurement | null = null;
    if (ENHANCE_CATEGORIES.has(category) && !skipBaselines && !HELD_OUT_DIR) {
      enhanced = (await measureOurs(bytes, { inputEnhance: true })).measurement;
      enhanceRows.push({ file, off: ours.measurement, on: enhanced });
    }
    console.log(
      [
        file.padEnd(52),
        row.chosen.padEnd(16),
        `${row.ours.timeMs.toFixed(0).padStart(5)} ms`,
        `${kb(row.ours.bytes).padStart(8)} KB`,
        `ssim ${fixed(row.ours.ssim)}`,
        vtracer ? `| vtracer ${kb(vtracer.bytes).padStart(8)} KB ssim ${fixed(vtracer.ssim)}` : '',
        potrace ? `| potrace ssim ${fixed(potrace.ssim)}` : '',
        enhanced ? `| inputEnhance ${kb(enhanced.bytes).padStart(8)} KB ssim ${fixed(enhanced.ssim)}` : '',
      ].join(' '),
    );
    if (expected === 'sketch') {
      const ink = await measureInk(file, bytes, ours, { potrace: potraceInstalled && !skipBaselines, vtracer: !skipBaselines });
      inkRows.push(ink);
      printInkRow(ink);
    }
  }
  const upscaleRows: UpscaleRow[] = [];
  const upscaleSkipped: string[] = [];
  for await (const upscale of upscaleCases(CORPUS_DIR, corpus, manifest.entries, only)) {
    if ('skipped' in upscale) {
      upscaleSkipped.push(upscale.skipped);
      console.log(`shrunk ${upscale.skipped}: left out, too small`);
      continue;
    }
    const row = await measureUpscaleCase(upscale);
    if (row.inputFile) chosenByFile.set(row.inputFile, row.chosenMode);
    upscaleRows.push(row);
    printUpscaleRow(row);
  }
  const kinds = await checkKinds(
    manifest,
    chosenByFile,
    corpus.map((image) => image.file).filter((file) => !only || file.includes(only)),
    only,
  );
  for (const mismatch of kinds.mismatches) console.log(`kind   ${mismatch.file}: expected ${mismatch.kind}, auto chose ${mismatch.chosen}`);
  if (skipBaselines) return;
  const targets = [...corpusTargets(rows), kindsTarget(kinds), ...inkTargets(inkRows), ...upscaleTargets(upscaleRows)];
  printTargets(targets);
  const results: Results = { rows, inkRows, upscaleRows, upscaleSkipped, kinds, targets, enhanceRows };
  const minutes = (performance.now() - started) / 60_000;
  console.log(`the run took ${minutes.toFixed(1)} min`);
  if (HELD_OUT_DIR) {
    writeHeldOutSection(results);
  } else if (!only) {
    writeReportTop(report(results, load, minutes));
    console.log(`wrote ${REPORT_PATH}`);
  }
}

await main();
