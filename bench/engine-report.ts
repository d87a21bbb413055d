// The engine benchmark's report: the top of docs/benchmarks.md (method, targets per scope, the
// figures behind them, per-image tables) and what the console prints. Hold-out images are never
// named here: their figures appear in aggregate, by kind.
import { CROP_METHOD, STEP_METHOD } from './crops.ts';
import { fixed, kb, median, tableRow, targetTable, type Target } from './figures.ts';
import { firstKindAgrees, kindAgrees, SMALL_FACTOR, SMALL_SIDE, COMPARE_MAX_SIDE, type CropRow, type ImageRow } from './images.ts';
import { FULL_RESOLUTION_MAX_PIXELS, inkTable, type InkRow } from './ink.ts';
import {
  BELOW_VTRACER,
  COVERAGE_LIMIT,
  CROP_BELOW_VTRACER,
  destroyedSigns,
  retraceSummary,
  rowsOf,
  SCOPE_TITLES,
  signedPercent,
  type Scope,
  type TargetRow,
  type TimeFigures,
} from './targets.ts';
import { UPSCALE_METHOD, upscaleTables, type UpscaleRow } from './upscale.ts';
import { KINDS } from './corpus.ts';

export interface EnhanceRow {
  file: string;
  off: { ssim: number; bytes: number; timeMs: number };
  on: { ssim: number; bytes: number; timeMs: number };
}

export interface Results {
  rows: ImageRow[];
  scopes: Scope[];
  robustness: TargetRow[];
  corpusTargets: Target[];
  timeTargets: Target[];
  time: Partial<Record<Scope, TimeFigures>>;
  inkRows: InkRow[];
  upscaleRows: UpscaleRow[];
  upscaleSkipped: string[];
  enhanceRows: EnhanceRow[];
  manifestGaps: { missing: string[]; unlabelled: string[] };
}

const named = (row: ImageRow): boolean => row.image.part !== 'holdout';

/** One console line per image; a hold-out image is only counted. */
export function printImageRow(row: ImageRow, holdoutIndex: number | null): void {
  if (holdoutIndex !== null) {
    console.log(`hold-out image ${holdoutIndex} measured`);
    return;
  }
  const v = row.vtracer?.comparison;
  console.log(
    [
      row.image.file.padEnd(58),
      row.chosen.padEnd(16),
      `${String(row.timeMs).padStart(5)} ms`,
      `${kb(row.bytes).padStart(8)} KB`,
      `ssim ${fixed(row.ours.ssim)}`,
      `worst ΔE ${row.ours.worstDe.toFixed(1).padStart(5)}`,
      `cov ${signedPercent(row.ours.coverage)}`,
      v ? `| vtracer ${kb(row.vtracer?.bytes ?? 0).padStart(8)} KB ssim ${fixed(v.ssim)} worst ΔE ${v.worstDe.toFixed(1)}` : '',
      row.lanczos ? `| lanczos ssim ${fixed(row.lanczos.ssim)} worst ΔE ${row.lanczos.worstDe.toFixed(1)}` : '',
      row.potrace ? `| potrace ssim ${fixed(row.potrace.ssim)}` : '',
      row.check ? `| check ${fixed(row.check.fidelity, 3)}${row.check.retraced ? ` retraced ${row.check.retraceMs} ms` : ''}` : '',
      row.error ? `| FAILED ${row.error}` : '',
      ...(row.crops ?? []).map((crop) => `| ${crop.crop.name} crop ${fixed(crop.ours.ssim, 3)} vs ${fixed(crop.vtracer.ssim, 3)}${stepsOf(crop)}`),
    ]
      .filter(Boolean)
      .join(' '),
  );
}

/** The issue-18 targets with a column per scope. */
export function robustnessTable(targets: TargetRow[], scopes: Scope[]): string[] {
  const shown = scopes.filter((scope) => targets.some((target) => target.cells[scope]));
  return [
    `| target | ${shown.map((scope) => SCOPE_TITLES[scope]).join(' | ')} |`,
    `|---|${shown.map(() => '---|').join('')}`,
    ...targets.map((target) =>
      tableRow([
        target.name,
        ...shown.map((scope) => {
          const cell = target.cells[scope];
          if (!cell) return '–';
          return cell.met === undefined ? cell.figures : `${cell.figures}: ${cell.met ? 'met' : '**missed**'}`;
        }),
      ]),
    ),
  ];
}

