// Decides what kind of picture an image is, for `mode: auto` and `curveMode: auto`.
// Cheap statistics over the image at most CLASSIFY_PIXELS; each rule and its thresholds, with
// the measurements behind them, are in docs/parameters.md ("How auto decides").

import { luma, measureInk, type InkStats } from './ink.ts';
import { pixelWords } from './palette.ts';

export { luma };

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
  /**
   * As equalNeighbourShare, leaving out the pairs that are both the plain ground the image sits on
   * (the colour of its border, where the border is plain): how flat the artwork itself is.
   */
  equalOffGroundShare: number;
  /** Of the unequal adjacent pairs, the share that differ only slightly (anti-aliasing, gradients, noise). */
  softEdgeShare: number;
  /**
   * Of the runs of three opaque pixels along a row or column whose ends differ clearly (RAMP_STEP),
   * the share whose middle pixel lies strictly between its neighbours in every channel: the blend
   * that anti-aliasing and gradients put between two colours, which hand-placed pixels lack.
   */
  rampShare: number;
  /**
   * Of the adjacent pixel pairs whose alpha differs, the share that step straight from 0 to 255;
   * 1 when no alpha differs. Pixel art has binary alpha; anti-aliased shapes have soft edges.
   */
  hardAlphaShare: number;
  /**
   * Of the partly transparent pixels, the share with a pixel of the same alpha beside them along
   * both axes: translucency drawn as flat areas (pixel art's shadows and glass), where
   * anti-aliasing is a rim a pixel wide. 0 when no pixel is partly transparent.
   */
  flatTranslucentShare: number;
  /**
   * Share of horizontally adjacent opaque pairs that differ by at most NEAR_FLAT_DIFFERENCE (sum
   * over channels), leaving out pairs in clipped shadows or highlights: flat colour as it survives
   * JPEG compression, which breaks exact equality. Clipped areas are flat in photographs too.
   */
  nearFlatShare: number;
  /** As equalNeighbourShare, among the pairs nearFlatShare counts: clipped shadows and highlights (a night sky) left out. */
  equalUnclippedShare: number;
  /**
   * Share of opaque pixels farther than OFF_AXIS_DISTANCE (RGB) from the principal axis of the
   * image's colours: near 0 for monochrome images (grey, sepia or any one tint), large for colour.
   */
  offAxisShare: number;
  /** Mean chroma (max − min channel) of opaque pixels, 0–255. */
  meanChroma: number;
  /** Share of opaque pixels that are dark (luma < 128). */
  darkShare: number;
  /** Share of opaque pixels that are near the extremes (luma < 64 or > 192). */
  extremeShare: number;
  /** How well the image reads as ink on paper; measured for opaque images only (paper is opaque). */
  ink?: InkStats;
  /**
   * Of the colour edges (runs of three opaque pixels whose ends differ clearly), the share whose
   * middle pixel is a blend of its ends (on the segment between them in every channel) in a colour
   * the image rarely uses: anti-aliasing, which mixes the two sides in a shade of its own. Pixel
   * art steps from one palette colour to the next; its shading ramps use colours that recur.
   * Measured on images of at most MAX_BLEND_COLOURS colours, or on sheets cut out with mostly
   * hard alpha (isManyColourSheet), where every colour is rare and every blend counts; else 1.
   */
  aaBlendShare: number;
  /** Colour edges seen for aaBlendShare (few edges, little evidence). */
  colourEdges: number;
  /**
   * Share of the pixels along the image's edge (its outer ring) that are opaque and within
   * PLAIN_GROUND_DIFFERENCE of the ring's median colour: an icon or a logo sits on a plain ground,
   * where a photograph fills its frame.
   */
  plainBorderShare: number;
  /** k when the image is pixel art enlarged k times (k × k blocks), measured at its own grid; else 1. */
  pixelScale: number;
  /** Blocks of a non-uniform enlargement (kx wide, ky tall), when not square; pixelScale is then the smaller. */
  blockWidth: number;
  blockHeight: number;
}

/** Colour difference (sum over channels) from which a run of three pixels counts for rampShare. */
const RAMP_STEP = 24;
/** The middle of a ramp lies at least this share of the step away from either end. */
const RAMP_MARGIN = 0.15;
/** Neighbours this close (sum of channel differences) count as flat for nearFlatShare. */
const NEAR_FLAT_DIFFERENCE = 6;
/** Luma below or above these bounds is clipped (shadows, highlights). */
const CLIPPED_BELOW = 24;
const CLIPPED_ABOVE = 232;
const OFF_AXIS_DISTANCE = 24;
/** Above this offAxisShare an image is too colourful to be ink on paper (whose rule allows 0.1 off the ink–paper line). */
const INK_MAX_OFF_AXIS_SHARE = 0.25;
/** Images with less transparency than this are opaque: paper, which is painted as a background. */
export const OPAQUE_BELOW = 0.01;

export interface MeasureOptions {
  /**
   * Measure how well the image reads as ink on paper (the costliest measure: 40 ms on an opaque
   * icon of 128 px). Icons are never ink (classifyImage), so their conversions leave it out.
   */
  ink?: boolean;
}

type OriginalSize = Pick<ImageFacts, 'originalWidth' | 'originalHeight'>;

/** Larger than an icon (RULES.icon), at its original size. */
export function largerThanIcon(facts: OriginalSize): boolean {
  return Math.max(facts.originalWidth, facts.originalHeight) > RULES.icon.maxLongSide;
}

/** Whether classifyImage can use the ink measures for an image of this original size: icons are never ink. */
export function mayBeInk(facts: OriginalSize): boolean {
  return largerThanIcon(facts);
}

/**
 * The statistics of an image. Pixel art enlarged by an integer factor (every source pixel a
 * k × k block) is measured at its own grid, where its statistics are those of pixel art.
 */
export function measureImage(rgba: Buffer, width: number, height: number, options: MeasureOptions = {}): ImageStats {
  const blocks = blockSize(rgba, width, height);
  if (blocks.width === 1 && blocks.height === 1) return { ...measurePixels(rgba, width, height, options), pixelScale: 1, blockWidth: 1, blockHeight: 1 };
  const native = blockCorners(rgba, width, height, blocks);
  return { ...measurePixels(native.rgba, native.width, native.height, options), pixelScale: Math.min(blocks.width, blocks.height), blockWidth: blocks.width, blockHeight: blocks.height };
}

