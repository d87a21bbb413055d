// Artwork split into regions that each take one paint (a flat colour or a gradient).
//
// A palette over-segments the image: every band of a gradient and every anti-aliased step of
// an edge becomes a region of its own (components.ts). Regions are then put back together:
//   1. mixtures (mixtures.ts): thin regions whose colour lies between two neighbours' colours are
//      the anti-aliasing of the edge between those neighbours; their pixels go to whichever
//      neighbour each is closer to, which puts the edge halfway along the ramp;
//   2. smooth merges (regions.ts): neighbours merge, cheapest first, while one smooth colour model
//      (moments.ts) explains both nearly as well as each explains itself — gradient bands
//      rejoin, real edges stay; thin pieces of one outline are joined;
//   3. specks (regions.ts): regions of a pixel or two take their closest neighbour unless they stand out.
// Silhouettes against transparency are made opaque first (silhouette.ts).

import { addPixel, frameOf, MOMENT_STRIDE, type Frame } from './moments.ts';
import { find, labelComponents, maxLabel, relabel } from './components.ts';
import { isClear } from './measures.ts';
import { dissolveMixtures, MIXTURE_PASSES } from './mixtures.ts';
import { absorbSpecks, buildGraph, joinThinChains, mergeSmoothRegions } from './regions.ts';
import { premultiply } from './silhouette.ts';

export { TRANSPARENT_BELOW } from './measures.ts';

export interface Segmentation {
  width: number;
  height: number;
  /** Region of each pixel, -1 where transparent (a region whose mean alpha is below TRANSPARENT_BELOW). */
  labels: Int32Array;
  count: number;
  /** MOMENT_STRIDE sums per region, of the unquantised premultiplied colours. */
  sums: Float64Array;
  frame: Frame;
  /** The image's premultiplied RGBA, which the sums were taken from. */
  premultiplied: Buffer;
}

export interface SegmentOptions {
  /**
   * How much worse (RMS per channel, 0–255) a merged region's model may explain either part than
   * the part's own model does. Quantisation bands of a gradient differ by about 1; an edge by its contrast.
   */
  mergeTolerance: number;
  /**
   * Squared error (summed over channels) that one pixel edge of boundary is worth: neighbours
   * merge when merging adds less error than their shared boundary is worth (Mumford–Shah).
   */
  boundaryWorth: number;
  /** Regions of at most this many pixels are specks. */
  speckPixels: number;
  /** A speck whose colour is farther than this (RMS per channel) from every neighbour stays. */
  speckContrast: number;
  /**
   * Thin pieces of clearly different colours join into one outline only when one is the other
   * partly covered (joinThinChains). For icons: at their size whole features are thin.
   */
  separatePaints: boolean;
}

export const DEFAULT_SEGMENT_OPTIONS: SegmentOptions = { mergeTolerance: 3, boundaryWorth: 4 * 6 * 6, speckPixels: 2, speckContrast: 24, separatePaints: false };


/**
 * Regions of the image: `quantised` (same size, binary alpha) gives the first partition,
 * `rgba` the colours the models are fitted to.
 */
export function segmentArtwork(rgba: Buffer, quantised: Buffer, width: number, height: number, options = DEFAULT_SEGMENT_OPTIONS): Segmentation {
  const frame = frameOf(width, height);
  const colours = premultiply(rgba);
  let labels = labelComponents(quantised, width, height);
  let count = maxLabel(labels) + 1;
  let sums = accumulate(labels, count, colours, width, frame);
  // Edges blurred over several pixels leave slivers touching only other slivers: each pass
  // dissolves the ones next to an edge's sides, and exposes the next.
  for (let pass = 0; pass < MIXTURE_PASSES; pass++) {
    const dissolved = dissolveMixtures(labels, count, sums, colours, width, height, frame);
    if (dissolved === labels) break;
    ({ labels, count } = relabel(dissolved, width));
    sums = accumulate(labels, count, colours, width, frame);
  }
  const graph = buildGraph(labels, count, width, height);
  // Flat first, which is cheap and takes most merges (noise, flat areas split by the palette), then smooth.
  mergeSmoothRegions(graph, sums, options.mergeTolerance, options.boundaryWorth, true);
  mergeSmoothRegions(graph, sums, options.mergeTolerance, options.boundaryWorth, false);
  joinThinChains(graph, sums, labels, width, height, options.separatePaints);
  absorbSpecks(graph, sums, options);
  const merged = labels.map((label) => find(graph.parent, label));
  ({ labels, count } = relabel(merged, width));
  sums = accumulate(labels, count, colours, width, frame);
  return { width, height, labels: withTransparency(labels, sums), count, sums, frame, premultiplied: colours };
}

/** Labels of regions too transparent to paint become -1. */
function withTransparency(labels: Int32Array, sums: Float64Array): Int32Array {
  const count = sums.length / MOMENT_STRIDE;
  const clear = new Uint8Array(count);
  for (let region = 0; region < count; region++) clear[region] = isClear(sums, region) ? 1 : 0;
  return labels.map((label) => (clear[label] ? -1 : label));
}

function accumulate(labels: Int32Array, count: number, colours: Buffer, width: number, frame: Frame): Float64Array {
  const sums = new Float64Array(count * MOMENT_STRIDE);
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i] as number;
    if (label < 0) continue;
    const p = i * 4;
    addPixel(
      sums,
      label * MOMENT_STRIDE,
      frame,
      i % width,
      Math.floor(i / width),
      colours[p] as number,
      colours[p + 1] as number,
      colours[p + 2] as number,
      colours[p + 3] as number,
    );
  }
  return sums;
}
