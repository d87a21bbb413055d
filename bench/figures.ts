// Figures and how the reports print them: medians, percentiles, targets met or not, table rows.

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Nearest-rank percentile. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] as number;
}

export const kb = (bytes: number): string => (bytes / 1024).toFixed(1);
export const fixed = (value: number | undefined, digits = 4): string =>
  value === undefined || Number.isNaN(value) ? '–' : value.toFixed(digits);

export interface Target {
  name: string;
  figures: string;
  met: boolean;
}

/** A targets table in the report's style. */
export function targetTable(targets: Target[]): string[] {
  return [
    '| target | figures | met |',
    '|---|---|---|',
    ...targets.map((target) => `| ${target.name} | ${target.figures} | ${target.met ? 'yes' : '**no**'} |`),
  ];
}

export function printTargets(targets: Target[]): void {
  for (const target of targets) console.log(`${target.met ? 'met   ' : 'MISSED'} ${target.name}: ${target.figures}`);
}

/** One markdown table row. */
export const tableRow = (cells: (string | number)[]): string => `| ${cells.join(' | ')} |`;