/** An image made of blocks (kx × ky) at its own grid: the top-left pixel of each block, a partial block at the edge included. */
export function blockCorners(rgba: Buffer, width: number, height: number, blocks: { width: number; height: number }): { rgba: Buffer; width: number; height: number } {
  const columns = Math.ceil(width / blocks.width);
  const rows = Math.ceil(height / blocks.height);
  const native = Buffer.alloc(columns * rows * 4);
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < columns; x++) {
      const at = (y * blocks.height * width + x * blocks.width) * 4;
      rgba.copy(native, (y * columns + x) * 4, at, at + 4);
    }
  }
  return { rgba: native, width: columns, height: rows };
}

/**
 * The statistics of a reduction of an image with pixel art's evidence (palette, blends, colour
 * edges, flatness, alpha, blocks) as measured at the image's own pixels (`own`): a smooth
 * reduction blends every pixel edge into anti-aliasing and the palette into thousands of colours,
 * so a sprite sheet measured on it never shows pixel art's evidence. The other statistics stay
 * the reduction's, on which their thresholds were measured.
 */
export function withOwnPixelEvidence(reduced: ImageStats, own: ImageStats): ImageStats {
  return {
    ...reduced,
    distinctColours: own.distinctColours,
    aaBlendShare: own.aaBlendShare,
    colourEdges: own.colourEdges,
    equalOffGroundShare: own.equalOffGroundShare,
    hardAlphaShare: own.hardAlphaShare,
    flatTranslucentShare: own.flatTranslucentShare,
    pixelScale: own.pixelScale,
    blockWidth: own.blockWidth,
    blockHeight: own.blockHeight,
  };
}

/** Block sides blockSize tries, largest first: pixel art is shared enlarged 2×, 3×, 4×, sometimes 8×, and now and then unevenly (5 × 6). */
const BLOCK_SCALES = [8, 6, 5, 4, 3, 2] as const;

/** The largest k for which the image is made of k × k blocks of one RGBA value (nearest-neighbour enlargement), else 1. */
export function blockScale(rgba: Buffer, width: number, height: number): number {
  const { width: kx, height: ky } = blockSize(rgba, width, height);
  return kx === ky ? kx : 1;
}

/**
 * The blocks of one RGBA value (kx wide, ky tall) an image is made of, when it is a nearest-neighbour
 * enlargement by whole factors along each side; 1 × 1 otherwise. Each side is found on its own:
 * columns repeat in runs of kx, rows in runs of ky.
 */
export function blockSize(rgba: Buffer, width: number, height: number): { width: number; height: number } {
  const words = pixelWords(rgba);
  const columnsRepeat = (k: number) => {
    if (width < 2 * k) return false;
    for (let y = 0; y < height; y++) {
      const row = y * width;
      for (let x = 0; x < width; x++) if (x % k !== 0 && words[row + x] !== words[row + x - 1]) return false;
    }
    return true;
  };
  const rowsRepeat = (k: number) => {
    if (height < 2 * k) return false;
    for (let y = 0; y < height; y++) {
      if (y % k === 0) continue;
      const row = y * width;
      for (let x = 0; x < width; x++) if (words[row + x] !== words[row - width + x]) return false;
    }
    return true;
  };
  const kx = BLOCK_SCALES.find(columnsRepeat) ?? 1;
  const ky = BLOCK_SCALES.find(rowsRepeat) ?? 1;
  // One side enlarged alone is a stretched image, not pixel art's grid.
  return kx === 1 || ky === 1 ? { width: 1, height: 1 } : { width: kx, height: ky };
}

/** aaBlendShare is measured on images of at most this many distinct colours (pixel art has far fewer). */
const MAX_BLEND_COLOURS = 2048;
/** A colour used by less than this share of the opaque pixels is rare (an anti-aliasing shade). */
const RARE_COLOUR_SHARE = 0.005;
/**
 * ...or by fewer than this many pixels: in an icon of 24 or 32 px the few shades of its
 * anti-aliasing recur along its curves, 3 to 5 times each, above the share.
 */
const RARE_COLOUR_COUNT = 6;
/**
 * ...or used almost only (this share of its pixels) between two other colours, as a blend of them, in
 * an image of at least BETWEEN_MIN_COLOURS colours: an outline icon of 24 or 32 px in one ink on
 * white has some 20 shades, every one along its curves; pixel art's colours fill areas, and a
 * sprite of a handful of colours has none to spare for blending.
 */
const BETWEEN_SHARE = 0.9;
const BETWEEN_MIN_COLOURS = 12;
/** A blend lies within this many levels (per channel) of the segment between its ends. */
const BLEND_TOLERANCE = 8;

/** The share of colour edges bridged by a blend in a rare colour (ImageStats.aaBlendShare). */
function antiAliasingBlends(rgba: Buffer, width: number, height: number, opaque: number, ground: number | undefined): { share: number; edges: number } {
  const keyAt = (p: number) => ((rgba[p * 4] as number) << 16) | ((rgba[p * 4 + 1] as number) << 8) | (rgba[p * 4 + 2] as number);
  const counts = new Map<number, number>();
  for (let p = 0; p < width * height; p++) {
    if ((rgba[p * 4 + 3] as number) < 255) continue;
    const key = keyAt(p);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  // The pixels that bridge a colour edge (a run of three) as a blend of its ends.
  let edges = 0;
  const blendMiddle = (a: number, m: number, b: number): boolean => {
    if ((rgba[a + 3] as number) < 255 || (rgba[m + 3] as number) < 255 || (rgba[b + 3] as number) < 255) return false;
    let difference = 0;
    for (let c = 0; c < 3; c++) difference += Math.abs((rgba[a + c] as number) - (rgba[b + c] as number));
    if (difference < RAMP_STEP * 2) return false;
    edges++;
    let largest = 0;
    let t = 0;
    for (let c = 0; c < 3; c++) {
      const d = (rgba[b + c] as number) - (rgba[a + c] as number);
      if (Math.abs(d) > Math.abs(largest)) {
        largest = d;
        t = ((rgba[m + c] as number) - (rgba[a + c] as number)) / d;
      }
    }
    if (t <= 0.06 || t >= 0.94) return false;
    for (let c = 0; c < 3; c++) {
      const expected = (rgba[a + c] as number) + t * ((rgba[b + c] as number) - (rgba[a + c] as number));
      if (Math.abs(expected - (rgba[m + c] as number)) > BLEND_TOLERANCE) return false;
    }
    return true;
  };
  const found: number[] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      const i = p * 4;
      if (x > 0 && x + 1 < width && blendMiddle(i - 4, i, i + 4)) found.push(p);
      if (y > 0 && y + 1 < height && blendMiddle(i - width * 4, i, i + width * 4)) found.push(p);
    }
  }
  // How many pixels of each colour are such blends (a pixel may bridge a row and a column).
  const middles = new Uint8Array(width * height);
  const middleCounts = new Map<number, number>();
  for (const p of found) {
    if (middles[p]) continue;
    middles[p] = 1;
    middleCounts.set(keyAt(p), (middleCounts.get(keyAt(p)) ?? 0) + 1);
  }
  // A shade of its own: rare, or used almost only between two other colours, as anti-aliasing is.
  // Rare among the artwork's pixels: the plain ground it sits on (a sprite flattened on white) is not counted.
  const groundPixels = ground === undefined ? 0 : (counts.get(ground) ?? 0);
  const rareBelow = Math.max(RARE_COLOUR_COUNT, (opaque - groundPixels) * RARE_COLOUR_SHARE);
  const manyColours = counts.size >= BETWEEN_MIN_COLOURS;
  const ownShade = (key: number) => {
    const count = counts.get(key) ?? 0;
    return count < rareBelow || (manyColours && (middleCounts.get(key) ?? 0) >= BETWEEN_SHARE * count);
  };
  let blends = 0;
  for (const p of found) if (ownShade(keyAt(p))) blends++;
  return { share: edges === 0 ? 0 : blends / edges, edges };
}

