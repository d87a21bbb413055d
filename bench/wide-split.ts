// Writes bench/wide-split.tsv: the wide set split into a part the engine is tuned on and a part
// that is only measured, by source, so that tuning on one image cannot leak into its siblings.
//
//   npx tsx bench/wide-split.ts
//
// Each source goes to one side by a hash of its name and an attempt number; attempts count up from
// 0 and the first that meets every rule below is kept, so the split is the same on every machine
// and no one chose which image goes where. Run it again only when wide/ changes.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { KINDS } from './corpus.ts';
import { readWideKinds, readWideSources, WIDE_DIR, WIDE_SPLIT_PATH, type WideEntry, type WidePart } from './wide.ts';

/** Large photos (at least this many pixels) must be on both sides. */
const LARGE_PIXELS = 8_000_000;

interface Placed extends WideEntry {
  source: string;
  large: boolean;
}

function sideOf(source: string, attempt: number): WidePart {
  return ((createHash('sha256').update(`${attempt}:${source}`).digest()[0] as number) & 1) === 0 ? 'tune' : 'holdout';
}

/** Why the split of `attempt` is not acceptable, or null when it is. */
function rejects(images: Placed[], side: (image: Placed) => WidePart): string | null {
  const share = (subset: Placed[]): number => subset.filter((image) => side(image) === 'tune').length / subset.length;
  const total = share(images);
  if (total < 0.45 || total > 0.55) return `tune holds ${(total * 100).toFixed(0)} % of the images`;
  for (const kind of KINDS) {
    const ofKind = images.filter((image) => image.kind === kind);
    const kindShare = share(ofKind);
    if (kindShare < 1 / 3 || kindShare > 2 / 3) return `tune holds ${(kindShare * 100).toFixed(0)} % of ${kind}`;
  }
  const small = share(images.filter((image) => image.file.startsWith('small/')));
  if (small < 1 / 3 || small > 2 / 3) return `tune holds ${(small * 100).toFixed(0)} % of small/`;
  const largePhotos = images.filter((image) => image.large && image.kind === 'photo');
  const largeShare = share(largePhotos);
  if (largeShare === 0 || largeShare === 1) return 'the large photos are on one side';
  return null;
}

async function main(): Promise<void> {
  const sources = readWideSources();
  const images: Placed[] = [];
  for (const entry of readWideKinds()) {
    const source = sources.get(entry.file);
    if (!source) throw new Error(`wide/SOURCES.md names no source for ${entry.file}`);
    const { width = 0, height = 0 } = await sharp(join(WIDE_DIR, entry.file), { limitInputPixels: false }).metadata();
    images.push({ ...entry, source, large: width * height >= LARGE_PIXELS });
  }
  let attempt = 0;
  for (; ; attempt++) {
    const reason = rejects(images, (image) => sideOf(image.source, attempt));
    if (reason === null) break;
    if (attempt > 10_000) throw new Error(`no acceptable split in 10,000 attempts (last: ${reason})`);
  }
  const side = (image: Placed): WidePart => sideOf(image.source, attempt);
  const lines = [
    '# The wide set split by source (bench/wide-split.ts; do not edit by hand). `tune`: the engine may be',
    '# tuned on these images. `holdout`: measured only; reports give its figures in aggregate. Whoever',
    '# tunes the engine does not open the hold-out images or look them up here.',
    `# Made by attempt ${attempt}: each source's side is bit 0 of sha256("${attempt}:<source>"), 0 = tune.`,
    'file\tsource\tpart',
    ...images
      .slice()
      .sort((a, b) => a.source.localeCompare(b.source) || a.file.localeCompare(b.file))
      .map((image) => `${image.file}\t${image.source}\t${side(image)}`),
  ];
  writeFileSync(WIDE_SPLIT_PATH, `${lines.join('\n')}\n`);
  for (const part of ['tune', 'holdout'] as const) {
    const inPart = images.filter((image) => side(image) === part);
    const kinds = KINDS.map((kind) => `${kind} ${inPart.filter((image) => image.kind === kind).length}`).join(', ');
    const small = inPart.filter((image) => image.file.startsWith('small/')).length;
    const large = inPart.filter((image) => image.large).length;
    const sourceCount = new Set(inPart.map((image) => image.source)).size;
    console.log(`${part}: ${inPart.length} images from ${sourceCount} sources (${kinds}; small/ ${small}; ≥ 8 MP ${large})`);
  }
  console.log(`wrote ${WIDE_SPLIT_PATH} (attempt ${attempt})`);
}

await main();
