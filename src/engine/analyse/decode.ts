// Decoding: bytes in, oriented RGBA pixels at working resolution out.
// Limits come before work: the pixel limit is checked by sharp from the header,
// so a decompression bomb is refused before any full decode.

import sharp, { type Metadata, type Sharp } from 'sharp';
import { EngineError } from '../types.ts';
import { blockSize, FEW_COLOURS } from './classify.ts';
import { pixelWords } from './palette.ts';

export type ImageFormat = 'png' | 'jpeg' | 'webp';

/** Identifies PNG, JPEG or WebP from magic bytes; anything else is `null`. */
export function sniffFormat(bytes: Uint8Array): ImageFormat | null {
  const startsWith = (offset: number, signature: readonly number[]): boolean =>
    bytes.length >= offset + signature.length && signature.every((byte, i) => bytes[offset + i] === byte);
  if (startsWith(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(0, [0xff, 0xd8, 0xff])) return 'jpeg';
  // "RIFF" <size> "WEBP"
  if (startsWith(0, [0x52, 0x49, 0x46, 0x46]) && startsWith(8, [0x57, 0x45, 0x42, 0x50])) return 'webp';
  return null;
}

export interface DecodedImage {
  /** RGBA, 8 bits per channel, `width × height × 4` bytes, at working resolution. */
  rgba: Buffer;
  width: number;
  height: number;
  /** Size of the source after EXIF orientation; the SVG is written at this size. */
  originalWidth: number;
  originalHeight: number;
  format: ImageFormat;
  /** The source stores a colour palette (indexed PNG): flat colour by construction. */
  palette: boolean;
  /**
   * The source, not indexed, holds at most FEW_COLOURS colours where it was read at its own size
   * (the whole image, or the rows probed at full size when it is decoded reduced): a palette image
   * saved without its palette (a map flattened on white). A reduced decode blends them into
   * thousands, so the classifier's sample cannot tell.
   */
  fewColours?: boolean;
  /**
   * The source is a nearest-neighbour enlargement by these whole factors (pixel art shown large),
   * and was decoded at its own grid: every pixel of `rgba` is one block of the source.
   */
  enlargement?: { width: number; height: number };
}

export interface DecodeLimits {
  /** Refuse sources whose width × height exceeds this (checked from the header). */
  maxInputPixels: number;
  /** Trace at most this many pixels; larger images are downscaled, the SVG scaled back. */
  maxWorkingPixels: number;
  /**
   * Look for a nearest-neighbour enlargement when the image must be reduced (default true). A
   * second decode of the same image leaves it out: the first already looked at the same rows.
   */
  findEnlargement?: boolean;
}

/** Working size that keeps the aspect ratio within a pixel budget (never upscales). */
export function workingSize(width: number, height: number, maxPixels: number): { width: number; height: number } {
  if (width * height <= maxPixels) return { width, height };
  const scale = Math.sqrt(maxPixels / (width * height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

function invalid(message: string): EngineError {
  return new EngineError('invalid_image', message);
}

export async function decodeImage(bytes: Buffer, limits: DecodeLimits): Promise<DecodedImage> {
  if (bytes.length === 0) throw invalid('the image is empty');
  const format = sniffFormat(bytes);
  if (!format) throw invalid('unsupported image format; send PNG, JPEG or WebP');

  // failOn 'error' also covers truncation: a cut-off file is refused, not half-traced.
  const options = { limitInputPixels: limits.maxInputPixels, failOn: 'error' as const };
  const name = FORMAT_NAMES[format];
  let metadata: Metadata;
  try {
    // The header alone: no pixels are decoded here, so the size can be checked (and named) first.
    metadata = await sharp(bytes, { ...options, limitInputPixels: false }).metadata();
  } catch (error) {
    throw invalid(`the ${name} image is corrupt or truncated (${describeSharpError(error)})`);
  }
  if (!metadata.width || !metadata.height) throw invalid('the image has no dimensions');
  if (metadata.width * metadata.height > limits.maxInputPixels) {
    throw invalid(
      `the image has ${metadata.width}×${metadata.height} pixels, over the limit of ${limits.maxInputPixels} pixels`,
    );
  }
  // EXIF orientations 5–8 swap width and height.
  const swapped = (metadata.orientation ?? 1) >= 5;
  const originalWidth = swapped ? metadata.height : metadata.width;
  const originalHeight = swapped ? metadata.width : metadata.height;
  const working = workingSize(originalWidth, originalHeight, limits.maxWorkingPixels);
  const reduced = working.width !== originalWidth || working.height !== originalHeight;

  // A lossless source too large for this decode: its top rows at full size say whether it is an
  // enlargement of pixel art, and whether it holds a palette's worth of colours.
  const probe = reduced && format !== 'jpeg' && limits.findEnlargement !== false ? await probeRows(bytes, options, originalWidth, originalHeight).catch(() => undefined) : undefined;
  if (probe) {
    const native = await nativeGrid(bytes, options, probe, originalWidth, originalHeight, limits.maxWorkingPixels).catch(() => undefined);
    if (native) return { ...native, originalWidth, originalHeight, format, palette: metadata.isPalette === true };
  }

  try {
    let pipeline = sharp(bytes, options).rotate();
    if (reduced) pipeline = pipeline.resize(working.width, working.height, { fit: 'fill', kernel: 'lanczos3' });
    const { data, info } = await rgbaOf(pipeline);
    // Counted on what was read at full size: the probed rows, or the whole decode when it is not reduced.
    const fullSize = reduced ? probe : format === 'jpeg' ? undefined : pixelWords(data);
    const fewColours = metadata.isPalette !== true && fullSize !== undefined && hasFewColours(fullSize);
    return {
      rgba: data,
      width: info.width,
      height: info.height,
      originalWidth,
      originalHeight,
      format,
      palette: metadata.isPalette === true,
      ...(fewColours ? { fewColours: true } : {}),
    };
  } catch (error) {
    throw invalid(`the ${name} image is corrupt or truncated (${describeSharpError(error)})`);
  }
}

/**
 * Rows at the top of a lossless source too large for its first decode that are read at full size,
 * to find whether it is a nearest-neighbour enlargement and whether it holds few colours: PNG
 * decodes top down, so they cost a fraction of the decode. A reduced decode would blur the blocks
 * into anti-aliasing and the colours into thousands.
 */
const PROBE_ROWS = 256;
/** Colour changes along the probed rows needed before their blocks count: a plain band proves nothing. */
const PROBE_MIN_CHANGES = 64;

/**
 * The source at its own grid when it is a nearest-neighbour enlargement by whole factors (the
 * probed rows made of kx × ky blocks, the sides multiples of them) and that grid fits the budget;
 * undefined otherwise. Shrinking exact blocks by their own factors gives back every source pixel.
 */
async function nativeGrid(
  bytes: Buffer,
  options: { limitInputPixels: number; failOn: 'error' },
  probe: Uint32Array,
  width: number,
  height: number,
  maxPixels: number,
): Promise<Pick<DecodedImage, 'rgba' | 'width' | 'height' | 'enlargement'> | undefined> {
  const strip = Buffer.from(probe.buffer, probe.byteOffset, probe.byteLength);
  const blocks = blockSize(strip, width, probe.length / width);
  if (blocks.width === 1 || width % blocks.width !== 0 || height % blocks.height !== 0) return undefined;
  const nativeWidth = width / blocks.width;
  const nativeHeight = height / blocks.height;
  if (nativeWidth * nativeHeight > maxPixels) return undefined;
  const { data, info } = await rgbaOf(sharp(bytes, options).rotate().resize(nativeWidth, nativeHeight, { fit: 'fill', kernel: 'nearest' }));
  return { rgba: data, width: info.width, height: info.height, enlargement: blocks };
}

/** Whether `words` (RGBA as one word each) hold at most `limit` values (FEW_COLOURS); stops at the first one over. */
export function hasFewColours(words: Uint32Array, limit = FEW_COLOURS): boolean {
  const seen = new Set<number>();
  let previous = -1;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as number;
    // Runs of one colour (flat artwork is mostly runs) cost one comparison each.
    if (word === previous) continue;
    previous = word;
    if (!seen.has(word)) {
      seen.add(word);
      if (seen.size > limit) return false;
    }
  }
  return true;
}

/**
 * The top PROBE_ROWS rows at full size, as RGBA words, when they hold at least PROBE_MIN_CHANGES
 * colour changes (a plain band proves nothing); undefined otherwise.
 */
async function probeRows(bytes: Buffer, options: { limitInputPixels: number; failOn: 'error' }, width: number, height: number): Promise<Uint32Array | undefined> {
  const rows = Math.min(height, PROBE_ROWS);
  const { data: strip } = await rgbaOf(sharp(bytes, options).rotate().extract({ left: 0, top: 0, width, height: rows }));
  const words = pixelWords(strip);
  let changes = 0;
  for (let i = 1; i < words.length && changes < PROBE_MIN_CHANGES; i++) if (i % width !== 0 && words[i] !== words[i - 1]) changes++;
  return changes >= PROBE_MIN_CHANGES ? words : undefined;
}

/** A pipeline's pixels as straight sRGB RGBA, 8 bits a channel. */
async function rgbaOf(pipeline: Sharp): Promise<{ data: Buffer; info: { width: number; height: number } }> {
  const { data, info } = await pipeline.toColourspace('srgb').ensureAlpha().raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  if (info.channels !== 4) throw new Error(`unexpected channel count ${info.channels}`);
  return { data, info };
}

const FORMAT_NAMES: Record<ImageFormat, string> = { png: 'PNG', jpeg: 'JPEG', webp: 'WebP' };

function describeSharpError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // libvips messages are multi-line and name internal loaders; the first line, without the
  // loader's name, is the useful part.
  const firstLine = (message.split('\n')[0] ?? message)
    .replace(/^Input (buffer|file) /, '')
    .replace(/^(vips\w*|Vips\w+|webp):\s*/i, '')
    .trim();
  return firstLine || 'unreadable data';
}