function measurePixels(rgba: Buffer, width: number, height: number, options: MeasureOptions): Omit<ImageStats, 'pixelScale' | 'blockWidth' | 'blockHeight'> {
  const pixels = width * height;
  let transparent = 0;
  let partial = 0;
  let flatTranslucent = 0;
  let opaque = 0;
  let chroma = 0;
  let dark = 0;
  let extreme = 0;
  const border = plainBorder(rgba, width, height);
  let equalPairs = 0;
  let unequalPairs = 0;
  let groundPairs = 0;
  let softPairs = 0;
  let rampRuns = 0;
  let ramps = 0;
  let alphaSteps = 0;
  let hardAlphaSteps = 0;
  let unclippedPairs = 0;
  let equalUnclippedPairs = 0;
  let nearFlatPairs = 0;
  // Colour sums and products, for the principal axis.
  let sr = 0;
  let sg = 0;
  let sb = 0;
  let srr = 0;
  let sgg = 0;
  let sbb = 0;
  let srg = 0;
  let srb = 0;
  let sgb = 0;
  const seen = new Uint8Array(1 << 21); // bitset over 24-bit RGB
  let distinct = 0;
  const isRamp = (i: number, step: number): boolean => {
    const j = i + step;
    const k = i + 2 * step;
    if ((rgba[j + 3] as number) < 128 || (rgba[k + 3] as number) < 128) return false;
    let difference = 0;
    for (let c = 0; c < 3; c++) difference += Math.abs((rgba[i + c] as number) - (rgba[k + c] as number));
    if (difference < RAMP_STEP) return false;
    rampRuns++;
    let fromStart = 0;
    let fromEnd = 0;
    for (let c = 0; c < 3; c++) {
      const start = rgba[i + c] as number;
      const middle = rgba[j + c] as number;
      const end = rgba[k + c] as number;
      if (middle < Math.min(start, end) || middle > Math.max(start, end)) return false;
      fromStart += Math.abs(middle - start);
      fromEnd += Math.abs(middle - end);
    }
    return fromStart >= RAMP_MARGIN * difference && fromEnd >= RAMP_MARGIN * difference;
  };
  const alphaStep = (a: number, b: number): void => {
    if (a === b) return;
    alphaSteps++;
    if ((a === 0 && b === 255) || (a === 255 && b === 0)) hardAlphaSteps++;
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const r = rgba[i] as number;
      const g = rgba[i + 1] as number;
      const b = rgba[i + 2] as number;
      const a = rgba[i + 3] as number;
      if (a < 128) transparent++;
      if (a > 0 && a < 255) {
        partial++;
        const sameAlongRow = (x > 0 && rgba[i - 1] === a) || (x + 1 < width && rgba[i + 7] === a);
        const sameAlongColumn = (y > 0 && rgba[i - width * 4 + 3] === a) || (y + 1 < height && rgba[i + width * 4 + 3] === a);
        if (sameAlongRow && sameAlongColumn) flatTranslucent++;
      }
      if (x + 1 < width) alphaStep(a, rgba[i + 7] as number);
      if (y + 1 < height) alphaStep(a, rgba[i + width * 4 + 3] as number);
      if (a < 128) continue;
      opaque++;
      sr += r;
      sg += g;
      sb += b;
      srr += r * r;
      sgg += g * g;
      sbb += b * b;
      srg += r * g;
      srb += r * b;
      sgb += g * b;
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
      if (x + 2 < width && isRamp(i, 4)) ramps++;
      if (y + 2 < height && isRamp(i, width * 4)) ramps++;
      if (x + 1 < width && (rgba[i + 7] as number) >= 128) {
        const dr = Math.abs(r - (rgba[i + 4] as number));
        const dg = Math.abs(g - (rgba[i + 5] as number));
        const db = Math.abs(b - (rgba[i + 6] as number));
        const difference = dr + dg + db;
        if (difference === 0) {
          equalPairs++;
          if (key === border.ground) groundPairs++;
        } else {
          unequalPairs++;
          if (difference < 48) softPairs++;
        }
        const nextLuma = luma(rgba[i + 4] as number, rgba[i + 5] as number, rgba[i + 6] as number);
        const clipped = (l < CLIPPED_BELOW && nextLuma < CLIPPED_BELOW) || (l > CLIPPED_ABOVE && nextLuma > CLIPPED_ABOVE);
        if (!clipped) {
          unclippedPairs++;
          if (difference <= NEAR_FLAT_DIFFERENCE) nearFlatPairs++;
          if (difference === 0) equalUnclippedPairs++;
        }
      }
    }
  }
  const opaqueOrOne = Math.max(1, opaque);
  const transparentShare = transparent / pixels;
  const mean = { r: sr / opaqueOrOne, g: sg / opaqueOrOne, b: sb / opaqueOrOne };
  const covarianceMatrix = [
    [srr / opaqueOrOne - mean.r * mean.r, srg / opaqueOrOne - mean.r * mean.g, srb / opaqueOrOne - mean.r * mean.b],
    [srg / opaqueOrOne - mean.r * mean.g, sgg / opaqueOrOne - mean.g * mean.g, sgb / opaqueOrOne - mean.g * mean.b],
    [srb / opaqueOrOne - mean.r * mean.b, sgb / opaqueOrOne - mean.g * mean.b, sbb / opaqueOrOne - mean.b * mean.b],
  ] as const;
  const farFromAxis = offAxisShare(rgba, mean, principalAxis(covarianceMatrix), opaque);
  const hardAlphaShare = alphaSteps === 0 ? 1 : hardAlphaSteps / alphaSteps;
  const measureBlends = distinct <= MAX_BLEND_COLOURS || mayBeManyColourSheet({ transparentShare, hardAlphaShare });
  const blends = measureBlends ? antiAliasingBlends(rgba, width, height, opaque, border.ground) : { share: 1, edges: 0 };
  return {
    aaBlendShare: blends.share,
    plainBorderShare: border.share,
    colourEdges: blends.edges,
    pixels,
    transparentShare,
    partialAlphaShare: partial / pixels,
    distinctColours: distinct,
    equalNeighbourShare: equalPairs / Math.max(1, equalPairs + unequalPairs),
    equalOffGroundShare: (equalPairs - groundPairs) / Math.max(1, equalPairs - groundPairs + unequalPairs),
    softEdgeShare: softPairs / Math.max(1, unequalPairs),
    rampShare: ramps / Math.max(1, rampRuns),
    hardAlphaShare,
    flatTranslucentShare: partial === 0 ? 0 : flatTranslucent / partial,
    nearFlatShare: nearFlatPairs / Math.max(1, unclippedPairs),
    equalUnclippedShare: equalUnclippedPairs / Math.max(1, unclippedPairs),
    offAxisShare: farFromAxis,
    meanChroma: chroma / opaqueOrOne,
    darkShare: dark / opaqueOrOne,
    extremeShare: extreme / opaqueOrOne,
    // Ink and paper colours lie near one line, so an image with many colours off its principal
    // axis is not ink on paper, and is spared measuring (the ink measures cost the most here).
    ink: options.ink !== false && transparentShare < OPAQUE_BELOW && farFromAxis <= INK_MAX_OFF_AXIS_SHARE ? measureInk(rgba, width, height) : undefined,
  };
}

