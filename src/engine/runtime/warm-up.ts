// The conversions a worker runs before it says it is ready, so that the first real requests do
// not pay for compiling the engine's code paths. The benchmark runs the same before it times.

import sharp from 'sharp';
import { convertImage } from '../convert.ts';
import type { TraceResult } from '../types.ts';
import { DEFAULT_PARAMS, type TraceParams } from '../params.ts';

/**
 * An icon on transparency: a radial gradient, round eyes, a stroke and a soft shadow, as the
 * artwork path meets them in most requests (segmentation, fine grid, gradients, soft edges, curves).
 */
function iconSvg(size: number): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 48 48">` +
      '<defs><radialGradient id="face" cx="0.4" cy="0.35" r="0.7"><stop offset="0" stop-color="#ffd27a"/><stop offset="1" stop-color="#d9541e"/></radialGradient>' +
      '<filter id="blur"><feGaussianBlur stdDeviation="1.5"/></filter></defs>' +
      '<ellipse cx="24" cy="43" rx="16" ry="3" fill="#000" fill-opacity="0.35" filter="url(#blur)"/>' +
      '<circle cx="24" cy="22" r="18" fill="url(#face)"/>' +
      '<circle cx="17" cy="18" r="3" fill="#3b1f0e"/><circle cx="31" cy="18" r="3" fill="#3b1f0e"/>' +
      '<path d="M14 27 Q24 36 34 27" stroke="#3b1f0e" stroke-width="1.5" fill="none"/>' +
      '</svg>',
  );
}

/** A 16 × 16 sprite in four colours, enlarged 4 × by whole pixels: the pixel-art path. */
async function spritePng(): Promise<Buffer> {
  const side = 16;
  const palette = [
    [0, 0, 0, 0],
    [34, 32, 52, 255],
    [217, 87, 99, 255],
    [251, 242, 54, 255],
  ];
  const pixels = Buffer.alloc(side * side * 4);
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const d = Math.hypot(x - 7.5, y - 7.5);
      const colour = palette[d > 7 ? 0 : d > 6 ? 1 : (x + y) % 5 === 0 ? 3 : 2] as number[];
      pixels.set(colour, (y * side + x) * 4);
    }
  }
  return sharp(pixels, { raw: { width: side, height: side, channels: 4 } }).resize(side * 4, side * 4, { kernel: 'nearest' }).png().toBuffer();
}

/** A 96 px JPEG of smooth colour: the photograph path. */
async function photoJpeg(size: number): Promise<Buffer> {
  const gradient = Buffer.alloc(size * size * 3);
  for (let i = 0; i < size * size; i++) gradient.set([(i % size) * 2, Math.floor(i / size) * 2, 128], i * 3);
  return sharp(gradient, { raw: { width: size, height: size, channels: 3 } }).jpeg().toBuffer();
}

/** A black bar on white: the line-art path. */
async function drawingPng(size: number): Promise<Buffer> {
  return sharp({ create: { width: size, height: size, channels: 3, background: '#ffffff' } })
    .composite([{ input: { create: { width: 40, height: 8, channels: 3, background: '#000000' } }, left: 20, top: 40 }])
    .png()
    .toBuffer();
}

/**
 * Runs small conversions through each of the engine's paths, the icon at two sizes (its loops run
 * long enough to be compiled optimised). About 1.2 s of a worker's start-up: with the photograph
 * and the drawing alone, a fresh worker took 0.4 s on its first 48 px icon, which takes 0.12 s once
 * the code is compiled, and the icon halves that first cost (23 small icons seen first: mean 0.11 s
 * → 0.09 s). Returns the kind each was traced as.
 */
export async function warmUp(): Promise<TraceResult['chosen']['mode'][]> {
  const photo = await photoJpeg(96);
  const runs: { image: Buffer; params?: Partial<TraceParams> }[] = [
    { image: photo, params: { mode: 'photo', curveMode: 'polygon' } },
    { image: photo, params: { mode: 'photo', curveMode: 'spline' } },
    { image: await drawingPng(96), params: { mode: 'sketch', curveMode: 'spline' } },
    { image: await sharp(iconSvg(48)).png().toBuffer() },
    { image: await sharp(iconSvg(128)).png().toBuffer() },
    { image: await spritePng() },
  ];
  const kinds: TraceResult['chosen']['mode'][] = [];
  for (const { image, params } of runs) {
    const result = await convertImage({ image, params: { ...DEFAULT_PARAMS, ...params } }, { maxInputPixels: 128 * 128 });
    kinds.push(result.chosen.mode);
  }
  return kinds;
}
