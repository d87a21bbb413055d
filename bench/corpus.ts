// Where the benchmarks find their images: the shared corpus or a held-out set laid out like it
// (one folder per category, upscale/ with its pairs), and the manifest of the kind a person
// expects `mode: auto` to pick for each image.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The value after `name` on the command line (`--dir PATH`), if given. */
export function argumentValue(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

export const HELD_OUT_DIR = argumentValue('--dir');
/** The shared corpus (../shared/corpus), whatever --dir says: wide/ lives there. */
export const SHARED_CORPUS_DIR = fileURLToPath(new URL('../../shared/corpus/', import.meta.url));
export const CORPUS_DIR = HELD_OUT_DIR ?? SHARED_CORPUS_DIR;

export interface CorpusImage {
  /** Path relative to the corpus, `category/name`. */
  file: string;
  category: string;
}

const RASTER_IMAGE = /\.(png|jpe?g|webp)$/i;

/** Folders of the corpus root that are not categories: pairs (upscale/) and the wide set (wide/). */
const NOT_CATEGORIES = new Set(['upscale', 'wide']);

/**
 * The raster images one folder below the corpus root, upscale/ and wide/ left out (measured apart).
 */
export function listCorpus(dir = CORPUS_DIR): CorpusImage[] {
  const entries: CorpusImage[] = [];
  for (const category of readdirSync(dir, { withFileTypes: true })) {
    if (!category.isDirectory() || NOT_CATEGORIES.has(category.name)) continue;
    for (const entry of readdirSync(join(dir, category.name), { withFileTypes: true })) {
      if (entry.isFile() && RASTER_IMAGE.test(entry.name)) entries.push({ file: `${category.name}/${entry.name}`, category: category.name });
    }
  }
  return entries.sort((a, b) => a.file.localeCompare(b.file));
}

/** Files of one folder below the corpus whose names match `pattern`, sorted; none if the folder is absent. */
export function listFolder(folder: string, pattern: RegExp, dir = CORPUS_DIR): string[] {
  const path = join(dir, folder);
  if (!existsSync(path)) return [];
  return readdirSync(path)
    .filter((name) => pattern.test(name))
    .sort()
    .map((name) => `${folder}/${name}`);
}

export const KINDS = ['sketch', 'logo', 'photo', 'pixelart'] as const;
export type ImageKindName = (typeof KINDS)[number];

export interface KindEntry {
  file: string;
  kind: ImageKindName;
  why: string;
}

/**
 * The manifest of expected kinds: bench/kinds.tsv for the corpus, kinds.tsv at the root of a
 * held-out set (bench/heldout-set.sh writes it). Lines: image path, kind, why; # starts a comment.
 */
export function readKindsManifest(dir = CORPUS_DIR): { path: string; entries: Map<string, KindEntry> } {
  const path = HELD_OUT_DIR ? join(dir, 'kinds.tsv') : fileURLToPath(new URL('./kinds.tsv', import.meta.url));
  const entries = new Map<string, KindEntry>();
  if (!existsSync(path)) return { path, entries };
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [file = '', kind = '', why = ''] = line.split('\t');
    if (!(KINDS as readonly string[]).includes(kind)) throw new Error(`${path}: "${kind}" is not a kind (${KINDS.join(', ')}) for ${file}`);
    entries.set(file, { file, kind: kind as ImageKindName, why });
  }
  return { path, entries };
}