/** A border this much of one colour is a plain ground the image sits on. */
const PLAIN_GROUND_SHARE = 0.5;
/** A border pixel this close to the border's median colour (sum of channel differences) is the ground. */
const PLAIN_GROUND_DIFFERENCE = 36;

function plainBorder(rgba: Buffer, width: number, height: number): { share: number; ground?: number } {
  const ring: number[] = [];
  for (let x = 0; x < width; x++) ring.push(x, (height - 1) * width + x);
  for (let y = 1; y + 1 < height; y++) ring.push(y * width, y * width + width - 1);
  const opaque = ring.filter((p) => (rgba[p * 4 + 3] as number) >= 128);
  if (opaque.length === 0) return { share: 0 };
  const median = (c: number) => {
    const values = opaque.map((p) => rgba[p * 4 + c] as number).sort((a, b) => a - b);
    return values[values.length >> 1] as number;
  };
  const ground = [median(0), median(1), median(2)];
  let plain = 0;
  for (const p of opaque) {
    let difference = 0;
    for (let c = 0; c < 3; c++) difference += Math.abs((rgba[p * 4 + c] as number) - (ground[c] as number));
    if (difference <= PLAIN_GROUND_DIFFERENCE) plain++;
  }
  const share = plain / ring.length;
  return share >= PLAIN_GROUND_SHARE ? { share, ground: ((ground[0] as number) << 16) | ((ground[1] as number) << 8) | (ground[2] as number) } : { share };
}

type Matrix3 = readonly (readonly [number, number, number])[];

/** The eigenvector of the largest eigenvalue of a covariance matrix (power iteration); grey for a flat image. */
function principalAxis(covariance: Matrix3): [number, number, number] {
  let axis: [number, number, number] = [1, 1, 1];
  for (let step = 0; step < 32; step++) {
    const next = covariance.map((row) => row[0] * axis[0] + row[1] * axis[1] + row[2] * axis[2]) as [number, number, number];
    const length = Math.hypot(...next);
    if (length < 1e-9) return [1 / Math.sqrt(3), 1 / Math.sqrt(3), 1 / Math.sqrt(3)];
    axis = [next[0] / length, next[1] / length, next[2] / length];
  }
  return axis;
}

function offAxisShare(rgba: Buffer, mean: { r: number; g: number; b: number }, axis: [number, number, number], opaque: number): number {
  let far = 0;
  for (let i = 0; i < rgba.length; i += 4) {
    if ((rgba[i + 3] as number) < 128) continue;
    const dr = (rgba[i] as number) - mean.r;
    const dg = (rgba[i + 1] as number) - mean.g;
    const db = (rgba[i + 2] as number) - mean.b;
    const along = dr * axis[0] + dg * axis[1] + db * axis[2];
    const er = dr - along * axis[0];
    const eg = dg - along * axis[1];
    const eb = db - along * axis[2];
    if (er * er + eg * eg + eb * eb > OFF_AXIS_DISTANCE * OFF_AXIS_DISTANCE) far++;
  }
  return far / Math.max(1, opaque);
}

/** Statistics are taken at most at this size, so thresholds do not depend on the source resolution. */
export const CLASSIFY_PIXELS = 400_000;

/** At most this many colours is a palette's worth: what an indexed PNG can hold. */
export const FEW_COLOURS = 256;

export interface ImageFacts {
  originalWidth: number;
  originalHeight: number;
  /** Indexed-colour source. */
  palette: boolean;
  /** Not indexed, but at most a palette's worth of colours at its own size (decode.ts). */
  fewColours?: boolean;
}

/**
 * The thresholds of the rules below; docs/parameters.md gives the measurements behind each.
 */
