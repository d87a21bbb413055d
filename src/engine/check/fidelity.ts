// The engine's own score of a result, 0–1, from a comparison (compare.ts): what `fidelity` in the
// API response is. Defined in docs/engine.md ("How the engine checks its work").

import { tileArea, type Comparison } from './compare.ts';

/**
 * Mean Oklab ΔE at which a tile's colour counts as entirely wrong: about black against a middle
 * grey. A flattened paper tone or a posterised photo differs by 0.02–0.05; light artwork gone
 * from a dark ground by 0.5 and more.
 */
export const DELTA_E_SCALE = 0.25;
/** Weight of the worst regions against the whole: a lost eye costs a face more than its share of pixels. */
const WORST_WEIGHT = 0.25;
/** The worst regions: this share of the tiles that hold anything. */
const WORST_SHARE = 0.05;

/** A tile's score: the mean of its structure (SSIM of lightness) and how right its colour is. */
export function tileScore(ssim: number, deltaE: number): number {
  return 0.5 * Math.max(0, ssim) + 0.5 * Math.max(0, 1 - deltaE / DELTA_E_SCALE);
}

/**
 * The area-weighted mean of the tiles' scores, blended with the mean of the worst few tiles
 * that hold artwork; rounded to three decimals.
 */
export function fidelityOf(comparison: Comparison): number {
  const { tiles } = comparison;
  const scores: number[] = [];
  let total = 0;
  let weight = 0;
  for (let t = 0; t < tiles.deltaE.length; t++) {
    const score = tileScore(tiles.ssim[t] as number, tiles.deltaE[t] as number);
    const area = tileArea(t, comparison.width, comparison.height, tiles);
    total += score * area;
    weight += area;
    if ((tiles.content[t] as number) > 0) scores.push(score);
  }
  const whole = weight > 0 ? total / weight : 1;
  if (scores.length === 0) return round(whole);
  scores.sort((a, b) => a - b);
  const worstCount = Math.max(1, Math.round(scores.length * WORST_SHARE));
  let worst = 0;
  for (let i = 0; i < worstCount; i++) worst += scores[i] as number;
  return round((1 - WORST_WEIGHT) * whole + WORST_WEIGHT * (worst / worstCount));
}

function round(value: number): number {
  return Math.round(Math.min(1, Math.max(0, value)) * 1000) / 1000;
}
