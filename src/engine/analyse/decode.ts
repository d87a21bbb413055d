// Decoding: bytes in, oriented RGBA pixels at working resolution out.
// Limits come before work: the pixel limit is checked by sharp from the header,
// so a decompression bomb is refused before any full decode.

import sharp, { type Metadata } from 'sharp';
import { EngineError } from '../types.ts';

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
}

export interface DecodeLimits {
  /** Refuse sources whose width × height exceeds this (checked from the header). */
  maxInputPixels: number;
  /** Trace at most this many pixels; larger images are downscaled, the SVG scaled back. */
  maxWorkingPixels: number;
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

  try {
    let pipeline = sharp(bytes, options).rotate();
    if (working.width !== originalWidth || working.height !== originalHeight) {
      pipeline = pipeline.resize(working.width, working.height, { fit: 'fill', kernel: 'lanczos3' });
    }
    const { data, info } = await pipeline
      .toColourspace('srgb')
      .ensureAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 4) throw new Error(`unexpected channel count ${info.channels}`);
    return {
      rgba: data,
      width: info.width,
      height: info.height,
      originalWidth,
      originalHeight,
      format,
      palette: metadata.isPalette === true,
    };
  } catch (error) {
    throw invalid(`the ${name} image is corrupt or truncated (${describeSharpError(error)})`);
  }
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