export const RULES = {
  pixelArt: {
    /** Long side at its own grid of a sprite: larger, the evidence must include a stored palette or blocks (maxPixels). */
    maxLongSide: 512,
    /**
     * Pixels at its own grid: what pixel art's trace takes whole (WORKING_PIXELS.pixelart,
     * prepare.ts); a larger grid would be reduced, blurring its pixels. A game's sprite or tile
     * sheet is often larger than 512 px along a side (320 × 806, 560 × 127, 1024 × 32), stored in
     * the game's palette. Re-saved as RGB, an image that large in a palette's worth of colours is as
     * often a render or a screenshot reduced to one (a 640 × 480 title screen rendered in 3D and
     * quantised to 130 colours; a screenshot's table, 139 colours and anti-aliased text whose
     * shades recur): its blends recur as a palette's shading does, so without the palette or
     * blocks of an enlargement it is not taken for pixel art.
     */
    maxPixels: 1_000_000,
    /**
     * ...or a sheet cut out on transparency, at least this share of it transparent, with binary
     * alpha: sprites and tiles laid out for a game (Angband's 512 × 960 and 664 × 792 tile sheets
     * of 245 and 262 colours, 0.013 and 0.002 of their edges blended). The renders and screenshots
     * the long-side rule keeps out are opaque.
     */
    minSheetTransparency: 0.1,
    /** A small palette: what a sprite sheet holds (the emoji sheet with its glows: 460). */
    maxColours: 512,
    /**
     * ...or, larger than an icon and cut out on transparency (minSheetTransparency), a sheet of
     * sprites shaded in thousands of colours (roguelike tile sheets of 1,240–13,800), whose other
     * evidence must then be clear: most of its alpha steps hard (sheets 0.37–0.98, their shadows
     * drawn translucent; anti-aliased artwork cut out on transparency at most 0.03), and few of its
     * colour edges bridged by a blend (sheets 0.12–0.30 measured with every colour, anti-aliased
     * artwork of as many colours 0.43 and more, photographs 0.7), and shaded in steps: at most
     * this share of its colour changes soft (sheets 0.07–0.41; cartoon stamps cut out with hard
     * edges and outlines but shaded in smooth gradients 0.60–0.97).
     */
    minManyColourSheetHardAlpha: 0.3,
    maxManyColourSheetBlendShare: 0.35,
    maxManyColourSheetSoftEdgeShare: 0.5,
    maxAaBlendShare: 0.06,
    /**
     * An indexed source of at most 256 colours (a game's palette), one enlarged into blocks, or one
     * holding at most a palette's worth of colours at its own size, may shade with more of its own colours.
     */
    maxIndexedAaBlendShare: 0.2,
    /** Colour edges needed for evidence: none blended in 8 happens by chance once in six for an icon that blends a fifth of its edges. */
    minColourEdges: 8,
    maxEqualNeighbourShare: 0.9,
    /**
     * Pixel art is drawn in runs of one colour: at least this share of its neighbours (off its
     * ground) are equal. Pixel art in the corpus and the tune part has 0.14 and more (a detailed
     * 36 × 40 sprite); a texture or a photograph quantised to a palette has almost none (a game's
     * sand texture of 256 colours: 0.011).
     */
    minEqualNeighbourShare: 0.08,
    /**
     * The palette's allowance for shading (maxIndexedAaBlendShare) holds only where the palette is
     * laid down in areas of one colour, at least this share of equal neighbours: a game's title
     * screen shading with its 256 colours keeps 0.60, while photographs, renders and painted
     * textures cut out for a game and stored in 256 colours (a flower photograph 0.135, a rendered
     * rock 0.21, painted sprites 0.07–0.18) blend everywhere and are not drawn pixel by pixel.
     */
    minEqualForPaletteShading: 0.3,
    minHardAlphaShare: 0.9,
    /** ... or translucency in flat areas: pixel art in the corpus and the tune part 0.82 (a sheet's glows), anti-aliased artwork at most 0.09. */
    minFlatTranslucentShare: 0.5,
  },
  inkOnPaper: { minPaperLuma: 120, minContrast: 40, maxOffLineShare: 0.1, maxSaturatedOffLineShare: 0.01, maxContinuousToneShare: 0.0025 },
  inkWithoutPaper: { maxMeanChroma: 8, minDarkShare: 0.1 },
  /**
   * Ink on transparency by its extremes alone, with soft changes (isInkWithoutPaper's first test,
   * softEdgeShare 0.4 or more): a glossy light icon with a dark rim and a shadow passes for a black
   * and white drawing. Also traced as artwork, kept if it scores this much higher (doubtfulAlternative):
   * a menu icon's three shaded bars 0.763 as ink, flat grey, 0.915 as artwork; the tune part's line
   * art on transparency (softEdgeShare 0.66) scores 0.013 lower as artwork and stays ink.
   */
  softInkOnTransparency: { minSoftEdgeShare: 0.4, minLogoGain: 0.03 },
  /**
   * Flat colour that is ink on paper but for its colours (doubtfulAlternative): also traced as
   * ink, kept if it scores this much higher. Pages of manuals and a code listing 0.011–0.037
   * saturated off the ink's line; their ink scores 0.010–0.015 higher.
   */
  inkInColours: { maxSaturatedOffLineShare: 0.05, minGain: 0.005 },
  icon: { maxLongSide: 128, minPlainBorderShare: 0.7, thumbnailMaxEqual: 0.5 },
  photoDoubt: { minEqualNeighbourShare: 0.25 },
  photoRamps: { minRampShare: 0.47, maxEqualNeighbourShare: 0.55, minDarkShareInDoubt: 0.8 },
  /**
   * Shading without edges (classifyImage's rule 4b): opaque, nearly every change soft, and a
   * photograph's share of equal neighbours or fewer (photoRamps.maxEqualNeighbourShare). A sky at
   * dusk, with or without stars (synthetic, 0.86–21.6 MP as JPEG): 0.99–1.00 soft, 0.30–0.39 equal.
   * Opaque artwork with as few equal neighbours, in the corpus and the tune part and every changed
   * copy of bench:kinds (both sets of changes), has at most 0.88 soft changes (the city at sunset
   * as WebP). In colour and up to fallThrough.maxPixels, also traced as a logo, kept if it scores
   * fallThrough.minLogoGain higher: where the artwork path draws the sky in gradients it scores
   * within 0.002 of the photograph's trace, where it bands it only 0.003–0.018 lower.
   */
  smoothShading: { minSoftEdgeShare: 0.95 },
  /** Almost no equal neighbours and ramps near a photograph's: also traced as a photo (doubtfulAlternative). */
  noisyRamps: { minRampShare: 0.4, maxEqualNeighbourShare: 0.2 },
  /** A colour photograph by the last rule only, up to this size: also traced as a logo, kept if it scores this much higher (doubtfulAlternative). */
  fallThrough: { maxPixels: 2_000_000, minLogoGain: 0.03 },
  flatColour: { minEqualNeighbourShare: 0.6, minNearFlatShare: 0.65, minOffAxisShare: 0.1, maxRampShare: 0.3, minEqualWithFewRamps: 0.35, minEqualInColour: 0.35 },
} as const;

