// Engine benchmark: for every image of ../shared/corpus, the service's convertImage at default
// params against raw VTracer at its command-line defaults (same binding) and, for the sketch
// images, Debian's potrace. Prints the figures and writes docs/benchmarks.md.
//
//   npm run bench                 all images, writes docs/benchmarks.md
//   npm run bench -- --only photo images whose path contains "photo", no docs written
//   npm run bench -- --dir PATH   a held-out set laid out like the corpus (one folder per kind);
//                                 its targets go to the `heldout` section of docs/benchmarks.md
//                                 (bash bench/heldout-set.sh PATH assembles the one measured there)
//
// Baselines (VTracer at full resolution takes minutes on the largest images) are cached in
// bench/.cache, keyed by file and configuration; delete the folder to measure them again.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { vectorizeRaw, type Config } from '@neplex/vectorizer';
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { convertImage } from '../src/engine/convert.ts';
import { DEFAULT_PARAMS, type TraceParams } from '../src/engine/params.ts';
import { countNodes } from '../src/engine/writers/svg.ts';
import { REPORT_PATH, writeReportSection, writeReportTop } from './report.ts';
import { ssim, toGray } from './ssim.ts';

const run = promisify(execFile);

const dirIndex = process.argv.indexOf('--dir');
const HELD_OUT_DIR = dirIndex >= 0 ? process.argv[dirIndex + 1] : undefined;
const CORPUS_DIR = HELD_OUT_DIR ?? fileURLToPath(new URL('../../shared/corpus/', import.meta.url));
const CACHE_DIR = fileURLToPath(new URL('./.cache/', import.meta.url));
/** Images are compared at this long side at most: fidelity as seen, not per source pixel. */
const COMPARE_MAX_SIDE = 512;
const MAX_INPUT_PIXELS = 100_000_000;

/** VTracer's command-line defaults (vtracer cmdapp config.rs, Config::default). */
const VTRACER_CLI_DEFAULTS: Config = {
  colorMode: 0,
  hierarchical: 0,
  filterSpeckle: 4,
  colorPrecision: 6,
  layerDifference: 16,
  mode: 2,
  cornerThreshold: 60,
  lengthThreshold: 4,
  maxIterations: 10,
  spliceThreshold: 45,
  pathPrecision: 2,
};

interface Measurement {
  timeMs: number;
  bytes: number;
  nodes: number;
  /** The lower of the SSIMs on white and on black. */
  ssim: number;
}

interface Row {
  file: string;
  category: string;
  width: number;
  height: number;
  chosen: string;
  ours: Measurement;
  vtracer: Measurement | null;
  potrace: Measurement | null;
}

function listCorpus(): { file: string; category: string }[] {
  const entries: { file: string; category: string }[] = [];
  for (const category of readdirSync(CORPUS_DIR, { withFileTypes: true })) {
    if (!category.isDirectory()) continue;
    for (const name of readdirSync(join(CORPUS_DIR, category.name)).sort()) {
      if (/\.(png|jpe?g|webp)$/i.test(name)) entries.push({ file: `${category.name}/${name}`, category: category.name });
    }
  }
  return entries.sort((a, b) => a.file.localeCompare(b.file));
}

/** SSIM between the original and a rendered SVG, composited on white and on black; the lower one. */
async function fidelity(original: Buffer, svg: string, width: number, height: number): Promise<number> {
  const scale = Math.min(1, COMPARE_MAX_SIDE / Math.max(width, height));
  const compareWidth = Math.max(1, Math.round(width * scale));
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
      ssim(
        toGray(reference.data, reference.info.width, reference.info.height, reference.info.channels),
        toGray(rendered.pixels, rendered.width, rendered.height, 4),
      ),
    );
  }
  return Math.min(...scores);
}

function cacheKey(kind: string, bytes: Buffer, extra: string): string {
  return createHash('sha256').update(kind).update(bytes).update(extra).digest('hex').slice(0, 24);
}

async function cached(key: string, measure: () => Promise<Measurement>): Promise<Measurement> {
  const path = join(CACHE_DIR, `${key}.json`);
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as Measurement;
  const measurement = await measure();
  writeFileSync(path, JSON.stringify(measurement));
  return measurement;
}