export function printRobustness(targets: TargetRow[], scopes: Scope[]): void {
  for (const target of targets) {
    for (const scope of scopes) {
      const cell = target.cells[scope];
      if (!cell || cell.met === undefined) continue;
      console.log(`${cell.met ? 'met   ' : 'MISSED'} [${SCOPE_TITLES[scope]}] ${target.name}: ${cell.figures}`);
    }
  }
}

function timeTable(time: Partial<Record<Scope, TimeFigures>>): string[] {
  const scopes = (Object.keys(time) as Scope[]).filter((scope) => (time[scope]?.images ?? 0) > 0);
  return [
    `| scope | images | mean ms | p95 ms | max ms | ≤ ${SMALL_SIDE} px: images, median ms | self-check retraces | retrace time |`,
    '|---|---|---|---|---|---|---|---|',
    ...scopes.map((scope) => {
      const t = time[scope] as TimeFigures;
      return tableRow([
        SCOPE_TITLES[scope],
        t.images,
        t.meanMs.toFixed(0),
        t.p95Ms.toFixed(0),
        t.maxMs.toFixed(0),
        `${t.smallImages}, ${fixed(t.smallMedianMs, 0)}`,
        t.checked ? `${t.retraced} of ${t.checked}` : 'not reported',
        t.checked ? `${(t.retraceMs / 1000).toFixed(1)} s of ${(t.totalMs / 1000).toFixed(1)} s` : '–',
      ]);
    }),
  ];
}

function destroyedSection(rows: ImageRow[], scopes: Scope[]): string[] {
  const lines = ['## Destroyed results', ''];
  lines.push(
    `A result is destroyed when the engine fails, when its opaque coverage changes by more than ${COVERAGE_LIMIT * 100} % of the`,
    `image, when its SSIM is more than ${BELOW_VTRACER} below raw VTracer’s, or when a 100 % crop of a large image is more`,
    `than ${CROP_BELOW_VTRACER} below VTracer’s trace of the image shrunk to 1.5 MP.`,
    '',
  );
  const shown = rows.filter((row) => named(row) && destroyedSigns(row).length);
  if (shown.length) {
    lines.push('| image | part | labelled | auto chose | signs |', '|---|---|---|---|---|');
    for (const row of shown) lines.push(tableRow([row.image.file, SCOPE_TITLES[row.image.part], row.image.expected ?? '–', row.chosen, destroyedSigns(row).join('; ')]));
    lines.push('');
  } else if (scopes.some((scope) => scope === 'corpus' || scope === 'tune')) {
    lines.push('None on the corpus or the tune part.', '');
  }
  const holdout = rows.filter((row) => row.image.part === 'holdout');
  if (holdout.length) {
    const destroyed = holdout.filter((row) => destroyedSigns(row).length);
    lines.push(
      `Hold-out part: ${destroyed.length} of ${holdout.length} destroyed` +
        (destroyed.length ? ` (${countBy(destroyed, (row) => `${row.image.expected ?? '–'}: ${signKinds(row)}`)})` : '') +
        '.',
      '',
    );
  }
  return lines;
}

function signKinds(row: ImageRow): string {
  return destroyedSigns(row)
    .map((sign) => (sign.startsWith('failed') ? 'failed' : sign.startsWith('coverage') ? 'coverage' : sign.startsWith('100 %') ? 'crop' : 'SSIM'))
    .filter((sign, index, all) => all.indexOf(sign) === index)
    .join('+');
}

function countBy<T>(items: T[], key: (item: T) => string): string {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts].map(([name, count]) => `${name} × ${count}`).join(', ');
}

/**
 * The classifier's own pick against the label, and how often the self-check kept another kind's
 * trace: the kind figure counts the kind returned, and a trace in tones kept for ink that scored
 * low counts as a photograph.
 */
