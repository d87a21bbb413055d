// The engine's targets, per scope: the corpus, the two parts of wide/, and both sets together.
// Issue 18's (no destroyed result, `auto` right on unseen images, small icons, time) and the
// earlier rounds' corpus targets.
import { fixed, kb, median, percentile, type Target } from './figures.ts';
import type { ImageRow, Part } from './images.ts';
import { kindAgrees, SMALL_SIDE } from './images.ts';
import { CROP_PIXELS } from './crops.ts';

export type Scope = Part | 'wide' | 'all';
export const SCOPE_TITLES: Record<Scope, string> = {
  corpus: 'corpus',
  tune: 'wide/ tune',
  holdout: 'wide/ hold-out',
  wide: 'wide/ (both parts)',
  all: 'both sets',
};

export function rowsOf(rows: ImageRow[], scope: Scope): ImageRow[] {
  if (scope === 'all') return rows;
  if (scope === 'wide') return rows.filter((row) => row.image.set === 'wide');
  return rows.filter((row) => row.image.part === scope);
}

/** Share of `auto` agreeing with the labels wanted on wide/ (tune and hold-out alike). */
export const WIDE_KIND_SHARE = 0.97;
/** Opaque coverage may change by at most this share of the image. */
export const COVERAGE_LIMIT = 0.1;
/** No result more than this SSIM below raw VTracer's. */
export const BELOW_VTRACER = 0.03;
/** No 100 % crop more than this SSIM below VTracer's trace of the image shrunk to 1.5 MP. */
export const CROP_BELOW_VTRACER = 0.05;
/** The earlier rounds' margin: no corpus image other than ink more than this below VTracer. */
const VTRACER_MARGIN = 0.02;

export const TIME_MEAN_MS = 1000;
export const TIME_P95_MS = 2500;
export const TIME_MAX_MS = 10_000;
export const SMALL_MEDIAN_MS = 100;

/** What makes a result destroyed, per image; empty when none. */
export function destroyedSigns(row: ImageRow): string[] {
  const signs: string[] = [];
  if (row.error) signs.push(`failed: ${row.error}`);
  if (Math.abs(row.ours.coverage) > COVERAGE_LIMIT) signs.push(`coverage ${signedPercent(row.ours.coverage)}`);
  if (row.vtracer && row.ours.ssim < row.vtracer.comparison.ssim - BELOW_VTRACER) {
    signs.push(`SSIM ${fixed(row.ours.ssim)} vs VTracer ${fixed(row.vtracer.comparison.ssim)} (${row.compared})`);
  }
  for (const crop of row.crops ?? []) {
    if (crop.vtracer.ssim > 0 && crop.ours.ssim < crop.vtracer.ssim - CROP_BELOW_VTRACER) {
      signs.push(`100 % ${crop.crop.name} crop SSIM ${fixed(crop.ours.ssim)} vs VTracer 1.5 MP ${fixed(crop.vtracer.ssim)}`);
    }
  }
  return signs;
}

export const signedPercent = (share: number): string => `${share >= 0 ? '+' : '−'}${Math.abs(share * 100).toFixed(1)} %`;

/** A target's cell in one scope. */
export interface Cell {
  figures: string;
  met?: boolean;
}

export interface TargetRow {
  name: string;
  cells: Partial<Record<Scope, Cell>>;
}

const percentOf = (count: number, total: number): string => (total ? `${((count / total) * 100).toFixed(1)} %` : '–');

function kindCell(rows: ImageRow[], share: number): Cell | undefined {
  const labelled = rows.filter((row) => row.image.expected);
  if (!labelled.length) return undefined;
  const agree = labelled.filter(kindAgrees).length;
  return { figures: `${percentOf(agree, labelled.length)} (${agree} of ${labelled.length})`, met: agree / labelled.length >= share };
}

function countCell(rows: ImageRow[], failing: (row: ImageRow) => boolean): Cell | undefined {
  if (!rows.length) return undefined;
  const count = rows.filter(failing).length;
  return { figures: count ? `${count} of ${rows.length}` : `none of ${rows.length}`, met: count === 0 };
}

