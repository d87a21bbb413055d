// The wide set (../shared/corpus/wide): 108 labelled inputs from 25 repositories, and the split of
// it into a part the engine is tuned on and a part that is only measured (bench/wide-split.tsv,
// made by bench/wide-split.ts). The hold-out part is named only in that file: reports give its
// figures in aggregate, so whoever tunes the engine never sees which images they are.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KINDS, SHARED_CORPUS_DIR, type ImageKindName } from './corpus.ts';

export const WIDE_DIR = join(SHARED_CORPUS_DIR, 'wide');
export const WIDE_SPLIT_PATH = fileURLToPath(new URL('./wide-split.tsv', import.meta.url));

export type WidePart = 'tune' | 'holdout';

export interface WideEntry {
  /** Path relative to wide/, as kinds.tsv writes it (`small/fa_house_white_32.png`). */
  file: string;
  kind: ImageKindName;
  /** A second kind that is as right for this image, if any. */
  also?: ImageKindName;
  why: string;
}

function asKind(value: string, where: string): ImageKindName {
  if (!(KINDS as readonly string[]).includes(value)) throw new Error(`${where}: "${value}" is not a kind (${KINDS.join(', ')})`);
  return value as ImageKindName;
}

/** wide/kinds.tsv: a header line, then file, kind, why, also (tab-separated). */
export function readWideKinds(dir = WIDE_DIR): WideEntry[] {
  const path = join(dir, 'kinds.tsv');
  const entries: WideEntry[] = [];
  for (const [index, line] of readFileSync(path, 'utf8').split('\n').entries()) {
    if (index === 0 || !line.trim() || line.startsWith('#')) continue;
    const [file = '', kind = '', why = '', also = ''] = line.split('\t');
    entries.push({ file, kind: asKind(kind, `${path}: ${file}`), why, ...(also.trim() ? { also: asKind(also.trim(), `${path}: ${file}`) } : {}) });
  }
  return entries;
}

/**
 * The source of each wide/ file as SOURCES.md names it: the repository, except for
 * pop-os/wallpapers, a gallery of works by unrelated photographers and one illustrator, where the
 * source is the author (Unsplash files are named `author-id`; Kate Hazen's `kate-hazen-…`). Without
 * that exception the three large photos, all from that gallery, could not be on both sides.
 */
export function readWideSources(dir = WIDE_DIR): Map<string, string> {
  const sources = new Map<string, string>();
  for (const line of readFileSync(join(dir, 'SOURCES.md'), 'utf8').split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    // | file | kind | size | bytes | format | repo / `path` @ commit | licence | what was done |
    const file = cells[1] ?? '';
    const origin = /^([\w.-]+\/[\w.-]+) \/ `([^`]+)`/.exec(cells[6] ?? '');
    if (!origin || file.startsWith('small-ref/') || !/\.(png|jpe?g|webp)$/i.test(file)) continue;
    const [, repository = '', path = ''] = origin;
    sources.set(file, repository === 'pop-os/wallpapers' ? `${repository}#${wallpaperAuthor(path)}` : repository);
  }
  return sources;
}

function wallpaperAuthor(path: string): string {
  const name = (path.split('/').pop() ?? path).replace(/\.[a-z]+$/i, '');
  if (name.startsWith('kate-hazen-')) return 'kate-hazen';
  return name.replace(/-\d+$/, '');
}

export interface WideSplit {
  part: Map<string, WidePart>;
  source: Map<string, string>;
}

/** bench/wide-split.tsv: file, source, part. Fails when it no longer matches wide/kinds.tsv. */
export function readWideSplit(entries: WideEntry[], path = WIDE_SPLIT_PATH): WideSplit {
  if (!existsSync(path)) throw new Error(`${path} is missing: run npx tsx bench/wide-split.ts`);
  const part = new Map<string, WidePart>();
  const source = new Map<string, string>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim() || line.startsWith('#') || line.startsWith('file\t')) continue;
    const [file = '', from = '', side = ''] = line.split('\t');
    if (side !== 'tune' && side !== 'holdout') throw new Error(`${path}: "${side}" is neither tune nor holdout (${file})`);
    part.set(file, side);
    source.set(file, from);
  }
  const unsplit = entries.filter((entry) => !part.has(entry.file)).map((entry) => entry.file);
  if (unsplit.length) throw new Error(`${path} does not place ${unsplit.join(', ')}: run npx tsx bench/wide-split.ts`);
  const sides = new Map<string, WidePart>();
  for (const [file, from] of source) {
    const side = part.get(file) as WidePart;
    if ((sides.get(from) ?? side) !== side) throw new Error(`${path}: source ${from} is on both sides`);
    sides.set(from, side);
  }
  return { part, source };
}