function firstPickLine(rows: ImageRow[]): string {
  const labelled = rows.filter((row) => row.image.expected);
  const first = labelled.filter(firstKindAgrees).length;
  const changed = labelled.filter((row) => !row.error && row.firstMode !== row.chosenMode);
  return (
    `The classifier's own pick, before the self-check: ${first} of ${labelled.length} as labelled; ` +
    `the self-check kept another kind's trace for ${changed.length}` +
    (changed.length ? ` (${countBy(changed, (row) => `${row.firstMode} → ${row.chosenMode}`)})` : '') +
    '.'
  );
}

function kindsSection(rows: ImageRow[], gaps: Results['manifestGaps']): string[] {
  const lines = ['## Kinds auto picks', ''];
  for (const scope of ['corpus', 'tune'] as const) {
    const inScope = rowsOf(rows, scope).filter((row) => row.image.expected);
    if (!inScope.length) continue;
    const wrong = inScope.filter((row) => !kindAgrees(row));
    lines.push(
      `${SCOPE_TITLES[scope]} (${scope === 'corpus' ? 'bench/kinds.tsv' : 'wide/kinds.tsv, `also` counts'}): ${inScope.length - wrong.length} of ${inScope.length} as labelled. ${firstPickLine(inScope)}`,
      '',
    );
    if (wrong.length) {
      lines.push('| image | labelled | auto chose | why a person expects it |', '|---|---|---|---|');
      for (const row of wrong) {
        lines.push(tableRow([row.image.file, `${row.image.expected}${row.image.also ? ` or ${row.image.also}` : ''}`, `**${row.chosen}**`, row.image.why ?? '']));
      }
      lines.push('');
    }
  }
  const holdout = rowsOf(rows, 'holdout');
  if (holdout.length) {
    const wrong = holdout.filter((row) => !kindAgrees(row));
    lines.push(
      `${SCOPE_TITLES.holdout}: ${holdout.length - wrong.length} of ${holdout.length} as labelled` +
        (wrong.length ? `; labelled → chosen: ${countBy(wrong, (row) => `${row.image.expected} → ${row.chosenMode}`)}` : '') +
        `. ${firstPickLine(holdout)}`,
      '',
    );
  }
  if (gaps.missing.length) lines.push(`Listed in bench/kinds.tsv but not in the corpus: ${gaps.missing.join(', ')}.`, '');
  if (gaps.unlabelled.length) lines.push(`Not listed in bench/kinds.tsv: ${gaps.unlabelled.join(', ')}.`, '');
  return lines;
}

/** The named images whose worst region is worst, with the baselines' worst regions beside. */
function worstRegionSection(rows: ImageRow[]): string[] {
  const shown = rows.filter((row) => named(row) && !row.error);
  if (!shown.length) return [];
  const worst = [...shown].sort((a, b) => b.ours.worstDe - a.ours.worstDe).slice(0, 12);
  const worseThanVtracer = shown
    .filter((row) => row.vtracer && row.ours.worstDe > row.vtracer.comparison.worstDe)
    .sort((a, b) => b.ours.worstDe - (b.vtracer?.comparison.worstDe ?? 0) - (a.ours.worstDe - (a.vtracer?.comparison.worstDe ?? 0)))
    .slice(0, 12);
  const table = (list: ImageRow[]): string[] => [
    '| image | part | auto chose | SSIM | worst-window SSIM | worst ΔE | VTracer worst ΔE | Lanczos worst ΔE | mean ΔE |',
    '|---|---|---|---|---|---|---|---|---|',
    ...list.map((row) =>
      tableRow([
        row.image.file,
        SCOPE_TITLES[row.image.part],
        row.chosen,
        fixed(row.ours.ssim),
        fixed(row.ours.worstSsim),
        row.ours.worstDe.toFixed(1),
        row.vtracer ? row.vtracer.comparison.worstDe.toFixed(1) : '–',
        row.lanczos ? row.lanczos.worstDe.toFixed(1) : '–',
        row.ours.meanDe.toFixed(2),
      ]),
    ),
    '',
  ];
  return [
    '## Worst regions (corpus and tune part)',
    '',
    'The local measure (method above): the worst window’s mean Oklab ΔE (×100), where a lost feature or a',
    'bled colour shows even when the mean SSIM is fine. The twelve highest:',
    '',
    ...table(worst),
    'The twelve whose worst region is furthest above raw VTracer’s (where our result is locally worse than the baseline):',
    '',
    ...(worseThanVtracer.length ? table(worseThanVtracer) : ['None.', '']),
  ];
}

