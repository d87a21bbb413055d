// Test images from the shared benchmark corpus, which sits beside the repository
// (../shared/corpus from the repo root); see /work/shared/corpus/SOURCES.md for licences.

import { readFileSync } from 'node:fs';

export function corpusImage(relativePath: string): Buffer {
  return readFileSync(new URL(`../../../shared/corpus/${relativePath}`, import.meta.url));
}