const isSmallIcon = (row: ImageRow): boolean => row.image.file.startsWith('wide/small/');

/** Issue 18's quality targets in every scope that has rows. */
export function robustnessTargets(rows: ImageRow[], scopes: Scope[]): TargetRow[] {
  const per = (make: (inScope: ImageRow[], scope: Scope) => Cell | undefined): Partial<Record<Scope, Cell>> => {
    const cells: Partial<Record<Scope, Cell>> = {};
    for (const scope of scopes) {
      const cell = make(rowsOf(rows, scope), scope);
      if (cell) cells[scope] = cell;
    }
    return cells;
  };
  const baselined = (inScope: ImageRow[]): ImageRow[] => inScope.filter((row) => row.vtracer);
  const large = (inScope: ImageRow[]): ImageRow[] => inScope.filter((row) => row.crops);
  return [
    {
      name: `\`auto\` picks the labelled kind (corpus: 100 %, bench/kinds.tsv; wide/: ≥ ${WIDE_KIND_SHARE * 100} %, \`also\` counts)`,
      cells: per((inScope, scope) => (scope === 'all' ? undefined : kindCell(inScope, scope === 'corpus' ? 1 : WIDE_KIND_SHARE))),
    },
    {
      name: 'no engine failure',
      cells: per((inScope) => countCell(inScope, (row) => row.error !== undefined)),
    },
    {
      name: `no opaque coverage change over ${COVERAGE_LIMIT * 100} % of the image`,
      cells: per((inScope) => countCell(inScope, (row) => Math.abs(row.ours.coverage) > COVERAGE_LIMIT)),
    },
    {
      name: `no result below raw VTracer − ${BELOW_VTRACER} SSIM (1×; ≤ ${SMALL_SIDE} px at 4× or at the reference)`,
      cells: per((inScope) => {
        const compared = baselined(inScope);
        return compared.length ? countCell(compared, (row) => row.ours.ssim < (row.vtracer?.comparison.ssim ?? 0) - BELOW_VTRACER) : undefined;
      }),
    },
    {
      name: `no 100 % crop of an image of ${CROP_PIXELS / 1e6} MP or more below VTracer (1.5 MP) − ${CROP_BELOW_VTRACER}`,
      cells: per((inScope) => {
        const crops = large(inScope).flatMap((row) => row.crops ?? []).filter((crop) => crop.vtracer.ssim > 0);
        if (!crops.length) return undefined;
        const below = crops.filter((crop) => crop.ours.ssim < crop.vtracer.ssim - CROP_BELOW_VTRACER).length;
        const images = large(inScope).length;
        return { figures: `${below ? below : 'none'} of ${crops.length} crops (${images} image${images === 1 ? '' : 's'})`, met: below === 0 };
      }),
    },
    {
      name: 'no destroyed result (any of the three signs, or a failure)',
      cells: per((inScope) => countCell(inScope, (row) => destroyedSigns(row).length > 0)),
    },
    {
      name: 'wide/small at 512 px: median SSIM ≥ the Lanczos enlargement’s median',
      cells: per((inScope) => {
        const icons = inScope.filter((row) => isSmallIcon(row) && row.lanczos);
        if (!icons.length) return undefined;
        const ours = median(icons.map((row) => row.ours.ssim));
        const lanczos = median(icons.map((row) => row.lanczos?.ssim ?? 0));
        return { figures: `${fixed(ours)} vs ${fixed(lanczos)} (${icons.length} icons)`, met: ours >= lanczos };
      }),
    },
    {
      name: 'wide/small at 512 px: none below VTracer’s SSIM',
      cells: per((inScope) => {
        const icons = inScope.filter((row) => isSmallIcon(row) && row.vtracer);
        return icons.length ? countCell(icons, (row) => row.ours.ssim < (row.vtracer?.comparison.ssim ?? 0)) : undefined;
      }),
    },
  ];
}