/** The smooth crop's steps, ours against VTracer's, where measured. */
function stepsOf(crop: CropRow): string {
  if (crop.ours.steps === undefined) return '';
  return ` steps ${crop.ours.steps.toFixed(2)}${crop.vtracer.steps === undefined ? '' : ` vs ${crop.vtracer.steps.toFixed(2)}`}`;
}

function cropsSection(rows: ImageRow[]): string[] {
  const large = rows.filter((row) => row.crops);
  if (!large.length) return [];
  const lines = ['## Large images at 100 %', '', ...CROP_METHOD, '', ...STEP_METHOD, ''];
  const shown = large.filter(named);
  if (shown.length) {
    lines.push(
      `| image | part | auto chose | crop | at | SSIM | VTracer 1.5 MP SSIM | ≥ VTracer − ${CROP_BELOW_VTRACER} | worst ΔE | VTracer worst ΔE | steps | VTracer steps |`,
      '|---|---|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const row of shown) {
      for (const crop of row.crops ?? []) {
        lines.push(
          tableRow([
            row.image.file,
            SCOPE_TITLES[row.image.part],
            row.chosen,
            crop.crop.name,
            `${crop.crop.left}, ${crop.crop.top}`,
            fixed(crop.ours.ssim),
            fixed(crop.vtracer.ssim),
            crop.ours.ssim >= crop.vtracer.ssim - CROP_BELOW_VTRACER ? 'yes' : '**no**',
            crop.ours.worstDe.toFixed(1),
            crop.vtracer.worstDe.toFixed(1),
            crop.ours.steps?.toFixed(2) ?? '',
            crop.vtracer.steps?.toFixed(2) ?? '',
          ]),
        );
      }
    }
    lines.push('');
  }
  const holdout = large.filter((row) => !named(row));
  if (holdout.length) {
    const crops = holdout.flatMap((row) => row.crops ?? []);
    const below = crops.filter((crop) => crop.ours.ssim < crop.vtracer.ssim - CROP_BELOW_VTRACER);
    lines.push(
      `Hold-out part: ${holdout.length} large images, ${crops.length} crops; ${below.length} below VTracer − ${CROP_BELOW_VTRACER}; ` +
        `median crop SSIM ${fixed(median(crops.map((crop) => crop.ours.ssim)))} vs VTracer’s ${fixed(median(crops.map((crop) => crop.vtracer.ssim)))}.`,
      '',
    );
  }
  return lines;
}

