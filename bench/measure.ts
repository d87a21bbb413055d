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
import type { TraceResult } from '../src/engine/types.ts';
import { ssim, toGray, type GrayImage } from './ssim.ts';

const run = promisify(execFile);

export const MAX_INPUT_PIXELS = 100_000_000;
const CACHE_DIR = fileURLToPath(new URL('./.cache/', import.meta.url));

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

export interface Measurement {
  timeMs: number;
  bytes: number;
  nodes: number;
  /** The lower of the SSIMs on white and on black. */
  ssim: number;
}

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

/** The service's conversion at the default params (or with `overrides`), in-process. */
export async function convertWithService(bytes: Buffer, overrides: Partial<TraceParams> = {}): Promise<TraceResult> {
  return convertImage({ image: bytes, params: { ...DEFAULT_PARAMS, ...overrides } }, { maxInputPixels: MAX_INPUT_PIXELS });
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

/** An SVG rendered by resvg at `width` px wide, on `background` (transparent when none). */
export function renderSvg(svg: string, width: number, background?: string): { pixels: Buffer; width: number; height: number } {
  const rendered = new Resvg(svg, { fitTo: { mode: 'width', value: width }, background, font: { loadSystemFonts: false } }).render();
  return { pixels: rendered.pixels, width: rendered.width, height: rendered.height };
}

/** An SVG rendered by resvg at `width` px wide as a PNG with its transparency. */
export function svgToPng(svg: string, width: number): Buffer {
  return new Resvg(svg, { fitTo: { mode: 'width', value: width }, font: { loadSystemFonts: false } }).render().asPng();
}

export type Candidate = { svg: string } | { raster: Buffer };

const BACKGROUNDS = ['#ffffff', '#000000'] as const;

/**
 * A reference image (any format sharp reads) compared at a given size: its luma on white and on
 * black is computed once per size, since several candidates are compared with it.
 */
export class Reference {
  private readonly grays = new Map<string, GrayImage>();

  constructor(
    private readonly bytes: Buffer,
    /** The size candidates are drawn at: SVGs are rendered this wide, rasters resized to it. */
    readonly width: number,
    readonly height: number,
  ) {}

  async gray(background: string, width: number, height: number): Promise<GrayImage> {
    const key = `${background} ${width}x${height}`;
    const known = this.grays.get(key);
    if (known) return known;
    const reference = await sharp(this.bytes, { limitInputPixels: MAX_INPUT_PIXELS })
      .rotate()
      .resize(width, height, { fit: 'fill' })
      .flatten({ background })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    const gray = toGray(reference.data, reference.info.width, reference.info.height, reference.info.channels);
    this.grays.set(key, gray);
    return gray;
  }

  /** SSIM of `candidate` against this reference, composited on white and on black; the lower one. */
  async fidelity(candidate: Candidate): Promise<number> {
    const scores: number[] = [];
    for (const background of BACKGROUNDS) {
      const drawn = await drawCandidate(candidate, this.width, this.height, background);
      // resvg rounds the height of a fitted SVG itself; the reference follows it.
      scores.push(ssim(await this.gray(background, drawn.width, drawn.height), drawn));
    }
    return Math.min(...scores);
  }
}

async function drawCandidate(candidate: Candidate, width: number, height: number, background: string): Promise<GrayImage> {
  if ('svg' in candidate) {
    const rendered = renderSvg(candidate.svg, width, background);
    return toGray(rendered.pixels, rendered.width, rendered.height, 4);
  }
  const { data, info } = await sharp(candidate.raster, { limitInputPixels: MAX_INPUT_PIXELS })
    .resize(width, height, { fit: 'fill', kernel: 'lanczos3' })
    .flatten({ background })
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  return toGray(data, info.width, info.height, info.channels);
}

/** The size an image of `width`×`height` is compared at when its long side may be at most `maxSide`. */
export function compareSize(width: number, height: number, maxSide: number): { width: number; height: number } {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}
