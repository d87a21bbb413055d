// One image of either set measured: the service's conversion and its baselines, each compared with
// the reference by every measure of bench/compare.ts, and, for large images, at 100 % in crops.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { TraceResult } from '../src/engine/types.ts';
import { countNodes } from '../src/engine/write/svg.ts';
import type { Comparison } from './compare.ts';
import { listCorpus, listFolder, readKindsManifest, type ImageKindName } from './corpus.ts';
import { chooseCrops, compareCrops, CROP_PIXELS, svgCrop, traceShrunkWithVtracer, type Crop } from './crops.ts';
import {
  cached,
  cachedFile,
  cacheKey,
  compareSize,
  convertWithService,
  MAX_INPUT_PIXELS,
  Reference,
  rgbaToPng,
  svgToPng,
  traceWithPotrace,
  traceWithVtracer,
  VTRACER_CLI_DEFAULTS,
  type Candidate,
  type ResizeKernel,
} from './measure.ts';
import { readWideKinds, readWideSplit, WIDE_DIR, type WidePart } from './wide.ts';

/** Images are compared at this long side at most: fidelity as seen, not per source pixel. */
export const COMPARE_MAX_SIDE = 512;
/** Inputs no larger than this (long side) are compared larger: at their reference, or enlarged. */
export const SMALL_SIDE = 128;
/** How much larger a small input without a reference is compared. */
export const SMALL_FACTOR = 4;
/** Bump when a measure changes, so cached baselines are measured again. */
const MEASURE_VERSION = 'm4';

export type SetName = 'corpus' | 'wide';
export type Part = 'corpus' | WidePart;

export interface SetImage {
  set: SetName;
  part: Part;
  /** Path relative to its set's folder as the reports name it (`photo/kodim23.png`, `wide/small/…`). */
  file: string;
  path: string;
  /** Path relative to the corpus folder, the key of the corpus's kinds manifest. */
  manifestKey: string;
  expected?: ImageKindName;
  also?: ImageKindName;
  why?: string;
  /** A larger render of the same artwork (wide/small-ref, upscale/emoji512): the reference. */
  referencePath?: string;
}

/** The corpus: every image one folder down, and the emoji pairs of upscale/, as bench/kinds.tsv lists them. */
export function corpusImages(dir: string): SetImage[] {
  const manifest = readKindsManifest(dir);
  const images: SetImage[] = [];
  const add = (file: string, referencePath?: string): void => {
    const entry = manifest.entries.get(file);
    images.push({ set: 'corpus', part: 'corpus', file, path: join(dir, file), manifestKey: file, expected: entry?.kind, why: entry?.why, referencePath });
  };
  for (const { file } of listCorpus(dir)) add(file);
  for (const file of listFolder('upscale/emoji32', /\.png$/i, dir)) {
    const reference = join(dir, file.replace('/emoji32/', '/emoji512/'));
    add(file, existsSync(reference) ? reference : undefined);
  }
  for (const file of listFolder('upscale/emoji512', /\.png$/i, dir)) add(file);
  return images;
}

/** Corpus manifest entries with no image, and images the manifest does not list. */
export function corpusManifestGaps(dir: string, images: SetImage[]): { missing: string[]; unlabelled: string[] } {
  const manifest = readKindsManifest(dir);
  const listed = new Set(images.map((image) => image.manifestKey));
  return {
    missing: [...manifest.entries.keys()].filter((file) => !listed.has(file)),
    unlabelled: images.filter((image) => !image.expected).map((image) => image.file),
  };
}