function smallIconsSection(rows: ImageRow[]): string[] {
  const icons = rows.filter((row) => row.image.file.startsWith('wide/small/'));
  if (!icons.length) return [];
  const lines = [
    '## wide/small at 512 px',
    '',
    'Each icon (24–128 px) converted, its SVG rendered at 512 px and compared with the 512 px render of the',
    'same source SVG (wide/small-ref); the baselines are raw VTracer’s SVG of the same small input at 512 px',
    'and the input enlarged with Lanczos 3.',
    '',
  ];
  const tune = icons.filter(named);
  if (tune.length) {
    lines.push(
      '| icon | px | auto chose | ms | KB | SSIM | Lanczos SSIM | VTracer SSIM | worst ΔE | Lanczos worst ΔE | VTracer worst ΔE | coverage |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...tune.map((row) =>
        tableRow([
          row.image.file.replace('wide/small/', ''),
          row.width,
          row.chosen,
          row.timeMs,
          kb(row.bytes),
          fixed(row.ours.ssim),
          fixed(row.lanczos?.ssim),
          fixed(row.vtracer?.comparison.ssim),
          row.ours.worstDe.toFixed(1),
          row.lanczos ? row.lanczos.worstDe.toFixed(1) : '–',
          row.vtracer ? row.vtracer.comparison.worstDe.toFixed(1) : '–',
          signedPercent(row.ours.coverage),
        ]),
      ),
      '',
    );
  }
  lines.push('| part | icons | median SSIM | Lanczos | VTracer | median worst ΔE | Lanczos | VTracer |', '|---|---|---|---|---|---|---|---|');
  for (const scope of ['tune', 'holdout', 'wide'] as const) {
    const inScope = rowsOf(icons, scope);
    if (!inScope.length) continue;
    const m = (pick: (row: ImageRow) => number | undefined): string => fixed(median(inScope.map((row) => pick(row) ?? Number.NaN)));
    const m1 = (pick: (row: ImageRow) => number | undefined): string => median(inScope.map((row) => pick(row) ?? Number.NaN)).toFixed(1);
    lines.push(
      tableRow([
        SCOPE_TITLES[scope],
        inScope.length,
        m((row) => row.ours.ssim),
        m((row) => row.lanczos?.ssim),
        m((row) => row.vtracer?.comparison.ssim),
        m1((row) => row.ours.worstDe),
        m1((row) => row.lanczos?.worstDe),
        m1((row) => row.vtracer?.comparison.worstDe),
      ]),
    );
  }
  lines.push('');
  return lines;
}

/** The hold-out part by kind: counts and medians only. */
function holdoutSection(rows: ImageRow[]): string[] {
  const holdout = rowsOf(rows, 'holdout');
  if (!holdout.length) return [];
  const lines = [
    '## Hold-out part in aggregate',
    '',
    'The hold-out part of wide/ (bench/wide-split.tsv) is measured, never tuned on, and named nowhere in this',
    'report. Medians by labelled kind:',
    '',
    '| kind | images | kind as labelled | destroyed | median SSIM | VTracer | median worst ΔE | VTracer | locally worse than VTracer (worst ΔE) | median ms |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const kind of [...KINDS, 'all'] as const) {
    const inKind = kind === 'all' ? holdout : holdout.filter((row) => row.image.expected === kind);
    if (!inKind.length) continue;
    const m = (pick: (row: ImageRow) => number | undefined, digits = 4): string => fixed(median(inKind.map((row) => pick(row) ?? Number.NaN)), digits);
    lines.push(
      tableRow([
        kind === 'all' ? '**all**' : kind,
        inKind.length,
        inKind.filter(kindAgrees).length,
        inKind.filter((row) => destroyedSigns(row).length).length,
        m((row) => row.ours.ssim),
        m((row) => row.vtracer?.comparison.ssim),
        m((row) => row.ours.worstDe, 1),
        m((row) => row.vtracer?.comparison.worstDe, 1),
        inKind.filter((row) => row.vtracer && row.ours.worstDe > row.vtracer.comparison.worstDe).length,
        m((row) => row.timeMs, 0),
      ]),
    );
  }
  lines.push('');
  return lines;
}

function selfCheck(row: ImageRow): string {
  if (!row.check) return '–';
  const retrace = row.check.retraced ? `, retraced ${row.check.retraceMs} ms` : '';
  const signatures = row.check.signatures.length ? ` (${row.check.signatures.join(', ')})` : '';
  return `${fixed(row.check.fidelity, 3)}${retrace}${signatures}`;
}