/** The earlier rounds' targets on the corpus images one folder down (not the emoji pairs). */
export function corpusTargets(rows: ImageRow[]): Target[] {
  const images = rows.filter((row) => row.image.set === 'corpus' && !row.image.file.startsWith('upscale/') && row.vtracer);
  if (images.length === 0) return [];
  const oursSsim = median(images.map((row) => row.ours.ssim));
  const vtracerSsim = median(images.map((row) => row.vtracer?.comparison.ssim ?? 0));
  const oursBytes = median(images.map((row) => row.bytes));
  const vtracerBytes = median(images.map((row) => row.vtracer?.bytes ?? 0));
  const worst = images
    .filter((row) => row.image.expected !== 'sketch')
    .map((row) => ({ file: row.image.file, gap: (row.vtracer?.comparison.ssim ?? 0) - row.ours.ssim }))
    .sort((a, b) => b.gap - a.gap)[0];
  const pixelArt = images.filter((row) => row.image.expected === 'pixelart');
  const lowestPixelArt = Math.min(...pixelArt.map((row) => row.ours.ssim));
  return [
    {
      name: 'median SSIM ≥ VTracer’s',
      figures: `${fixed(oursSsim)} vs ${fixed(vtracerSsim)} (${images.length} images)`,
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
  ];
}

export interface TimeFigures {
  images: number;
  meanMs: number;
  p95Ms: number;
  maxMs: number;
  /** The slowest image, named only outside the hold-out part. */
  slowest: string;
  smallImages: number;
  smallMedianMs: number;
  /** Images the engine's self-check traced again, when it reports itself. */
  checked: number;
  retraced: number;
  retraceMs: number;
  totalMs: number;
}

export function timeFigures(rows: ImageRow[]): TimeFigures {
  const times = rows.map((row) => row.timeMs);
  const small = rows.filter((row) => Math.max(row.width, row.height) <= SMALL_SIDE);
  const slowest = [...rows].sort((a, b) => b.timeMs - a.timeMs)[0];
  const checked = rows.filter((row) => row.check);
  return {
    images: rows.length,
    meanMs: times.reduce((a, b) => a + b, 0) / Math.max(1, times.length),
    p95Ms: times.length ? percentile(times, 95) : Number.NaN,
    maxMs: times.length ? Math.max(...times) : Number.NaN,
    slowest: slowest ? (slowest.image.part === 'holdout' ? `a hold-out ${slowest.image.expected ?? ''} image` : slowest.image.file) : '–',
    smallImages: small.length,
    smallMedianMs: median(small.map((row) => row.timeMs)),
    checked: checked.length,
    retraced: checked.filter((row) => row.check?.retraced).length,
    retraceMs: checked.reduce((sum, row) => sum + (row.check?.retraceMs ?? 0), 0),
    totalMs: times.reduce((a, b) => a + b, 0),
  };
}

/** The time targets, over both sets (one conversion at a time, one libvips thread). */
export function timeTargets(time: TimeFigures): Target[] {
  if (time.images === 0) return [];
  return [
    { name: `mean time per image < ${TIME_MEAN_MS} ms`, figures: `${time.meanMs.toFixed(0)} ms over ${time.images} images`, met: time.meanMs < TIME_MEAN_MS },
    { name: `p95 time per image < ${TIME_P95_MS} ms`, figures: `${time.p95Ms.toFixed(0)} ms`, met: time.p95Ms < TIME_P95_MS },
    {
      name: `images of ${SMALL_SIDE} px or less: median < ${SMALL_MEDIAN_MS} ms`,
      figures: `${fixed(time.smallMedianMs, 0)} ms over ${time.smallImages} images`,
      met: time.smallImages === 0 || time.smallMedianMs < SMALL_MEDIAN_MS,
    },
    { name: `no image over ${TIME_MAX_MS / 1000} s`, figures: `slowest ${time.maxMs.toFixed(0)} ms (${time.slowest})`, met: time.maxMs <= TIME_MAX_MS },
  ];
}

export function retraceSummary(time: TimeFigures): string {
  if (time.checked === 0) return 'the engine reports no self-check (TraceResult.check absent): no retraces to count';
  return (
    `${time.retraced} of ${time.checked} images traced again by the self-check; retraces took ` +
    `${(time.retraceMs / 1000).toFixed(1)} s of ${(time.totalMs / 1000).toFixed(1)} s (${percentOf(time.retraceMs, time.totalMs)})`
  );
}
