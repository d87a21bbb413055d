// What a change to the engine did, image by image, against a saved earlier run:
//   npm run bench -- --ours-only --save /tmp/before.json     (on the code before)
//   npm run bench -- --ours-only --against /tmp/before.json  (on the code after)
// The corpus and the tune part are listed image by image; the hold-out part only in aggregate
// (how many changed, by how much), so that a change can be measured there without tuning on it.

import { readFileSync, writeFileSync } from 'node:fs';
import { fixed, median } from './figures.ts';
import type { ImageRow, Part } from './images.ts';

interface SavedRow {
  file: string;
  part: Part;
  chosen: string;
  ssim: number;
  fidelity: number | null;
  bytes: number;
  timeMs: number;
}

export function saveRows(path: string, rows: ImageRow[]): void {
  const saved: SavedRow[] = rows.map((row) => ({
    file: row.image.file,
    part: row.image.part,
    chosen: row.chosen,
    ssim: row.ours.ssim,
    fidelity: row.check?.fidelity ?? null,
    bytes: row.bytes,
    timeMs: row.timeMs,
  }));
  writeFileSync(path, JSON.stringify(saved));
}

/** SSIM moves smaller than this are measurement noise (resvg and the comparison are deterministic; the trace nearly so). */
const SSIM_NOISE = 0.0005;

/** One line per changed named image, and one aggregate line per part. */
export function changeLines(path: string, rows: ImageRow[]): string[] {
  const before = new Map((JSON.parse(readFileSync(path, 'utf8')) as SavedRow[]).map((row) => [row.file, row]));
  const lines: string[] = [];
  for (const part of ['corpus', 'tune', 'holdout'] as const) {
    const pairs = rows.filter((row) => row.image.part === part && before.has(row.image.file)).map((row) => ({ row, old: before.get(row.image.file) as SavedRow }));
    if (pairs.length === 0) continue;
    const changed = pairs.filter(({ row, old }) => Math.abs(row.ours.ssim - old.ssim) >= SSIM_NOISE || row.chosen !== old.chosen || row.bytes !== old.bytes);
    if (part !== 'holdout') {
      for (const { row, old } of changed) {
        lines.push(
          `changed   ${row.image.file}: ${old.chosen === row.chosen ? row.chosen : `${old.chosen} → ${row.chosen}`}, ` +
            `SSIM ${fixed(old.ssim)} → ${fixed(row.ours.ssim)} (${signed(row.ours.ssim - old.ssim)}), ` +
            `fidelity ${fixed(old.fidelity ?? NaN, 3)} → ${fixed(row.check?.fidelity ?? NaN, 3)}, ${kb(old.bytes)} → ${kb(row.bytes)} KB, ${old.timeMs} → ${row.timeMs} ms`,
        );
      }
    }
    const deltas = changed.map(({ row, old }) => row.ours.ssim - old.ssim);
    const rose = deltas.filter((d) => d >= SSIM_NOISE);
    const fell = deltas.filter((d) => d <= -SSIM_NOISE);
    const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);
    const bytesBefore = sum(pairs.map(({ old }) => old.bytes));
    const bytesAfter = sum(pairs.map(({ row }) => row.bytes));
    const kindChanges = changed.filter(({ row, old }) => row.chosen !== old.chosen);
    // Where kinds changed: the label, the kind before and after (and the classifier's own pick now), named for no image.
    const transitions = countOf(kindChanges.map(({ row, old }) => `${row.image.expected ?? '–'}: ${old.chosen} → ${row.chosen} (first ${row.firstMode})`));
    lines.push(
      `changed   ${part}: ${changed.length} of ${pairs.length} images; SSIM rose on ${rose.length}` +
        (rose.length ? ` (most ${signed(Math.max(...rose))})` : '') +
        `, fell on ${fell.length}` +
        (fell.length ? ` (most ${signed(Math.min(...fell))})` : '') +
        `; mean over the part ${signed(sum(deltas) / pairs.length)}; kind or curves changed on ${kindChanges.length}` +
        (transitions ? ` (${transitions})` : '') +
        '; ' +
        `bytes ${signed((bytesAfter / Math.max(1, bytesBefore) - 1) * 100, 1)} %; ` +
        `median time ${fixed(median(pairs.map(({ old }) => old.timeMs)), 0)} → ${fixed(median(pairs.map(({ row }) => row.timeMs)), 0)} ms`,
    );
  }
  return lines;
}

function countOf(values: string[]): string {
  const counts = new Map<string, number>();
  for (const value of values.sort()) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, count]) => (count > 1 ? `${value} × ${count}` : value)).join(', ');
}

function signed(value: number, digits = 4): string {
  return `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(digits)}`;
}

function kb(bytes: number): string {
  return (bytes / 1024).toFixed(1);
}
