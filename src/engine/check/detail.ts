// The self-check at the image's own scale, on its most detailed part. The whole-picture check
// compares at most CHECK_PIXELS: there an etching's hatching is finer than the comparison's
// windows and counts only by its mean tone, so a trace that turned the hatching into grey blotches
// of the right tone scores as well as one that kept every line. Where two results were traced at
// different sizes (the plain trace works at the check's size, the engine's own paths finer), they
// are also compared here, where the finer one's lines are seen.

import type { CheckReference } from './check.ts';
import { compareImages } from './compare.ts';
import { fidelityOf } from './fidelity.ts';
import { croppedSvg, renderSvg, type PixelRect } from './render.ts';

/** Side of the detail crop, in pixels of the decoded image: a few features at the size they were drawn. */
export const DETAIL_SIDE = 320;
/**
 * A decode within this factor of the check's pixels is seen by the check nearly whole: a
 * comparison at the image's own scale would tell little more.
 */
const FINER_THAN_CHECK = 2;

/** The source's most detailed crop at the decoded size, and the size the SVG is drawn at around it. */
export interface DetailReference {
  rgba: Uint8Array;
  crop: PixelRect;
  /** The decoded image's size: the SVG is drawn at this size and `crop` cut from it. */
  imageWidth: number;
  imageHeight: number;
}

/** The crop of `decoded` with the most luma gradient, when the decode is much finer than the check. */
export function detailReference(decoded: CheckReference, checkPixels: number): DetailReference | undefined {
  const { width, height, rgba } = decoded;
  if (width * height <= checkPixels * FINER_THAN_CHECK) return undefined;
  const side = Math.min(DETAIL_SIDE, width, height);
  // Luma on white, summed as gradient per tile of a grid stepping half a tile.
  const luma = new Float32Array(width * height);
  for (let p = 0; p < width * height; p++) {
    const a = (rgba[p * 4 + 3] as number) / 255;
    const y = 0.299 * (rgba[p * 4] as number) + 0.587 * (rgba[p * 4 + 1] as number) + 0.114 * (rgba[p * 4 + 2] as number);
    luma[p] = y * a + 255 * (1 - a);
  }
  const columnGradient = new Float32Array(width * height);
  for (let y = 0; y < height - 1; y++) {
    for (let x = 0; x < width - 1; x++) {
      const p = y * width + x;
      columnGradient[p] = Math.abs((luma[p] as number) - (luma[p + 1] as number)) + Math.abs((luma[p] as number) - (luma[p + width] as number));
    }
  }
  const step = Math.max(1, Math.floor(side / 2));
  let best: PixelRect = { left: Math.floor((width - side) / 2), top: Math.floor((height - side) / 2), width: side, height: side };
  let bestGradient = -1;
  for (let top = 0; top + side <= height; top += step) {
    for (let left = 0; left + side <= width; left += step) {
      let gradient = 0;
      // Every other row: the ranking needs no more.
      for (let y = top; y < top + side; y += 2) {
        const row = y * width;
        for (let x = left; x < left + side; x++) gradient += columnGradient[row + x] as number;
      }
      if (gradient > bestGradient) {
        bestGradient = gradient;
        best = { left, top, width: side, height: side };
      }
    }
  }
  const crop = new Uint8Array(side * side * 4);
  for (let y = 0; y < side; y++) {
    const from = ((best.top + y) * width + best.left) * 4;
    crop.set(rgba.subarray(from, from + side * 4), y * side * 4);
  }
  return { rgba: crop, crop: best, imageWidth: width, imageHeight: height };
}

/** The fidelity of `svg` on the detail crop, drawn at the decoded image's size. */
export function detailFidelity(svg: string, detail: DetailReference): number {
  const { crop } = detail;
  const rendered = renderSvg(croppedSvg(svg, detail.imageWidth, detail.imageHeight, crop), crop.width, crop.height);
  return fidelityOf(compareImages(detail.rgba, rendered, crop.width, crop.height));
}
