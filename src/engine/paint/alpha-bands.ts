// Light drawn in alpha: a glow, a flash, sparks or smoke on transparency, where the alpha is the
// picture and fades across it. The tracer's alpha is binary (half alpha in or out), so such a
// picture came back as opaque patches or nothing (a lightning bolt's glow, fireworks: fidelity
// 0.14–0.23). Here the alpha is cut into bands, each band's area (every pixel at least as opaque)
// is traced on its own and painted at the opacity that, stacked on the bands below it, gives the
// band's mean alpha.

import type { RgbaImage } from '../analyse/prepare.ts';

/**
 * Lower edges of the bands (alpha levels). Pixels under the first are invisible on any ground
 * (under 2.5 %). The bands are narrower at low alpha, where a glow spends most of its pixels.
 */
const BAND_EDGES = [6, 24, 56, 96, 144, 200] as const;
/**
 * Of the visible pixels, at least this share partly transparent (between the first band's edge
 * and the top band's) is alpha that carries the picture. Artwork with anti-aliased edges on
 * transparency has its rim there (a fifth of its pixels at most at 48 px; the fireworks 0.9).
 */
const MIN_PARTIAL_SHARE = 0.35;

/** Whether the image's alpha fades across the picture (MIN_PARTIAL_SHARE), as light drawn in alpha does. */
export function alphaCarriesPicture(image: RgbaImage): boolean {
  const { rgba } = image;
  let visible = 0;
  let partial = 0;
  for (let i = 3; i < rgba.length; i += 4) {
    const a = rgba[i] as number;
    if (a < (BAND_EDGES[0] as number)) continue;
    visible++;
    if (a < (BAND_EDGES[BAND_EDGES.length - 1] as number)) partial++;
  }
  return visible > 0 && partial / visible >= MIN_PARTIAL_SHARE;
}

export interface AlphaBand {
  /** The band's area: the image's colours, opaque where its alpha reaches the band, clear elsewhere. */
  layer: RgbaImage;
  /** The opacity to paint the band's area at, stacked on the bands below it. */
  opacity: number;
}

/**
 * The image's alpha bands, lowest first (empty ones left out). A pixel lies in its own band's
 * area and in every one below; band k painted at o_k over the bands below gives
 * 1 − Π(1 − o_i) = its mean alpha v_k, so o_k = 1 − (1 − v_k) / (1 − v_{k−1}).
 */
export function alphaBands(image: RgbaImage): AlphaBand[] {
  const { rgba, width, height } = image;
  const sums = new Float64Array(BAND_EDGES.length);
  const counts = new Float64Array(BAND_EDGES.length);
  for (let i = 3; i < rgba.length; i += 4) {
    const band = bandOf(rgba[i] as number);
    if (band < 0) continue;
    sums[band] = (sums[band] as number) + (rgba[i] as number) / 255;
    counts[band] = (counts[band] as number) + 1;
  }
  const bands: AlphaBand[] = [];
  let below = 0;
  for (let band = 0; band < BAND_EDGES.length; band++) {
    if ((counts[band] as number) === 0) continue;
    // Every pixel of a band is more opaque than any below it, so the means rise and below < 1.
    const mean = (sums[band] as number) / (counts[band] as number);
    const opacity = 1 - (1 - mean) / (1 - below);
    below = mean;
    const edge = BAND_EDGES[band] as number;
    const layer = Buffer.from(rgba);
    for (let i = 3; i < layer.length; i += 4) layer[i] = (layer[i] as number) >= edge ? 255 : 0;
    bands.push({ layer: { rgba: layer, width, height }, opacity: Math.round(opacity * 1000) / 1000 });
  }
  return bands;
}

function bandOf(alpha: number): number {
  for (let band = BAND_EDGES.length - 1; band >= 0; band--) if (alpha >= (BAND_EDGES[band] as number)) return band;
  return -1;
}