async function measureVtracer(bytes: Buffer, width: number, height: number): Promise<Measurement> {
  const started = performance.now();
  const { data, info } = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .toColourspace('srgb')
    .ensureAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  const svg = await vectorizeRaw(data, { width: info.width, height: info.height }, VTRACER_CLI_DEFAULTS);
  const timeMs = performance.now() - started;
  return {
    timeMs,
    bytes: Buffer.byteLength(svg),
    nodes: countNodes(svg),
    ssim: await fidelity(bytes, svg, width, height),
  };
}

/** Potrace on the image thresholded at 50 % grey (flattened on white), as its users would run it. */
async function measurePotrace(bytes: Buffer, width: number, height: number): Promise<Measurement> {
  const started = performance.now();
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
  const pbmPath = join(tmpdir(), `bench-${process.pid}.pbm`);
  const svgPath = join(tmpdir(), `bench-${process.pid}.svg`);
  writeFileSync(pbmPath, Buffer.concat([Buffer.from(`P4\n${info.width} ${info.height}\n`), bits]));
  await run('potrace', ['-s', '-o', svgPath, pbmPath]);
  const timeMs = performance.now() - started;
  // potrace draws ink on nothing; the paper of an opaque scan is white, so give it a white
  // background as our sketch output has, or every comparison on black would be meaningless.
  const svg = readFileSync(svgPath, 'utf8').replace(/(<svg\b[^>]*>)/, '$1<rect width="100%" height="100%" fill="#ffffff"/>');
  return {
    timeMs,
    bytes: Buffer.byteLength(svg),
    nodes: countNodes(svg),
    ssim: await fidelity(bytes, svg, width, height),
  };
}

async function measureOurs(
  bytes: Buffer,
  overrides: Partial<TraceParams> = {},
): Promise<{ measurement: Measurement; width: number; height: number; chosen: string }> {
  const result = await convertImage(
    { image: bytes, params: { ...DEFAULT_PARAMS, ...overrides } },
    { maxInputPixels: MAX_INPUT_PIXELS },
  );
  return {
    measurement: {
      timeMs: result.processingTimeMs,
      bytes: Buffer.byteLength(result.svg),
      nodes: result.nodeCount,
      ssim: await fidelity(bytes, result.svg, result.width, result.height),
    },
    width: result.width,
    height: result.height,
    chosen: `${result.chosen.mode}/${result.chosen.curveMode}`,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] as number;
}

const kb = (bytes: number): string => (bytes / 1024).toFixed(1);
const fixed = (value: number | undefined, digits = 4): string => (value === undefined ? '–' : value.toFixed(digits));

interface Target {
  name: string;
  figures: string;
  met: boolean;
}

