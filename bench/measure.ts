// What the benchmarks measure with: the service's conversion, raw VTracer at its command-line
// defaults and Debian's potrace, and fidelity (SSIM on white and on black, the lower one)
// between a reference raster and an SVG or raster candidate. Baselines are cached in bench/.cache.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { vectorizeRaw, type Config } from '@neplex/vectorizer';
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { convertImage } from '../src/engine/convert.ts';
import { DEFAULT_PARAMS, type TraceParams } from '../src/engine/params.ts';
import { createEngine } from '../src/engine/runtime/pool.ts';
import type { TraceResult } from '../src/engine/types.ts';
import { compareImages, ssimOnBackgrounds, type Comparison, type RgbaImage } from './compare.ts';

const run = promisify(execFile);

export const MAX_INPUT_PIXELS = 100_000_000;
/** Baselines' figures and renders; BENCH_CACHE_DIR points another worktree at one already filled. */
export const CACHE_DIR = process.env.BENCH_CACHE_DIR ?? fileURLToPath(new URL('./.cache/', import.meta.url));

/** VTracer's command-line defaults (vtracer cmdapp config.rs, Config::default). */
export const VTRACER_CLI_DEFAULTS: Config = {
  colorMode: 0,
  hierarchical: 0,
  filterSpeckle: 4,
  colorPrecision: 6,
  layerDifference: 16,
  mode: 2,
  cornerThreshold: 60,
  lengthThreshold: 4,
  maxIterations: 10,
  spliceThreshold: 45,
  pathPrecision: 2,
};

export interface TracedSvg {
  svg: string;
  timeMs: number;
}

export function cacheKey(kind: string, bytes: Buffer, extra: string): string {
  return createHash('sha256').update(kind).update(bytes).update(extra).digest('hex').slice(0, 24);
}

/** A baseline's figures from bench/.cache, measured once: baselines do not change with the engine. */
export async function cached<T>(key: string, measure: () => Promise<T>): Promise<T> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const path = join(CACHE_DIR, `${key}.json`);
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as T;
  const measurement = await measure();
  writeFileSync(path, JSON.stringify(measurement));
  return measurement;
}

/** A file kept in bench/.cache under `name`, made once by `make`. */
export async function cachedFile(name: string, make: () => Promise<Buffer>): Promise<Buffer> {
  const known = readCachedFile(name);
  if (known) return known;
  const made = await make();
  mkdirSync(CACHE_DIR, { recursive: true });
  writeFileSync(join(CACHE_DIR, name), made);
  return made;
}

/** A file of bench/.cache, or null when it was never made. */
export function readCachedFile(name: string): Buffer | null {
  const path = join(CACHE_DIR, name);
  return existsSync(path) ? readFileSync(path) : null;
}

/** The service's conversion at the default params (or with `overrides`), in-process. */
export async function convertWithService(bytes: Buffer, overrides: Partial<TraceParams> = {}): Promise<TraceResult> {
  return convertImage({ image: bytes, params: { ...DEFAULT_PARAMS, ...overrides } }, { maxInputPixels: MAX_INPUT_PIXELS });
}

/** Converts one image at the default params; `close` ends whatever the converter started. */
export interface Converter {
  convert(bytes: Buffer): Promise<TraceResult>;
  close(): Promise<void>;
}

/**
 * The service's conversion as the service runs it: in one worker process of the engine pool,
 * warmed up as the pool's workers are, while this process measures. Converted in this process,
 * each image was timed with the garbage of the measuring before it (the renders and comparisons
 * at 512 px, the baselines' traces) still to collect: the icons of 128 px or less took 111 ms
 * (median) in the bench and 69 ms converted one after another.
 */
export function workerConverter(): Converter {
  const engine = createEngine({ workers: 1, queueLimit: 1, timeoutMs: 600_000, maxInputPixels: MAX_INPUT_PIXELS });
  return {
    convert: (bytes) => engine.convert({ image: bytes, params: { ...DEFAULT_PARAMS } }),
    close: () => engine.close(),
  };
}

/** Raw VTracer at its command-line defaults on every pixel of the image. */
export async function traceWithVtracer(bytes: Buffer): Promise<TracedSvg> {
  const started = performance.now();
  const { data, info } = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .toColourspace('srgb')
    .ensureAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  const svg = await vectorizeRaw(data, { width: info.width, height: info.height }, VTRACER_CLI_DEFAULTS);
  return { svg, timeMs: performance.now() - started };
}

/** Whether Debian's potrace is on the PATH; says how to get it when not. */
export async function potraceAvailable(): Promise<boolean> {
  return run('potrace', ['--version']).then(
    () => true,
    () => {
      console.warn('potrace is not installed (apt-get install potrace); the Potrace comparison is left out');
      return false;
    },
  );
}

