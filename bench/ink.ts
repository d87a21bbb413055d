// Ink images (kind sketch in the manifest): the service's SVG should be ink on paper, a few fill
// colours, and as faithful as potrace at the image's own size, where hairlines and hatching show.
import {
  cached,
  cacheKey,
  compareSize,
  Reference,
  traceWithPotrace,
  traceWithVtracer,
} from './measure.ts';
import { fixed, tableRow, type Target } from './figures.ts';
import { countFillColours } from './svg-paint.ts';

/**
 * Above this many pixels an image is compared at the largest size within it: SSIM holds about ten
 * float arrays of the image in memory (some 1.3 GB at this size). Every corpus image fits.
 */
export const FULL_RESOLUTION_MAX_PIXELS = 16_000_000;
const MAX_FILL_COLOURS = 3;
const POTRACE_MARGIN = 0.005;

export interface InkRow {
  file: string;
  width: number;
  height: number;
  compareWidth: number;
  compareHeight: number;
  chosen: string;
  fillColours: number;
  ours: number;
  potrace: number | null;
  vtracer: number | null;
}

export async function measureInk(
  file: string,
  bytes: Buffer,
  ours: { svg: string; width: number; height: number; chosen: string },
  withBaselines: { potrace: boolean; vtracer: boolean },
): Promise<InkRow> {
  const scale = Math.min(1, Math.sqrt(FULL_RESOLUTION_MAX_PIXELS / (ours.width * ours.height)));
  const size = compareSize(ours.width, ours.height, Math.max(ours.width, ours.height) * scale);
  const reference = new Reference(bytes, size.width, size.height);
  const sizeKey = `${size.width}x${size.height}`;
  const potrace = withBaselines.potrace
    ? await cached(cacheKey('potrace-full', bytes, `threshold128-white-${sizeKey}`), async () => ({
        ssim: await reference.fidelity({ svg: (await traceWithPotrace(bytes)).svg }),
      }))
    : null;
  const vtracer = withBaselines.vtracer
    ? await cached(cacheKey('vtracer-full', bytes, sizeKey), async () => ({
        ssim: await reference.fidelity({ svg: (await traceWithVtracer(bytes)).svg }),
      }))
    : null;
  return {
    file,
    width: ours.width,
    height: ours.height,
    compareWidth: size.width,
    compareHeight: size.height,
    chosen: ours.chosen,
    fillColours: countFillColours(ours.svg),
    ours: await reference.fidelity({ svg: ours.svg }),
    potrace: potrace?.ssim ?? null,
    vtracer: vtracer?.ssim ?? null,
  };
}

export function printInkRow(row: InkRow): void {
  console.log(
    [
      `ink ${row.file}`.padEnd(60),
      row.chosen.padEnd(16),
      `at ${row.compareWidth}×${row.compareHeight}`.padEnd(16),
      `${row.fillColours} fill colours`,
      `ssim ${fixed(row.ours)}`,
      row.potrace !== null ? `| potrace ssim ${fixed(row.potrace)}` : '',
      row.vtracer !== null ? `| vtracer ssim ${fixed(row.vtracer)}` : '',
    ].join(' '),
  );
}

export function inkTargets(rows: InkRow[]): Target[] {
  if (rows.length === 0) return [];
  const tooColourful = rows.filter((row) => row.fillColours > MAX_FILL_COLOURS);
  const most = [...rows].sort((a, b) => b.fillColours - a.fillColours)[0] as InkRow;
  const compared = rows.filter((row) => row.potrace !== null);
  const worst = compared
    .map((row) => ({ file: row.file, gap: (row.potrace as number) - row.ours }))
    .sort((a, b) => b.gap - a.gap)[0];
  return [
    {
      name: `ink images: at most ${MAX_FILL_COLOURS} fill colours (background included)`,
      figures: `${rows.length - tooColourful.length} of ${rows.length} met; most ${most.fillColours} (${most.file})`,
      met: tooColourful.length === 0,
    },
    {
      name: `ink images at full resolution: SSIM ≥ Potrace’s − ${POTRACE_MARGIN}`,
      figures: worst ? `largest shortfall ${fixed(worst.gap)} (${worst.file})` : 'potrace not run',
      met: worst !== undefined && worst.gap <= POTRACE_MARGIN,
    },
  ];
}

export function inkTable(rows: InkRow[]): string[] {
  if (rows.length === 0) return [];
  return [
    `| image | size | compared at | auto chose | fill colours | SSIM | Potrace SSIM | VTracer SSIM | ≥ Potrace − ${POTRACE_MARGIN} | ≤ ${MAX_FILL_COLOURS} colours |`,
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((row) =>
      tableRow([
        row.file,
        `${row.width}×${row.height}`,
        `${row.compareWidth}×${row.compareHeight}`,
        row.chosen,
        row.fillColours,
        fixed(row.ours),
        fixed(row.potrace ?? undefined),
        fixed(row.vtracer ?? undefined),
        row.potrace === null ? '–' : row.ours >= row.potrace - POTRACE_MARGIN ? 'yes' : '**no**',
        row.fillColours <= MAX_FILL_COLOURS ? 'yes' : '**no**',
      ]),
    ),
    '',
  ];
}