function evaluateTargets(rows: Row[]): Target[] {
  const compared = rows.filter((row) => row.vtracer);
  const oursSsim = median(compared.map((row) => row.ours.ssim));
  const vtracerSsim = median(compared.map((row) => row.vtracer?.ssim ?? 0));
  const oursBytes = median(compared.map((row) => row.ours.bytes));
  const vtracerBytes = median(compared.map((row) => row.vtracer?.bytes ?? 0));
  const worst = compared
    .map((row) => ({ file: row.file, gap: (row.vtracer?.ssim ?? 0) - row.ours.ssim }))
    .sort((a, b) => b.gap - a.gap)[0];
  const sketches = rows.filter((row) => row.potrace);
  const sketchGaps = sketches.map((row) => ({ file: row.file, gap: (row.potrace?.ssim ?? 0) - row.ours.ssim }));
  const worstSketch = sketchGaps.sort((a, b) => b.gap - a.gap)[0];
  const pixelArt = rows.filter((row) => row.category === 'pixelart');
  const lowestPixelArt = Math.min(...pixelArt.map((row) => row.ours.ssim));
  const p95 = percentile(rows.map((row) => row.ours.timeMs), 95);
  return [
    {
      name: 'median SSIM ≥ VTracer’s',
      figures: `${fixed(oursSsim)} vs ${fixed(vtracerSsim)}`,
      met: oursSsim >= vtracerSsim,
    },
    {
      name: 'median SVG bytes ≤ half of VTracer’s',
      figures: `${kb(oursBytes)} KB vs ${kb(vtracerBytes)} KB (ratio ${(oursBytes / vtracerBytes).toFixed(3)})`,
      met: oursBytes <= vtracerBytes / 2,
    },
    {
      name: 'no image more than 0.02 SSIM below VTracer’s',
      figures: worst ? `largest shortfall ${fixed(worst.gap)} (${worst.file})` : '–',
      met: !worst || worst.gap <= 0.02,
    },
    {
      name: 'sketches SSIM ≥ Potrace’s − 0.005',
      figures: worstSketch ? `largest shortfall ${fixed(worstSketch.gap)} (${worstSketch.file})` : '–',
      met: !worstSketch || worstSketch.gap <= 0.005,
    },
    {
      name: 'pixel art SSIM ≥ 0.99',
      figures: `lowest ${fixed(lowestPixelArt)}`,
      met: lowestPixelArt >= 0.99,
    },
    { name: 'p95 time < 2000 ms', figures: `${p95.toFixed(0)} ms`, met: p95 < 2000 },
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

/** Images more than 0.02 SSIM below VTracer, with what VTracer spent on them. */
function shortfallNotes(rows: Row[]): string[] {
  const short = rows.filter((row) => row.vtracer && row.vtracer.ssim - row.ours.ssim > 0.02);
  if (short.length === 0) return [];
  return [
    '### Where fidelity falls short of VTracer',
    '',
    ...short.map(
      (row) =>
        `- ${row.file} (${row.chosen}): SSIM ${fixed(row.ours.ssim)} vs ${fixed(row.vtracer?.ssim)}; VTracer traced all ${row.width}×${row.height} pixels in ${((row.vtracer?.timeMs ?? 0) / 1000).toFixed(1)} s into ${kb(row.vtracer?.bytes ?? 0)} KB, the service ${row.ours.timeMs.toFixed(0)} ms into ${kb(row.ours.bytes)} KB.`,
    ),
    '',
    'These are the images whose fine detail (map lettering and hairlines, long smooth gradients) only',
    'survives tracing at or near full resolution. The service traces at a working size chosen to stay',
    'under 2 s per image (docs/parameters.md, "Working size"); a higher `colorPrecision` or a lower',
    '`layerDifference` recovers part of the gap at the cost of time and bytes.',
    '',
  ];
}

function report(rows: Row[], targets: Target[], enhanceRows: EnhanceRow[], load: number[]): string {
  const cpu = cpus();
  const lines = [
    '# Engine benchmark',
    '',
    `Generated by \`npm run bench\` (bench/engine.ts) on ${new Date().toISOString().slice(0, 10)}.`,
    '',
    `Machine: ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} cores; Node ${process.version}; one conversion at a time, in-process, libvips limited to one thread as in the service's workers.`,
    `Load average when the run started: ${load.map((value) => value.toFixed(2)).join(', ')} (1, 5, 15 min) — other work shared the machine, so times are upper bounds.`,
    '',
    'Method: every image of the shared corpus (../shared/corpus, see its SOURCES.md) is converted by',
    '`convertImage` at the default params, by raw VTracer through the same binding at its command-line',
    'defaults (color, stacked, filter_speckle 4, color_precision 6, gradient_step 16, spline,',
    'corner_threshold 60, segment_length 4, splice_threshold 45, path_precision 2) on the full-resolution',
    'image, and, for the sketch images, by Debian\'s `potrace -s` on the image thresholded at 50 % grey.',
    'Time covers decoding, tracing and writing the SVG. Fidelity is the mean SSIM (11×11 Gaussian window,',
    'σ 1.5, on BT.601 luma) between the original and the SVG rendered with resvg, both scaled to a long',
    `side of at most ${COMPARE_MAX_SIDE} px and composited on white and on black; the lower of the two is reported.`,
    'Nodes are counted as the service counts them (every segment endpoint, Z none).',
    '',
    '## Targets',
    '',
    '| target | figures | met |',
    '|---|---|---|',
    ...targets.map((target) => `| ${target.name} | ${target.figures} | ${target.met ? 'yes' : '**no**'} |`),
    '',
    ...shortfallNotes(rows),
    '## Per image',
    '',
    '| image | size | auto chose | ms | KB | nodes | SSIM | VTracer ms | VTracer KB | VTracer nodes | VTracer SSIM | Potrace SSIM |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((row) =>
      [
        row.file,
        `${row.width}×${row.height}`,
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
      ].join(' | ').replace(/^/, '| ').replace(/$/, ' |'),
    ),
    '',
    ...enhanceSection(enhanceRows),
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  // As in the service's worker processes: one libvips thread per conversion.
  sharp.concurrency(1);
  const onlyIndex = process.argv.indexOf('--only');
  const only = onlyIndex >= 0 ? process.argv[onlyIndex + 1] : undefined;
  const skipBaselines = process.argv.includes('--ours-only');
  mkdirSync(CACHE_DIR, { recursive: true });
  const load = loadavg();
  const potraceInstalled = await run('potrace', ['--version']).then(
    () => true,
    () => {
      console.warn('potrace is not installed (apt-get install potrace); the Potrace comparison is left out');
      return false;
    },
  );
  const rows: Row[] = [];
  const enhanceRows: EnhanceRow[] = [];
  for (const { file, category } of listCorpus()) {
    if (only && !file.includes(only)) continue;
    const bytes = readFileSync(join(CORPUS_DIR, file));
    const ours = await measureOurs(bytes);
    const vtracer = skipBaselines
      ? null
      : await cached(cacheKey('vtracer', bytes, JSON.stringify(VTRACER_CLI_DEFAULTS) + COMPARE_MAX_SIDE), () =>
          measureVtracer(bytes, ours.width, ours.height),
        );
    const potrace =
      category === 'sketch' && !skipBaselines && potraceInstalled
        ? await cached(cacheKey('potrace', bytes, `threshold128-white-${COMPARE_MAX_SIDE}`), () =>
            measurePotrace(bytes, ours.width, ours.height),
          )
        : null;
    const row: Row = { file, category, width: ours.width, height: ours.height, chosen: ours.chosen, ours: ours.measurement, vtracer, potrace };
    rows.push(row);
    let enhanced: Measurement | null = null;
    if (ENHANCE_CATEGORIES.has(category) && !skipBaselines) {
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
  }
  if (skipBaselines) return;
  const targets = evaluateTargets(rows);
  for (const target of targets) console.log(`${target.met ? 'met   ' : 'MISSED'} ${target.name}: ${target.figures}`);
  if (HELD_OUT_DIR) {
    writeHeldOutSection(rows, targets);
  } else if (!only) {
    writeReportTop(report(rows, targets, enhanceRows, load));
    console.log(`wrote ${REPORT_PATH}`);
  }
}

/** The targets on a held-out set, between the `heldout` markers of docs/benchmarks.md. */
function writeHeldOutSection(rows: Row[], targets: ReturnType<typeof evaluateTargets>): void {
  const section = [
    '## Held-out images (`npm run bench -- --dir PATH`)',
    '',
    `Run on ${new Date().toISOString().slice(0, 10)} on ${rows.length} images that are not in the corpus, assembled by`,
    '`bench/heldout-set.sh` from files on this machine (icon themes; Rust, Python and Google Cloud SDK',
    'documentation): ' + [...new Set(rows.map((r) => r.category))].sort().map((c) => `${c} ${rows.filter((r) => r.category === c).length}`).join(', ') + '.',
    '',
    '| target | figures | met |',
    '|---|---|---|',
    ...targets.map((t) => `| ${t.name} | ${t.figures} | ${t.met ? 'yes' : '**no**'} |`),
    '',
    '| image | kind chosen | ms | KB | SSIM | VTracer KB | VTracer SSIM | Potrace SSIM |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.file} | ${r.chosen} | ${Math.round(r.ours.timeMs)} | ${(r.ours.bytes / 1024).toFixed(1)} | ${r.ours.ssim.toFixed(4)} | ` +
        `${r.vtracer ? (r.vtracer.bytes / 1024).toFixed(1) : '–'} | ${r.vtracer ? r.vtracer.ssim.toFixed(4) : '–'} | ${r.potrace ? r.potrace.ssim.toFixed(4) : '–'} |`,
    ),
  ].join('\n');
  writeReportSection('heldout', section);
  console.log(`wrote the held-out section of ${REPORT_PATH}`);
}

await main();