/**
 * Pixel art: drawn pixel by pixel. It needs positive evidence: binary alpha (or translucency in
 * flat areas, as its drop shadows are drawn), a small palette, no
 * anti-aliasing (its colour edges step from one palette colour to the next, with no blend in a
 * shade of its own between them: aaBlendShare), enough colour edges to tell, and a grid of its own
 * (the pixels themselves, or blocks of a whole enlargement) that its trace takes whole.
 */
export function isPixelArt(stats: ImageStats, facts: ImageFacts): boolean {
  return showsPixelArt(stats, facts, 1);
}

/**
 * isPixelArt, with `margin` times the anti-aliasing it allows. A game's palette of at most 256
 * colours, stored as one (an indexed source) or shown as pixels (a nearest-neighbour enlargement,
 * every pixel a block), may shade with more of its own colours; so may art that holds at most a
 * palette's worth of colours at its own size, saved without the palette (a sprite or a title screen
 * re-saved as RGB). That last is weaker evidence, since a small anti-aliased icon holds as few, and
 * gets no margin: on the corpus, the tune part and their changed copies, pixel art of at most 256
 * colours blends at most 0.17 of its edges and anti-aliased artwork of as few colours at least 0.31.
 */
function showsPixelArt(stats: ImageStats, facts: ImageFacts, margin: number): boolean {
  const rule = RULES.pixelArt;
  const nativeWidth = facts.originalWidth / stats.blockWidth;
  const nativeHeight = facts.originalHeight / stats.blockHeight;
  const enlarged = stats.blockWidth > 1 && stats.blockHeight > 1;
  const hardAlpha = stats.hardAlphaShare >= rule.minHardAlphaShare;
  // A sheet larger than a sprite is pixel art only in a stored palette, enlarged into blocks or cut
  // out on transparency (RULES.pixelArt.maxPixels, minSheetTransparency).
  const cutOutSheet = stats.transparentShare >= rule.minSheetTransparency && hardAlpha;
  const manyColourSheet = stats.distinctColours > rule.maxColours && isManyColourSheet(stats, facts);
  const sizedWithoutPalette = Math.max(nativeWidth, nativeHeight) <= rule.maxLongSide || enlarged || cutOutSheet || manyColourSheet;
  const sizeFits = nativeWidth * nativeHeight <= rule.maxPixels && (sizedWithoutPalette || facts.palette);
  // Larger than a sprite and admitted by its stored palette alone, it gets no margin on top: a
  // screenshot saved in a palette (750 px, 188 colours, anti-aliased text, 27 % of its edges
  // blended) was traced pixel-exact by the self-check, in 1.8 MB against VTracer's 141 KB.
  const blendMargin = sizedWithoutPalette ? margin : 1;
  const grey = isGrey(stats);
  // A grey image holds at most 256 colours whatever it is, so its palette earns no allowance; nor
  // does a palette not laid down in areas of one colour (RULES.pixelArt.minEqualForPaletteShading).
  const palette = stats.distinctColours <= FEW_COLOURS && !grey && stats.equalOffGroundShare >= rule.minEqualForPaletteShading;
  const aaLimit =
    palette && (facts.palette || enlarged)
      ? rule.maxIndexedAaBlendShare * blendMargin
      : palette && facts.fewColours === true
        ? Math.max(rule.maxIndexedAaBlendShare, rule.maxAaBlendShare * blendMargin)
        : rule.maxAaBlendShare * blendMargin;
  return (
    sizeFits &&
    (stats.distinctColours <= rule.maxColours || manyColourSheet) &&
    // Grey images are scans (a 1-bit page, a halftone, a photograph), not drawn pixel by pixel;
    // an icon's size is too small for a scan (a grey game sprite, a 1-bit cursor).
    (!grey || !largerThanIcon(facts)) &&
    stats.colourEdges >= rule.minColourEdges &&
    (stats.aaBlendShare <= aaLimit || manyColourSheet) &&
    // Big flat areas are flat artwork (a flag, a logo), which pixel-exact tracing would make jagged;
    // a plain ground around a sprite (one flattened on white) is not the artwork's.
    stats.equalOffGroundShare < rule.maxEqualNeighbourShare &&
    // ...and none at all is a photograph or a texture quantised to a palette, not pixels placed one by one.
    stats.equalOffGroundShare >= rule.minEqualNeighbourShare &&
    // Binary alpha, or translucency drawn in flat areas (a drop shadow, glass): not anti-aliasing.
    (hardAlpha || stats.flatTranslucentShare >= rule.minFlatTranslucentShare || manyColourSheet)
  );
}

/**
 * A sheet of sprites cut out on transparency and larger than an icon, with mostly hard alpha
 * steps, few blended colour edges and few soft ones (RULES.pixelArt.minManyColourSheetHardAlpha,
 * maxManyColourSheetBlendShare, maxManyColourSheetSoftEdgeShare): pixel art whatever the number
 * of its colours. Its blends are measured (measurePixels) only where its alpha shows it may be
 * one. Measured on a reduction (sheets over CLASSIFY_PIXELS), its soft changes are the
 * reduction's, which blends hard steps: such a sheet is taken only on clearer evidence.
 */
function isManyColourSheet(stats: ImageStats, facts: ImageFacts): boolean {
  const rule = RULES.pixelArt;
  return mayBeManyColourSheet(stats) && largerThanIcon(facts) && stats.colourEdges >= rule.minColourEdges && stats.aaBlendShare <= rule.maxManyColourSheetBlendShare && stats.softEdgeShare <= rule.maxManyColourSheetSoftEdgeShare;
}

/** Cut out on transparency with mostly hard alpha steps: the blends of its colours are worth measuring, however many. */
function mayBeManyColourSheet(stats: Pick<ImageStats, 'transparentShare' | 'hardAlphaShare'>): boolean {
  return stats.transparentShare >= RULES.pixelArt.minSheetTransparency && stats.hardAlphaShare >= RULES.pixelArt.minManyColourSheetHardAlpha;
}

/** No colour to speak of: greyscale, or a tint so faint it reads as grey (a black-and-white photograph's JPEG chroma noise). */
function isGrey(stats: ImageStats): boolean {
  return stats.meanChroma < 4 && stats.offAxisShare < 0.01;
}

/**
 * Pixel art's own evidence, a margin short of isPixelArt's decision. The self-check traces such an
 * image again as pixel art when it was traced smooth: a pixel-exact trace always scores best at
 * the image's own size, so the evidence, not the score, must decide that it is pixel art.
 */
export function hasPixelGrid(stats: ImageStats, facts: ImageFacts): boolean {
  return showsPixelArt(stats, facts, PIXEL_GRID_MARGIN);
}