/** wide/: every input of its kinds.tsv, in its part; small/ icons with their small-ref/ reference. */
export function wideImages(): SetImage[] {
  const entries = readWideKinds();
  const split = readWideSplit(entries);
  return entries.map((entry) => {
    const reference = entry.file.startsWith('small/') ? join(WIDE_DIR, entry.file.replace(/^small\//, 'small-ref/')) : undefined;
    return {
      set: 'wide',
      part: split.part.get(entry.file) as WidePart,
      file: `wide/${entry.file}`,
      path: join(WIDE_DIR, entry.file),
      manifestKey: entry.file,
      expected: entry.kind,
      also: entry.also,
      why: entry.why,
      referencePath: reference && existsSync(reference) ? reference : undefined,
    };
  });
}

/** The engine's self-check, when the engine reports it (TraceResult.check). */
export interface EngineCheck {
  fidelity: number;
  retraced: boolean;
  retraceMs: number;
  signatures: string[];
}

function checkOf(result: TraceResult): EngineCheck | undefined {
  const check = (result as TraceResult & { check?: EngineCheck }).check;
  return check && typeof check.fidelity === 'number' ? check : undefined;
}

export interface Baseline {
  comparison: Comparison;
  bytes: number;
  nodes: number;
  timeMs: number;
}

export interface CropRow {
  crop: Crop;
  ours: Comparison;
  vtracer: Comparison;
}

export interface ImageRow {
  image: SetImage;
  width: number;
  height: number;
  /** What the comparison is against: the image (`1×`), it enlarged (`4×`), or a larger reference. */
  compared: '1×' | `${number}×` | 'reference';
  compareWidth: number;
  compareHeight: number;
  /** What the reference is, for cache keys (bench/.cache keeps baseline renders under it). */
  compareKey: string;
  /** The engine failed on the image: a destroyed result. */
  error?: string;
  chosenMode: string;
  /** The kind the classifier picked, traced first; the self-check may have kept another kind's trace. */
  firstMode: string;
  chosen: string;
  timeMs: number;
  bytes: number;
  nodes: number;
  check?: EngineCheck;
  ours: Comparison;
  vtracer: Baseline | null;
  /** The input enlarged with Lanczos 3, where there is a larger reference. */
  lanczos: Comparison | null;
  potrace: Comparison | null;
  crops: CropRow[] | null;
  /** The service's SVG, kept only when asked for (the gallery). */
  svg?: string;
}

export const kindAgrees = (row: ImageRow): boolean =>
  !row.error && row.image.expected !== undefined && (row.chosenMode === row.image.expected || row.chosenMode === row.image.also);

/** Whether the classifier's own pick, before the self-check, agrees with the label (reported beside kindAgrees). */
export const firstKindAgrees = (row: ImageRow): boolean =>
  !row.error && row.image.expected !== undefined && (row.firstMode === row.image.expected || row.firstMode === row.image.also);

const FAILED: Comparison = { ssim: 0, worstSsim: 0, meanDe: 100, worstDe: 100, worstAt: { x: 0, y: 0, width: 0, height: 0 }, coverage: -1 };

interface Geometry {
  reference: Reference;
  compared: ImageRow['compared'];
  /** Key of the reference for caches. */
  key: string;
}

async function geometryOf(image: SetImage, bytes: Buffer, width: number, height: number): Promise<Geometry> {
  if (image.referencePath) {
    const referenceBytes = readFileSync(image.referencePath);
    const { width: rw = 0, height: rh = 0 } = await sharp(referenceBytes).metadata();
    return { reference: new Reference(referenceBytes, rw, rh), compared: 'reference', key: cacheKey('ref', referenceBytes, `${rw}x${rh}`) };
  }
  if (Math.max(width, height) <= SMALL_SIDE) {
    // Pixel art is shown larger as squares; anything else as a smooth enlargement would show it.
    const kernel: ResizeKernel = image.expected === 'pixelart' ? 'nearest' : 'lanczos3';
    return {
      reference: new Reference(bytes, width * SMALL_FACTOR, height * SMALL_FACTOR, kernel),
      compared: `${SMALL_FACTOR}×`,
      key: `${SMALL_FACTOR}x-${kernel}`,
    };
  }
  const size = compareSize(width, height, COMPARE_MAX_SIDE);
  return { reference: new Reference(bytes, size.width, size.height), compared: '1×', key: `${size.width}x${size.height}` };
}

/** A baseline SVG's figures at the comparison size, with its render kept in bench/.cache for the gallery. */
async function baseline(name: 'vtracer' | 'potrace', trace: () => Promise<{ svg: string; timeMs: number }>, bytes: Buffer, geometry: Geometry): Promise<Baseline> {
  const key = baselineKey(name, bytes, geometry.key);
  return cached(key, async () => {
    const { svg, timeMs } = await trace();
    await cachedFile(`${key}.png`, async () => svgToPng(svg, geometry.reference.width));
    return { comparison: await geometry.reference.compare({ svg }), bytes: Buffer.byteLength(svg), nodes: countNodes(svg), timeMs };
  });
}

/** The cache key of a baseline's figures; its render at the comparison size is `${key}.png`. */
export function baselineKey(name: 'vtracer' | 'potrace', bytes: Buffer, compareKey: string): string {
  return cacheKey(name, bytes, `${MEASURE_VERSION} ${compareKey} ${JSON.stringify(VTRACER_CLI_DEFAULTS)}`);
}

/** The cache key of VTracer's crops of a large image; crop i's render is `${key}-crop${i}.png`. */
export function vtracerCropsKey(bytes: Buffer): string {
  return cacheKey('vtracer-crops', bytes, `${MEASURE_VERSION} ${JSON.stringify(VTRACER_CLI_DEFAULTS)}`);
}

/** A baseline that fails is left out of the row (and said so), not the end of the run. */
async function orNull<T>(image: SetImage, name: string, measuring: Promise<T>): Promise<T | null> {
  try {
    return await measuring;
  } catch (error) {
    const which = image.part === 'holdout' ? 'a hold-out image' : image.file;
    console.warn(`${name} failed on ${which}: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
}

export interface MeasureOptions {
  baselines: boolean;
  potrace: boolean;
  keepSvg: boolean;
  /** How the image is converted; in this process at the default params unless given. */
  convert?: (bytes: Buffer) => Promise<TraceResult>;
}

/** Converts and measures one image; a conversion that throws is a row with `error`. */
export async function measureImage(image: SetImage, options: MeasureOptions): Promise<ImageRow> {
  const bytes = readFileSync(image.path);
  let result: TraceResult | null = null;
  let error: string | undefined;
  try {
    result = await (options.convert ?? convertWithService)(bytes);
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  }
  const metadata = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS }).rotate().metadata();
  const upright = (metadata.orientation ?? 1) >= 5;
  const width = result?.width ?? ((upright ? metadata.height : metadata.width) as number);
  const height = result?.height ?? ((upright ? metadata.width : metadata.height) as number);
  const geometry = await geometryOf(image, bytes, width, height);
  const compare = (candidate: Candidate): Promise<Comparison> => geometry.reference.compare(candidate);
  const ours = result ? await compare({ svg: result.svg }) : FAILED;
  const vtracer = options.baselines ? await orNull(image, 'VTracer', baseline('vtracer', () => traceWithVtracer(bytes), bytes, geometry)) : null;
  const potrace =
    options.baselines && options.potrace && (image.expected === 'sketch' || image.also === 'sketch')
      ? ((await orNull(image, 'Potrace', baseline('potrace', () => traceWithPotrace(bytes), bytes, geometry)))?.comparison ?? null)
      : null;
  const lanczos =
    options.baselines && image.referencePath
      ? await cached(cacheKey('lanczos', bytes, `${MEASURE_VERSION} ${geometry.key}`), () => compare({ raster: bytes }))
      : null;
  let crops: CropRow[] | null = null;
  if (width * height >= CROP_PIXELS) {
    const vtracerCrops = options.baselines
      ? await cached(vtracerCropsKey(bytes), async () => {
          const chosen = await chooseCrops(bytes, width, height);
          let { svg } = await traceShrunkWithVtracer(bytes, width, height);
          let comparisons = await compareCrops(bytes, svg, width, height, chosen);
          // Once, a cached baseline rendered empty (the aliens cartoon's crops black, 0.997 traced
          // again): a crop that lost most of its coverage is traced once more before it is kept.
          if (comparisons.some((comparison) => comparison.coverage < -0.5)) {
            console.warn(`VTracer's crops of ${image.part === 'holdout' ? 'a hold-out image' : image.file} rendered nearly empty; traced again`);
            svg = (await traceShrunkWithVtracer(bytes, width, height)).svg;
            comparisons = await compareCrops(bytes, svg, width, height, chosen);
          }
          for (const [index, crop] of chosen.entries()) {
            await cachedFile(`${vtracerCropsKey(bytes)}-crop${index}.png`, () => rgbaToPng(svgCrop(svg, width, height, crop)));
          }
          return { crops: chosen, comparisons };
        })
      : { crops: await chooseCrops(bytes, width, height), comparisons: null };
    const oursCrops = result ? await compareCrops(bytes, result.svg, width, height, vtracerCrops.crops) : vtracerCrops.crops.map(() => FAILED);
    crops = vtracerCrops.crops.map((crop, index) => ({
      crop,
      ours: oursCrops[index] as Comparison,
      vtracer: vtracerCrops.comparisons?.[index] ?? FAILED,
    }));
  }
  return {
    image,
    width,
    height,
    compared: geometry.compared,
    compareWidth: geometry.reference.width,
    compareHeight: geometry.reference.height,
    compareKey: geometry.key,
    ...(error ? { error } : {}),
    chosenMode: result?.chosen.mode ?? 'failed',
    firstMode: result?.check?.attempts[0]?.kind ?? result?.chosen.mode ?? 'failed',
    chosen: result ? `${result.chosen.mode}/${result.chosen.curveMode}` : 'failed',
    timeMs: result?.processingTimeMs ?? 0,
    bytes: result ? Buffer.byteLength(result.svg) : 0,
    nodes: result?.nodeCount ?? 0,
    check: result ? checkOf(result) : undefined,
    ours,
    vtracer,
    lanczos,
    potrace,
    crops,
    ...(options.keepSvg && result ? { svg: result.svg } : {}),
  };
}