/** Potrace on the image thresholded at 50 % grey (flattened on white), as its users would run it. */
export async function traceWithPotrace(bytes: Buffer): Promise<TracedSvg> {
  const started = performance.now();
  const { data, info } = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .flatten({ background: '#ffffff' })
    .greyscale()
    .threshold(128)
    .raw()
    .toBuffer({ resolveWithObject: true });
  const rowBytes = Math.ceil(info.width / 8);
  const bits = Buffer.alloc(rowBytes * info.height);
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      if ((data[(y * info.width + x) * info.channels] as number) < 128) {
        const index = y * rowBytes + (x >> 3);
        bits[index] = (bits[index] as number) | (0x80 >> (x & 7));
      }
    }
  }
  const pbmPath = join(tmpdir(), `bench-${process.pid}.pbm`);
  const svgPath = join(tmpdir(), `bench-${process.pid}.svg`);
  writeFileSync(pbmPath, Buffer.concat([Buffer.from(`P4\n${info.width} ${info.height}\n`), bits]));
  await run('potrace', ['-s', '-o', svgPath, pbmPath]);
  const timeMs = performance.now() - started;
  // potrace draws ink on nothing; the paper of an opaque scan is white, so give it a white
  // background as our sketch output has, or every comparison on black would be meaningless.
  const svg = readFileSync(svgPath, 'utf8').replace(/(<svg\b[^>]*>)/, '$1<rect width="100%" height="100%" fill="#ffffff"/>');
  rmSync(pbmPath, { force: true });
  rmSync(svgPath, { force: true });
  return { svg, timeMs };
}

/** An SVG rendered by resvg at `width` px wide, on transparency: premultiplied RGBA. */
export function renderSvg(svg: string, width: number): RgbaImage {
  const rendered = new Resvg(svg, { fitTo: { mode: 'width', value: width }, font: { loadSystemFonts: false } }).render();
  return { data: rendered.pixels, width: rendered.width, height: rendered.height, premultiplied: true };
}

/** An SVG rendered by resvg at `width` px wide as a PNG with its transparency. */
export function svgToPng(svg: string, width: number): Buffer {
  return new Resvg(svg, { fitTo: { mode: 'width', value: width }, font: { loadSystemFonts: false } }).render().asPng();
}

/** RGBA pixels as a PNG. */
export function rgbaToPng(image: RgbaImage): Promise<Buffer> {
  return sharp(Buffer.from(image.data), { raw: { width: image.width, height: image.height, channels: 4, premultiplied: image.premultiplied } })
    .png()
    .toBuffer();
}

export type Candidate = { svg: string } | { raster: Buffer };

/** How a reference is resized: Lanczos 3, or nearest neighbour for pixel art shown larger. */
export type ResizeKernel = 'lanczos3' | 'nearest';

/** Any image sharp reads, resized to exactly `width`×`height` with `kernel`, as straight RGBA. */
export async function rasterAt(bytes: Buffer, width: number, height: number, kernel: ResizeKernel = 'lanczos3'): Promise<RgbaImage> {
  const { data, info } = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .resize(width, height, { fit: 'fill', kernel })
    .toColourspace('srgb')
    .ensureAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, premultiplied: false };
}

/**
 * A reference image (any format sharp reads) compared at a given size, its pixels kept per size,
 * since several candidates are compared with it. `kernel` resizes it (nearest for pixel art
 * shown larger); candidate rasters are always enlarged with Lanczos 3.
 */
export class Reference {
  private readonly images = new Map<string, RgbaImage>();

  constructor(
    private readonly bytes: Buffer,
    /** The size candidates are drawn at: SVGs are rendered this wide, rasters resized to it. */
    readonly width: number,
    readonly height: number,
    private readonly kernel: ResizeKernel = 'lanczos3',
  ) {}

  async rgba(width: number, height: number): Promise<RgbaImage> {
    const key = `${width}x${height}`;
    const known = this.images.get(key);
    if (known) return known;
    const image = await rasterAt(this.bytes, width, height, this.kernel);
    this.images.set(key, image);
    return image;
  }

  /** SSIM of `candidate` against this reference, composited on white and on black; the lower one. */
  async fidelity(candidate: Candidate): Promise<number> {
    const drawn = await drawCandidate(candidate, this.width, this.height);
    // resvg rounds the height of a fitted SVG itself; the reference follows it.
    return ssimOnBackgrounds(await this.rgba(drawn.width, drawn.height), drawn);
  }

  /** Every measure of bench/compare.ts: SSIM, the worst region, opaque coverage. */
  async compare(candidate: Candidate): Promise<Comparison> {
    const drawn = await drawCandidate(candidate, this.width, this.height);
    return compareImages(await this.rgba(drawn.width, drawn.height), drawn);
  }
}

async function drawCandidate(candidate: Candidate, width: number, height: number): Promise<RgbaImage> {
  return 'svg' in candidate ? renderSvg(candidate.svg, width) : rasterAt(candidate.raster, width, height);
}

/** The size an image of `width`×`height` is compared at when its long side may be at most `maxSide`. */
export function compareSize(width: number, height: number, maxSide: number): { width: number; height: number } {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}