function perImageTable(rows: ImageRow[]): string[] {
  return [
    '| image | size | compared | labelled | auto chose | ms | KB | nodes | SSIM | worst-window SSIM | mean ΔE | worst ΔE | coverage | VTracer ms | VTracer KB | VTracer SSIM | VTracer worst ΔE | Lanczos SSIM | Potrace SSIM | self-check |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((row) =>
      tableRow([
        row.image.file,
        `${row.width}×${row.height}`,
        row.compared === 'reference' ? `ref ${row.compareWidth}` : `${row.compared} ${row.compareWidth}×${row.compareHeight}`,
        `${row.image.expected ?? '–'}${row.image.also ? ` / ${row.image.also}` : ''}`,
        row.error ? `**failed**` : kindAgrees(row) || !row.image.expected ? row.chosen : `**${row.chosen}**`,
        row.timeMs,
        kb(row.bytes),
        row.nodes,
        fixed(row.ours.ssim),
        fixed(row.ours.worstSsim),
        row.ours.meanDe.toFixed(2),
        row.ours.worstDe.toFixed(1),
        Math.abs(row.ours.coverage) > COVERAGE_LIMIT ? `**${signedPercent(row.ours.coverage)}**` : signedPercent(row.ours.coverage),
        row.vtracer ? row.vtracer.timeMs.toFixed(0) : '–',
        row.vtracer ? kb(row.vtracer.bytes) : '–',
        fixed(row.vtracer?.comparison.ssim),
        row.vtracer ? row.vtracer.comparison.worstDe.toFixed(1) : '–',
        fixed(row.lanczos?.ssim),
        fixed(row.potrace?.ssim),
        selfCheck(row),
      ]),
    ),
    '',
  ];
}

export interface SplitCounts {
  tune: number;
  tuneSources: number;
  holdout: number;
  holdoutSources: number;
}

export const method = (split: SplitCounts): string[] => [
  '## Method',
  '',
  '**Sets.** The corpus (../shared/corpus, see its SOURCES.md): every image one folder below it, and the',
  'emoji pairs of upscale/ (45 images, each labelled with the kind a person expects in bench/kinds.tsv).',
  'The wide set (../shared/corpus/wide, see its SOURCES.md): 108 labelled inputs from 25 repositories',
  '(wide/kinds.tsv: file, kind, why, and `also`, a second kind that is as right). wide/ is split by source',
  `into a **tune** part (${split.tune} images, ${split.tuneSources} sources) and a **hold-out** part (${split.holdout} images, ${split.holdoutSources} sources) in`,
  'bench/wide-split.tsv, made by bench/wide-split.ts: each source (a repository; for pop-os/wallpapers, a',
  'gallery of unrelated authors, the author) goes to one side by a hash, and the first hash salt whose',
  'split puts 45–55 % of the images, a third to two thirds of every kind and of small/, and a large photo',
  'on each side is kept. The engine may be tuned on the tune part; the hold-out part is only measured,',
  'and reported only in aggregate.',
  '',
  '**Conversions.** Each image is converted at the default params, one at a time, as the service converts',
  'it: in a worker process of the engine pool (libvips on one thread, its cache off), which runs the',
  'workers’ warm-up before it takes the first image (src/engine/runtime/warm-up.ts: six small conversions,',
  'one through each path), while the bench measures in its own process. Time is the engine’s',
  '`processingTimeMs` in the worker (decode, trace, self-check, write). Baselines: raw VTracer through the same binding at its command-line',
  'defaults (color, stacked, filter_speckle 4, color_precision 6, gradient_step 16, spline,',
  'corner_threshold 60, segment_length 4, splice_threshold 45, path_precision 2) on every pixel of the',
  "input; for images labelled ink (`sketch`), Debian's `potrace -s` on the input thresholded at 50 % grey;",
  'for inputs with a larger reference, the input enlarged with Lanczos 3 (sharp). Baselines are cached in',
  'bench/.cache (`BENCH_CACHE_DIR` points elsewhere).',
  '',
  `**Where images are compared.** At most ${COMPARE_MAX_SIDE} px on the long side (“1×”: fidelity as seen, not per`,
  `source pixel). Inputs of ${SMALL_SIDE} px or less are compared larger: against their larger reference where`,
  `there is one (wide/small-ref at 512 px, upscale/emoji512), else at ${SMALL_FACTOR}× against the input enlarged`,
  '(nearest neighbour for pixel art, Lanczos 3 otherwise). SVGs are rendered with resvg at that size.',
  '',
  '**Measures** (bench/compare.ts). Reference and candidate are composited on white and on black.',
  '- *SSIM*: mean SSIM (Wang et al. 2004; 11×11 Gaussian window, σ 1.5) on BT.601 luma; the lower of the',
  '  two backgrounds. The targets use it.',
  '- *Worst region*: the image is cut into square windows of a sixteenth of its long side (at least 8 px;',
  '  32 px at 512), half a window apart. Per pixel, the colour difference ΔE_ok is the Euclidean distance in',
  '  Oklab (Björn Ottosson, “A perceptual color space for image processing”, 2020,',
  '  https://bottosson.github.io/posts/oklab/; sRGB linearised, his M1, cube root, his M2), the larger of',
  '  the two backgrounds, ×100 (about 2 is just noticeable; above 10 a person sees a fault). *Worst ΔE*',
  '  is the highest window mean; *worst-window SSIM* the lowest window mean of the SSIM map (per pixel the',
  '  lower background). A lost eye, a vanished light icon or a colour bled into its neighbour is a few per',
  '  cent of the image: the mean SSIM barely moves, the worst window does. *Mean ΔE* is the image mean.',
  '- *Coverage*: the share of pixels with alpha ≥ 0.5 in the rendered SVG minus that in the reference.',
  '',
  ...CROP_METHOD,
  '',
  `**Destroyed** (issue 18): the engine fails; coverage changes by more than ${COVERAGE_LIMIT * 100} % of the image; SSIM is more`,
  `than ${BELOW_VTRACER} below raw VTracer’s; or a 100 % crop is more than ${CROP_BELOW_VTRACER} below VTracer’s of the image shrunk to 1.5 MP.`,
  '`auto` agrees with a label when the kind of the trace it returns is `kind` or `also`; the classifier’s own',
  'pick, traced first, is counted beside it (the self-check may keep another kind’s trace, such as ink that',
  'scored low traced again in tones, which counts as a photograph). The engine’s self-check, when it reports one',
  '(`TraceResult.check`), is shown per image with its retraces, whose time is also counted apart.',
];