/** hasPixelGrid allows this many times isPixelArt's anti-aliasing. */
const PIXEL_GRID_MARGIN = 1.5;

/**
 * Ink on paper (documents, handwriting, drawings, engravings, scans): light paper, a clearly
 * darker ink, colours on the line between the two whatever the tint, and no continuous tone.
 */
export function isInkOnPaper(ink: InkStats): boolean {
  const rule = RULES.inkOnPaper;
  return (
    ink.paperLuma >= rule.minPaperLuma &&
    ink.contrast >= rule.minContrast &&
    ink.offLineShare <= rule.maxOffLineShare &&
    ink.saturatedOffLineShare <= rule.maxSaturatedOffLineShare &&
    ink.continuousToneShare <= rule.maxContinuousToneShare
  );
}

/**
 * Line art on transparency (no paper): nearly grey, mostly hard changes or near black and white,
 * and some of it dark: ink. Light artwork on transparency (a white glyph, a light-grey panel) is
 * artwork, not the paper of a drawing.
 */
function isInkWithoutPaper(stats: ImageStats): boolean {
  const rule = RULES.inkWithoutPaper;
  return (
    stats.meanChroma < rule.maxMeanChroma &&
    stats.darkShare >= rule.minDarkShare &&
    ((stats.extremeShare > 0.8 && stats.darkShare < 0.5) || stats.softEdgeShare < 0.4)
  );
}

/** A second kind to trace, and by how much more its trace must score to be kept. */
export interface Doubt {
  kind: ImageKind;
  margin: number;
}

/**
 * A second kind worth tracing when the statistics leave the first in doubt; the self-check then
 * keeps the better result (convert.ts). Ink on transparency with soft changes may be a glossy light
 * icon (RULES.softInkOnTransparency). A colour image taken for a photograph with nearly as many
 * exactly equal neighbours as flat artwork has (RULES.flatColour.minEqualInColour) may be artwork
 * with smooth shading: colour photographs measured have at most 0.2. The other way, a dark image
 * (darkWithRamps) or one with almost no equal neighbours (noisyWithRamps) is in doubt. A colour
 * image that is a photograph only because no rule called it flat (fallsThrough) is in doubt too,
 * but the logo's trace must win by a margin there (RULES.fallThrough).
 */
export function doubtfulAlternative(kind: ImageKind, stats: ImageStats, facts: ImageFacts): Doubt | undefined {
  if (kind === 'sketch') {
    const rule = RULES.softInkOnTransparency;
    const onTransparency = stats.transparentShare >= OPAQUE_BELOW;
    return onTransparency && stats.softEdgeShare >= rule.minSoftEdgeShare ? { kind: 'logo', margin: rule.minLogoGain } : undefined;
  }
  if (kind === 'logo') {
    if (largerThanIcon(facts) && (darkWithRamps(stats) || noisyWithRamps(stats))) return { kind: 'photo', margin: 0 };
    return mayBeInkInColours(stats, facts) ? { kind: 'sketch', margin: RULES.inkInColours.minGain } : undefined;
  }
  if (kind !== 'photo' || isGrey(stats)) return undefined;
  // A photograph by its soft changes alone may be artwork drawn in gradients, which the artwork
  // path draws in a few of them: it must win by the margin (RULES.smoothShading).
  if (photoByElimination(stats, facts) && isSmoothShading(stats)) return fallsThrough(stats, facts) ? { kind: 'logo', margin: RULES.fallThrough.minLogoGain } : undefined;
  if (stats.equalUnclippedShare > RULES.photoDoubt.minEqualNeighbourShare) return { kind: 'logo', margin: 0 };
  return fallsThrough(stats, facts) ? { kind: 'logo', margin: RULES.fallThrough.minLogoGain } : undefined;
}

/**
 * Ink on paper but for its colours: a page of text with coloured words, tinted boxes or coloured
 * lines (a code listing, a manual's page, a screenshot of a document), which the ink rule sends to
 * flat colour for its colour, while line art now keeps several inks and a digital page's fills
 * (paint/ink-colours.ts, analyse/paper-tones.ts) and draws small text legibly where the artwork
 * path breaks its letters. Such a page has little saturated colour (a coloured logo on white far
 * more: the corpus's and the tune part's 0.08 and more); the self-check decides.
 */
function mayBeInkInColours(stats: ImageStats, facts: ImageFacts): boolean {
  const ink = stats.ink;
  const rule = RULES.inkOnPaper;
  return (
    mayBeInk(facts) &&
    stats.transparentShare < OPAQUE_BELOW &&
    ink !== undefined &&
    ink.paperLuma >= rule.minPaperLuma &&
    ink.contrast >= rule.minContrast &&
    ink.continuousToneShare <= rule.maxContinuousToneShare &&
    ink.saturatedOffLineShare <= RULES.inkInColours.maxSaturatedOffLineShare
  );
}

/**
 * Taken for a photograph by the last rule of classifyImage, larger than an icon: too few ramps for
 * a photograph, too few equal neighbours for flat colour. Artwork changed in the wild lands here
 * (a map saved as JPEG or halved, illustrations reduced to a quarter, a banner halved), and its
 * logo trace scores up to 0.17 higher; so do photographs cut out on transparency, whose logo trace
 * scores up to 0.023 higher on soft alpha edges while a person prefers the photo's texture (the
 * rose halved). Images above RULES.fallThrough.maxPixels are left to the photo path: every copy
 * measured whose logo trace wins by the margin has at most 1.3 MP, and a second trace of a larger
 * image adds a second or more to a conversion near the p95 time.
 */
function fallsThrough(stats: ImageStats, facts: ImageFacts): boolean {
  return photoByElimination(stats, facts) && facts.originalWidth * facts.originalHeight <= RULES.fallThrough.maxPixels;
}

/**
 * A photograph, if classifyImage calls it one, only by its last rule: larger than an icon, without
 * a photograph's ramps. It may as well be artwork changed in the wild (a map saved as JPEG).
 */
export function photoByElimination(stats: ImageStats, facts: ImageFacts): boolean {
  return largerThanIcon(facts) && !isPhotoByRamps(stats);
}

/**
 * A dark image taken for flat colour, with a photograph's ramps: so few levels are left in the
 * dark that neighbours come out equal, and equality cannot tell a night photograph from artwork,
 * so the self-check decides. Only dark images: on artwork saved as JPEG fidelity favours the
 * photo path, which keeps the noise (logos on white measured: 0.02 higher), and a person rejects it.
 */
