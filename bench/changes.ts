// Images changed the way images are changed in the wild (saved as JPEG, halved, flattened on
// white, darkened, made grey, enlarged by repeating pixels, saved as WebP), and the labelled images
// they are applied to. Shared by bench:kinds (does `auto` keep the label) and bench:robust (is any
// changed copy destroyed).
import { join } from 'node:path';
import type { Sharp } from 'sharp';
import { readKindsManifest, SHARED_CORPUS_DIR, type ImageKindName } from './corpus.ts';
import { readWideKinds, readWideSplit, WIDE_DIR, type WidePart } from './wide.ts';

export type LabelledPart = 'corpus' | WidePart;

export interface Labelled {
  file: string;
  path: string;
  part: LabelledPart;
  kind: ImageKindName;
  also?: ImageKindName;
}

export interface Change {
  name: string;
  what: string;
  /** Whether the change keeps an image of this kind its kind. */
  keeps: (kind: ImageKindName) => boolean;
  apply: (image: Sharp, width: number, height: number) => Sharp | undefined;
}

/** Images larger than this are left out (decoding them per change would take most of the run). */
export const MAX_CHANGED_PIXELS = 30_000_000;

export const CHANGES: Change[] = [
  { name: 'jpeg70', what: 'flattened on white, JPEG quality 70', keeps: (kind) => kind !== 'pixelart', apply: (image) => image.flatten({ background: '#ffffff' }).jpeg({ quality: 70 }) },
  {
    name: 'half',
    what: 'halved (Lanczos), images of 64 px or more',
    keeps: (kind) => kind !== 'pixelart',
    apply: (image, width, height) => (Math.max(width, height) < 64 ? undefined : image.resize(Math.max(1, Math.round(width / 2))).png()),
  },
  { name: 'onwhite', what: 'flattened on white, PNG', keeps: () => true, apply: (image) => image.flatten({ background: '#ffffff' }).png() },
  { name: 'dark', what: 'flattened on white, levels × 0.6 − 30, JPEG quality 85', keeps: (kind) => kind === 'photo', apply: (image) => image.flatten({ background: '#ffffff' }).linear(0.6, -30).jpeg({ quality: 85 }) },
  { name: 'grey', what: 'greyscale, PNG', keeps: (kind) => kind === 'photo' || kind === 'sketch', apply: (image) => image.greyscale().png() },
  {
    name: 'nearest3x',
    what: 'enlarged 3× by repeating pixels, PNG',
    keeps: (kind) => kind === 'pixelart',
    apply: (image, width, height) => (width * height * 9 > MAX_CHANGED_PIXELS ? undefined : image.resize(width * 3, height * 3, { kernel: 'nearest' }).png()),
  },
  { name: 'webp80', what: 'WebP quality 80', keeps: (kind) => kind !== 'pixelart', apply: (image) => image.webp({ quality: 80 }) },
];

/** Originals larger than this are left out of MORE_CHANGES (blurring or darkening a 20 MP photograph tells nothing new). */
const MORE_MAX_PIXELS = 2_000_000;

/**
 * Harder changes, measured apart (npm run bench:robust -- --more), on originals of 2 MP or less:
 * how the engine holds on inputs further from anything it was tuned on. A blurred copy of ink is
 * compared with its blur, which ink draws crisp: SSIM counts the crisp strokes against it.
 */
const HARDER: Change[] = [
  { name: 'onblack', what: 'flattened on black, PNG (images with transparency)', keeps: () => true, apply: (image) => image.flatten({ background: '#000000' }).png() },
  { name: 'blur', what: 'blurred (Gaussian, σ 1.2 px), PNG', keeps: (kind) => kind !== 'pixelart', apply: (image) => image.blur(1.2).png() },
  {
    name: 'quarter',
    what: 'a quarter of the size (Lanczos), images of 256 px or more',
    keeps: (kind) => kind !== 'pixelart',
    apply: (image, width, height) => (Math.max(width, height) < 256 ? undefined : image.resize(Math.max(1, Math.round(width / 4))).png()),
  },
  {
    name: 'up2',
    what: 'enlarged 2× (Lanczos), images of 0.4 MP or less',
    keeps: (kind) => kind !== 'pixelart',
    apply: (image, width, height) => (width * height > 400_000 ? undefined : image.resize(width * 2, height * 2, { kernel: 'lanczos3' }).png()),
  },
  { name: 'jpeg40', what: 'flattened on white, JPEG quality 40', keeps: (kind) => kind !== 'pixelart', apply: (image) => image.flatten({ background: '#ffffff' }).jpeg({ quality: 40 }) },
  {
    name: 'crop',
    what: 'the centre half of each side, at full resolution, images of 128 px or more',
    keeps: () => true,
    apply: (image, width, height) =>
      Math.min(width, height) < 128 ? undefined : image.extract({ left: Math.round(width / 4), top: Math.round(height / 4), width: Math.round(width / 2), height: Math.round(height / 2) }).png(),
  },
  {
    name: 'pad',
    what: 'flattened on white, with a white margin of a fifth of each side, PNG',
    keeps: () => true,
    apply: (image, width, height) =>
      image
        .flatten({ background: '#ffffff' })
        .extend({ top: Math.round(height / 5), bottom: Math.round(height / 5), left: Math.round(width / 5), right: Math.round(width / 5), background: '#ffffff' })
        .png(),
  },
  { name: 'lowcon', what: 'flattened on white, contrast halved (levels × 0.5 + 64), PNG', keeps: (kind) => kind !== 'pixelart', apply: (image) => image.flatten({ background: '#ffffff' }).linear(0.5, 64).png() },
  { name: 'sharpen', what: 'over-sharpened (unsharp mask, σ 1.5), PNG', keeps: (kind) => kind !== 'pixelart', apply: (image) => image.sharpen({ sigma: 1.5, m1: 2, m2: 4 }).png() },
];
export const MORE_CHANGES: Change[] = HARDER.map((change) => ({ ...change, apply: (image: Sharp, width: number, height: number) => (width * height > MORE_MAX_PIXELS ? undefined : change.apply(image, width, height)) }));

/** Every labelled image: the corpus's kinds manifest and wide/'s kinds.tsv, each in its part. */
export function labelledImages(): Labelled[] {
  const images: Labelled[] = [];
  for (const entry of readKindsManifest(SHARED_CORPUS_DIR).entries.values()) {
    images.push({ file: entry.file, path: join(SHARED_CORPUS_DIR, entry.file), part: 'corpus', kind: entry.kind });
  }
  const wide = readWideKinds();
  const split = readWideSplit(wide);
  for (const entry of wide) {
    const part = split.part.get(entry.file) as WidePart;
    images.push({ file: `wide/${entry.file}`, path: join(WIDE_DIR, entry.file), part, kind: entry.kind, ...(entry.also ? { also: entry.also } : {}) });
  }
  return images;
}
