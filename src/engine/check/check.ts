// The engine checks its own work: every result is rendered (resvg) and compared with the image
// it came from (compare.ts). The comparison gives the result's `fidelity` (fidelity.ts) and the
// signatures of a destroyed result, each of which sends the image to be traced again another way
// (convert.ts). Thresholds and the measurements behind them: docs/engine.md, "The self-check".

import type { ImageKind } from '../analyse/classify.ts';
import type { ResolvedCurveMode } from '../trace/vtracer.ts';
import { compareImages, type Comparison } from './compare.ts';
import { fidelityOf, tileScore } from './fidelity.ts';
import { renderSvg } from './render.ts';

/**
 * - `coverage`: opaque area lost or gained (light artwork taken for paper and dropped, a shape
 *   that spilled over its ground);
 * - `region`: one part of the picture far worse than the rest (a face's eye merged, a letter gone);
 * - `squares`: artwork or a photograph traced pixel-exact on a grid coarser than its output, so
 *   its pixels show as squares and stair-steps at 100 %;
 * - `blobs`: pixel art traced smooth: its pixels became rounded shapes;
 * - `faint`: the whole result far from the image (a kind that does not fit it at all);
 * - `colour`: ink on paper painted over clear colour (a chart's bars, a coloured stamp), which
 *   the ink's one colour turned grey;
 * - `tones`: ink on paper painted over flat tones of grey (grey artwork or a grey sprite sheet
 *   taken for ink), which became paper or ink.
 */
export type Signature = 'coverage' | 'region' | 'squares' | 'blobs' | 'faint' | 'colour' | 'tones';

export interface CheckReport {
  fidelity: number;
  signatures: Signature[];
  comparison: Comparison;
}

/** What was traced, as the kind-specific signatures need it. */
export interface TraceFacts {
  kind: ImageKind;
  curveMode: ResolvedCurveMode;
  /** Traced pixels per pixel of the original, along a side. */
  tracedScale: number;
  /** The image shows pixel art's own evidence (classify.ts, hasPixelGrid). */
  pixelGrid: boolean;
}

/** The source as the check compares it: straight RGBA at the size of the comparison. */
export interface CheckReference {
  rgba: Uint8Array;
  width: number;
  height: number;
}

/** Opaque area lost or gained over this share of the image (and of the artwork) is a changed coverage. */
export const COVERAGE_CHANGE = 0.03;
const COVERAGE_CHANGE_OF_ARTWORK = 0.1;
/** A tile scoring under this, where the artwork's median tile scores at least REGION_MEDIAN, stands out. */
export const REGION_FLOOR = 0.3;
const REGION_MEDIAN = 0.6;
/** Tiles holding less artwork than this share are not judged on their own. */
const REGION_MIN_CONTENT = 0.1;
/** Pixel-exact outlines traced this much coarser than the output show their steps at 100 %. */
const SQUARES_BELOW_SCALE = 0.75;
/**
 * Ink painted over clear colour on this share of the image or more is colour lost. Ink on paper
 * measured loses none (yellowing and stains stay under the chroma COLOURED counts).
 */
export const COLOUR_LOST_ABOVE = 0.002;
/**
 * Ink painted over flat fills of grey on this share of the image or more has lost their tones
 * (compare.ts, tonesLost). Ink and scans of the corpus and the tune part and their copies lose at
 * most 0.016 (a photographed letter), grey artwork and sprites taken for ink 0.05–0.29 (a grey
 * elephant on black 0.08).
 */
export const TONES_LOST_ABOVE = 0.03;
/** A result this far from the image altogether is not a rendering of it. */
export const FAINT_BELOW = 0.45;

export function checkSvg(svg: string, reference: CheckReference, facts: TraceFacts): CheckReport {
  const rendered = renderSvg(svg, reference.width, reference.height);
  const comparison = compareImages(reference.rgba, rendered, reference.width, reference.height, { tones: facts.kind === 'sketch' });
  const fidelity = fidelityOf(comparison);
  return { fidelity, comparison, signatures: signaturesOf(comparison, fidelity, facts) };
}

export function signaturesOf(comparison: Comparison, fidelity: number, facts: TraceFacts): Signature[] {
  const signatures: Signature[] = [];
  const artwork = Math.max(comparison.sourceCoverage, 1e-6);
  const changed = (share: number) => share > COVERAGE_CHANGE && share > COVERAGE_CHANGE_OF_ARTWORK * artwork;
  if (changed(comparison.coverageLost) || changed(comparison.coverageGained)) signatures.push('coverage');
  if (hasOutlierRegion(comparison)) signatures.push('region');
  if (facts.curveMode === 'none' && facts.kind !== 'pixelart' && facts.tracedScale < SQUARES_BELOW_SCALE) signatures.push('squares');
  if (facts.pixelGrid && facts.kind !== 'pixelart') signatures.push('blobs');
  if (fidelity < FAINT_BELOW) signatures.push('faint');
  if (facts.kind === 'sketch' && comparison.colourLost >= COLOUR_LOST_ABOVE) signatures.push('colour');
  if (facts.kind === 'sketch' && comparison.toneLost >= TONES_LOST_ABOVE) signatures.push('tones');
  return signatures;
}

function hasOutlierRegion({ tiles }: Comparison): boolean {
  const scores: number[] = [];
  for (let t = 0; t < tiles.deltaE.length; t++) {
    if ((tiles.content[t] as number) >= REGION_MIN_CONTENT) scores.push(tileScore(tiles.ssim[t] as number, tiles.deltaE[t] as number));
  }
  if (scores.length < 4) return false;
  scores.sort((a, b) => a - b);
  return (scores[0] as number) < REGION_FLOOR && (scores[Math.floor(scores.length / 2)] as number) >= REGION_MEDIAN;
}