function darkWithRamps(stats: ImageStats): boolean {
  return stats.darkShare >= RULES.photoRamps.minDarkShareInDoubt && hasPhotoRamps(stats);
}

/**
 * Taken for flat colour with almost no exactly equal neighbours, opaque, and ramps near a
 * photograph's: flat artwork keeps its fills equal (logos saved as JPEG at quality 40–70: 0.55 and
 * more), sensor noise leaves a photograph under 0.2, and a photograph reduced to a quarter has
 * fewer ramps than the photo rule asks (the shuttle photograph: 0.466). Of the 1051 images of the
 * corpus and the tune part and their copies (both sets of bench:kinds changes) larger than an
 * icon, only that copy is.
 */
function noisyWithRamps(stats: ImageStats): boolean {
  const rule = RULES.noisyRamps;
  return stats.transparentShare < OPAQUE_BELOW && stats.rampShare >= rule.minRampShare && stats.equalNeighbourShare < rule.maxEqualNeighbourShare;
}

/** A photograph by its ramps (classifyImage's rule 4): a photograph's share of them, and fewer equal neighbours than artwork saved as JPEG keeps. */
function isPhotoByRamps(stats: ImageStats): boolean {
  return hasPhotoRamps(stats) && stats.equalNeighbourShare < RULES.photoRamps.maxEqualNeighbourShare;
}

/**
 * Opaque shading without edges (RULES.smoothShading): nearly all of its changes soft and few of
 * its neighbours equal, whatever its ramps. A smooth gradient's steps are a level or two, under
 * the ramp test's clear change (RAMP_STEP), so a sky has too few ramps for rule 4 and, its
 * neighbours equal up to its grain, passed for flat colour: traced from its palette as dense
 * artwork (its grain quantised makes thousands of specks), it came back in bands.
 */
function isSmoothShading(stats: ImageStats): boolean {
  return stats.transparentShare < OPAQUE_BELOW && stats.softEdgeShare >= RULES.smoothShading.minSoftEdgeShare && stats.equalNeighbourShare < RULES.photoRamps.maxEqualNeighbourShare;
}

/** Opaque, with a photograph's share of ramps among its clear changes (RULES.photoRamps). */
function hasPhotoRamps(stats: ImageStats): boolean {
  return stats.transparentShare < OPAQUE_BELOW && stats.rampShare >= RULES.photoRamps.minRampShare;
}

/** The kind of picture, from its statistics and what the decoder saw. */
export function classifyImage(stats: ImageStats, facts: ImageFacts): ImageKind {
  if (isPixelArt(stats, facts)) return 'pixelart';
  // Ink on paper needs the paper: opaque images are measured for it, others keep the earlier test.
  // Icons are never ink on paper: scans and drawings are larger, and a small glyph on white
  // traces as artwork just as well.
  const opaque = stats.transparentShare < OPAQUE_BELOW;
  const inkLike = opaque ? stats.ink !== undefined && isInkOnPaper(stats.ink) : isInkWithoutPaper(stats);
  if (inkLike && mayBeInk(facts)) return 'sketch';
  // An icon or emoji this small is all anti-aliased edges and fills a few pixels wide, which the
  // flat-colour test below cannot see. It sits on transparency or on a plain ground (the ring of
  // pixels along its edge one colour), saved as JPEG or not; a thumbnail of a photograph (colour
  // or grey) fills its frame: its edge is never plain (at most 0.52 of it measured; icons on
  // white as JPEG 0.73 and more), and it has few equal neighbours (at most 0.41; a flat icon
  // filling its frame 0.56 and more).
  if (!largerThanIcon(facts)) {
    const icon = RULES.icon;
    const thumbnail = opaque && stats.plainBorderShare < icon.minPlainBorderShare && stats.equalNeighbourShare < icon.thumbnailMaxEqual;
    return thumbnail ? 'photo' : 'logo';
  }
  // A photograph's clear changes are mostly ramps (0.48–0.66 on every photograph measured, dark
  // exposures included; opaque artwork under 0.45). In a dark or dim photograph (a night sky, a
  // sunset) few levels are left, so neighbours come out equal and it would pass for flat colour
  // below; its ramps say otherwise. Artwork saved as JPEG gets ramps at its edges too, but keeps
  // more equal neighbours (logos as JPEG at quality 12–70 measured: 0.55–0.89 of them).
  if (isPhotoByRamps(stats)) return 'photo';
  // Shading without edges: a sky, fog, a soft-focus background. Drawn as flat colour, its
  // gradient comes back in bands; the artwork path's own gradients are the logo doubt's to show.
  if (isSmoothShading(stats)) return 'photo';
  // Flat colour: large runs of identical pixels, or, in a colour image, of pixels equal up to
  // JPEG noise. Monochrome photographs are left out of the second test: their smooth tone steps
  // one or two levels between neighbours in every channel at once, which reads as flat.
  const flatRule = RULES.flatColour;
  if (stats.equalNeighbourShare > flatRule.minEqualNeighbourShare) return 'logo';
  if (stats.nearFlatShare > flatRule.minNearFlatShare && stats.offAxisShare > flatRule.minOffAxisShare) return 'logo';
  // Colour artwork with smooth shading (a mascot with gradients): many exactly equal neighbours,
  // which sensor noise and JPEG take from colour photographs (at most 0.2 on every one measured;
  // grey photographs reach 0.4 in their clipped shadows).
  if (!isGrey(stats) && stats.equalUnclippedShare > flatRule.minEqualInColour) return 'logo';
  // Anti-aliased flat artwork (a map, a screenshot): colour changes are mostly steps, where a
  // photograph's are mostly ramps (at least half of its clear changes on every image measured; a
  // digital painting 0.32). Saved as JPEG or WebP, or halved, such artwork loses its equal
  // neighbours to noise and resampling, but its changes stay steps (a map: 0.25–0.30). A grey
  // image with few ramps may as well be a scan (a halftone plate): its equal neighbours decide.
  const fewRamps = stats.rampShare < flatRule.maxRampShare;
  if (fewRamps && (!isGrey(stats) || stats.equalUnclippedShare > flatRule.minEqualWithFewRamps)) return 'logo';
  // An indexed-colour source is flat colour even when resampling blurred it (maps, charts), and so
  // is one with a palette's worth of colours at its own size, saved without the palette (a map
  // flattened on white: every photograph measured, PNG or not, has thousands); in grey it may as
  // well be a scanned photograph (a halftone plate): its pixels decide.
  if ((facts.palette || facts.fewColours === true) && !isGrey(stats)) return 'logo';
  return 'photo';
}