export function resultSections(results: Results): string[] {
  const { rows, scopes } = results;
  const named = (scope: Scope): ImageRow[] => rowsOf(rows, scope);
  const allTime = results.time.all;
  return [
    '## Targets',
    '',
    '### Issue 18: no destroyed result, `auto` right on unseen images',
    '',
    ...robustnessTable(results.robustness, scopes),
    '',
    '### Time (both sets, one conversion at a time on one core)',
    '',
    ...targetTable(results.timeTargets),
    '',
    ...timeTable(results.time),
    '',
    allTime ? `Self-check: ${retraceSummary(allTime)}.` : '',
    '',
    ...(results.corpusTargets.length ? ['### Earlier rounds (corpus)', '', ...targetTable(results.corpusTargets), ''] : []),
    ...destroyedSection(rows, scopes),
    ...kindsSection(rows, results.manifestGaps),
    ...worstRegionSection(rows),
    ...cropsSection(rows),
    ...smallIconsSection(rows),
    ...holdoutSection(rows),
    ...(results.inkRows.length
      ? [
          '## Ink images at full resolution (corpus)',
          '',
          'Images of kind `sketch` in bench/kinds.tsv. SSIM against the original at its own size (above',
          `${FULL_RESOLUTION_MAX_PIXELS / 1e6} MP, the largest size within it), on white and on black, the lower one; fill colours are`,
          'the distinct fills of the SVG, background included. VTracer’s colour trace is shown, not a target.',
          '',
          ...inkTable(results.inkRows),
        ]
      : []),
    ...(results.upscaleRows.length
      ? ['## Resolution independence (corpus)', '', ...UPSCALE_METHOD, '', ...upscaleTables(results.upscaleRows, '###', results.upscaleSkipped)]
      : []),
    ...(named('corpus').length ? ['## Per image: corpus', '', ...perImageTable(named('corpus'))] : []),
    ...(named('tune').length ? ['## Per image: wide/ tune part', '', ...perImageTable(named('tune'))] : []),
    ...enhanceSection(results.enhanceRows),
  ];
}

