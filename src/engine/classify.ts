// Decides what kind of picture an image is, for `mode: auto` and `curveMode: auto`.
// Cheap statistics over the working-resolution pixels; thresholds were set on the
// benchmark corpus (see docs/parameters.md, "How auto decides").

export type ImageKind = 'sketch' | 'logo' | 'photo' | 'pixelart';

export interface ImageStats {
  pixels: number;
  /** Share of pixels with alpha below 128 (traced as transparent). */
  transparentShare: number;
  /** Share of pixels with 0 < alpha < 255. */
  partialAlphaShare: number;
  /** Distinct RGB colours among the opaque pixels (exact, capped at 65,536). */
  distinctColours: number;
  /** Share of horizontally adjacent opaque pixel pairs that are exactly equal. */
  equalNeighbourShare: number;
  /** Of the unequal adjacent pairs, the share that differ only slightly (anti-aliasing, gradients, noise). */
  softEdgeShare: number;
  /** Mean chroma (max − min channel) of opaque pixels, 0–255. */
  meanChroma: number;
  /** Share of opaque pixels that are dark (luma < 128). */
  darkShare: number;
  /** Share of opaque pixels that are near the extremes (luma < 64 or > 192). */
  extremeShare: number;
}

export function luma(r: number, g: number, b: number): number {
  return 0.299 * r + 0.587 * g + 0.114 * b;
}

export function measureImage(rgba: Buffer, width: number, height: number): ImageStats {
  const pixels = width * height;
  let transparent = 0;
  let partial = 0;
  let opaque = 0;
  let chroma = 0;
  let dark = 0;
  let extreme = 0;
  let equalPairs = 0;
  let unequalPairs = 0;
  let softPairs = 0;
  const seen = new Uint8Array(1 << 21); // bitset over 24-bit RGB
  let distinct = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const r = rgba[i] as number;
      const g = rgba[i + 1] as number;
      const b = rgba[i + 2] as number;
      const a = rgba[i + 3] as number;
      if (a < 128) transparent++;
      if (a > 0 && a < 255) partial++;
      if (a < 128) continue;
      opaque++;
      chroma += Math.max(r, g, b) - Math.min(r, g, b);
      const l = luma(r, g, b);
      if (l < 128) dark++;
      if (l < 64 || l > 192) extreme++;
      const key = (r << 16) | (g << 8) | b;
      const bit = 1 << (key & 7);
      if (distinct < 65536 && !((seen[key >> 3] as number) & bit)) {
        seen[key >> 3] = (seen[key >> 3] as number) | bit;
        distinct++;
      }
      if (x + 1 < width && (rgba[i + 7] as number) >= 128) {
        const dr = Math.abs(r - (rgba[i + 4] as number));
        const dg = Math.abs(g - (rgba[i + 5] as number));
        const db = Math.abs(b - (rgba[i + 6] as number));
        const difference = dr + dg + db;
        if (difference === 0) equalPairs++;
        else {
          unequalPairs++;
          if (difference < 48) softPairs++;
        }
      }
    }
  }
  const opaqueOrOne = Math.max(1, opaque);
  return {
    pixels,
    transparentShare: transparent / pixels,
    partialAlphaShare: partial / pixels,
    distinctColours: distinct,
    equalNeighbourShare: equalPairs / Math.max(1, equalPairs + unequalPairs),
    softEdgeShare: softPairs / Math.max(1, unequalPairs),
    meanChroma: chroma / opaqueOrOne,
    darkShare: dark / opaqueOrOne,
    extremeShare: extreme / opaqueOrOne,
  };
}

/** Statistics are taken at most at this size, so thresholds do not depend on the source resolution. */
export const CLASSIFY_PIXELS = 400_000;

export interface ImageFacts {
  originalWidth: number;
  originalHeight: number;
  /** Indexed-colour source. */
  palette: boolean;
}

/** The kind of picture, from its statistics and what the decoder saw. */
export function classifyImage(stats: ImageStats, facts: ImageFacts): ImageKind {
  const { originalWidth, originalHeight } = facts;
  const longSide = Math.max(originalWidth, originalHeight);
  // Pixel art: small, few colours, hard edges (neighbours are equal or clearly different).
  if (
    longSide <= 512 &&
    stats.distinctColours <= 256 &&
    stats.softEdgeShare < 0.35 &&
    stats.equalNeighbourShare < 0.9
  ) {
    return 'pixelart';
  }
  // Tiny icons are best kept pixel-exact whatever they hold.
  if (longSide <= 64) return 'pixelart';
  // Line art, scans and documents: nearly grey, mostly near black or white, mostly light.
  // Etchings and engravings: grey, and nearly every change between neighbours is a hard one.
  if (stats.meanChroma < 8 && ((stats.extremeShare > 0.8 && stats.darkShare < 0.5) || stats.softEdgeShare < 0.4)) {
    return 'sketch';
  }
  // Flat colour: large runs of identical pixels.
  if (stats.equalNeighbourShare > 0.6) return 'logo';
  // An indexed-colour source is flat colour even when resampling blurred it (maps, charts).
  if (facts.palette) return 'logo';
  return 'photo';
}