function enhanceSection(rows: EnhanceRow[]): string[] {
  if (rows.length === 0) return [];
  const meanOf = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
  return [
    '## inputEnhance on photos and scans (corpus)',
    '',
    'The same conversion with `inputEnhance: true` (for photos, specks of one or two pixels merged into',
    'their surroundings after the palette step; for line art, a median and small-image upscale), on the',
    'photo and document images.',
    '',
    '| image | SSIM off | SSIM on | KB off | KB on | ms off | ms on |',
    '|---|---|---|---|---|---|---|',
    ...rows.map((row) =>
      tableRow([row.file, fixed(row.off.ssim), fixed(row.on.ssim), kb(row.off.bytes), kb(row.on.bytes), row.off.timeMs.toFixed(0), row.on.timeMs.toFixed(0)]),
    ),
    tableRow([
      '**mean**',
      fixed(meanOf(rows.map((r) => r.off.ssim))),
      fixed(meanOf(rows.map((r) => r.on.ssim))),
      kb(meanOf(rows.map((r) => r.off.bytes))),
      kb(meanOf(rows.map((r) => r.on.bytes))),
      meanOf(rows.map((r) => r.off.timeMs)).toFixed(0),
      meanOf(rows.map((r) => r.on.timeMs)).toFixed(0),
    ]),
    '',
  ];
}

/** One scope's times on one console line (the time table's figures, for runs without baselines). */
export function timeLine(scope: Scope, t: TimeFigures): string {
  return (
    `time      ${SCOPE_TITLES[scope]}: ${t.images} images, mean ${t.meanMs.toFixed(0)} ms, p95 ${t.p95Ms.toFixed(0)} ms, ` +
    `max ${t.maxMs.toFixed(0)} ms (${t.slowest}); ≤ ${SMALL_SIDE} px: ${t.smallImages}, median ${fixed(t.smallMedianMs, 0)} ms; ` +
    `retraced ${t.retraced} of ${t.checked}, ${(t.retraceMs / 1000).toFixed(1)} s of ${(t.totalMs / 1000).toFixed(1)} s`
  );
}

/** The hold-out part's kinds in aggregate: how many `auto` got as labelled, the wrong ones by label and pick. */
export function holdoutKinds(holdout: ImageRow[]): string {
  const wrong = holdout.filter((row) => !kindAgrees(row));
  return (
    `hold-out  ${holdout.length} images: kind as labelled ${holdout.length - wrong.length}` +
    (wrong.length ? ` (labelled → chosen: ${countBy(wrong, (row) => `${row.image.expected} → ${row.chosenMode}`)})` : '') +
    `, classifier's own pick ${holdout.filter(firstKindAgrees).length}`
  );
}

/** The names and figures the console ends a run with: what missed, and where. */
export function printSummary(results: Results): void {
  for (const row of results.rows.filter((r) => named(r) && destroyedSigns(r).length)) {
    console.log(`destroyed ${row.image.file} (${row.chosen}): ${destroyedSigns(row).join('; ')}`);
  }
  for (const row of results.rows.filter((r) => named(r) && r.image.expected && !kindAgrees(r))) {
    console.log(`kind      ${row.image.file}: labelled ${row.image.expected}${row.image.also ? ` or ${row.image.also}` : ''}, auto chose ${row.chosenMode}`);
  }
  const holdout = rowsOf(results.rows, 'holdout');
  if (holdout.length) {
    const destroyed = holdout.filter((row) => destroyedSigns(row).length);
    console.log(
      `${holdoutKinds(holdout)}; destroyed ${destroyed.length}` +
        (destroyed.length ? ` (${countBy(destroyed, (row) => `${row.image.expected ?? '–'}: ${signKinds(row)}`)})` : ''),
    );
  }
  const worst = results.rows.filter((r) => named(r) && !r.error).sort((a, b) => b.ours.worstDe - a.ours.worstDe).slice(0, 8);
  for (const row of worst) {
    console.log(
      `worst ΔE  ${row.image.file}: ${row.ours.worstDe.toFixed(1)} (VTracer ${row.vtracer ? row.vtracer.comparison.worstDe.toFixed(1) : '–'}${row.lanczos ? `, Lanczos ${row.lanczos.worstDe.toFixed(1)}` : ''}); SSIM ${fixed(row.ours.ssim)}`,
    );
  }
  if (results.time.all) console.log(`self-check: ${retraceSummary(results.time.all)}`);
}
