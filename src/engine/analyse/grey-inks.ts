// Grey text on a digital page: a code listing's grey comments, a web page's grey byline beside its
// black body text. Grey and black lie on one line from the paper, so no pixel tells a grey stroke
// from the anti-aliased edge of a black one; a whole glyph does: its darkest pixel is black in black
// text and only grey in grey text. Each piece of ink (a glyph, as anti-aliasing draws it) is
// classed by its darkest pixel into levels: black, and each grey a page writes in. Each grey is
// then thresholded halfway between the paper and its own tone, so its letters keep their strokes
// (the page's threshold, set between paper and black, cut them apart), and every level is traced
// as an ink of its own (paint/ink-colours.ts).

import { eightConnected, find } from '../segment/components.ts';
import type { Rgb } from '../geometry.ts';

/** The ink's levels on the source grid: the darkest first (black text), then the greys. */
export interface NeutralLevels {
  /** Per source pixel: the level of the piece it belongs to, or NO_LEVEL (paper, or a coloured piece). */
  levelOf: Uint8Array;
  /** Per source pixel: 1 where its piece's darkest tone lies within CLEAR_OF_LEVEL of its level's (a glyph clearly of that level, which levelledTones may stretch). */
  clear: Uint8Array;
  /** Each level's colour (the mean of its darker half). */
  colours: Rgb[];
  /** Each level's tone (normalised luma, paper at 255): its pieces' darkest, weighted by size. */
  tones: number[];
}

/** levelOf's value for a pixel in no levelled piece. */
export const NO_LEVEL = 255;

/** A pixel this far under the paper (normalised luma) belongs to a piece: anti-aliasing included, the paper's own noise not (a digital page has none). */
const PIECE_DEPTH = 24;
/** Levels whose tones are this far apart (normalised luma) are separate inks; nearer, one (a glyph's darkest pixel varies with its weight and place on the grid). */
const LEVEL_GAP = 40;
/** A grey level's tone is at most this (normalised luma): lighter, it is a faint tint, no text. */
const LIGHTEST_GREY = 215;
/** A grey level holds at least this share of the ink's pixels and this many pixels: fewer are a few light dots or punctuation. */
const MIN_LEVEL_SHARE = 0.03;
const MIN_LEVEL_PIXELS = 200;
/** A piece whose darkest pixels have more chroma than this (max − min of RGB) is coloured ink, read by its colour (ink-colours.ts). */
const MAX_GREY_CHROMA = 24;
/** At most this many levels (black and greys). */
const MAX_LEVELS = 4;
/**
 * A piece whose darkest tone lies within this of its level's is clearly of it; one further off (a
 * black glyph's thin stroke or small dot, never quite black) goes with the nearest level's ink but
 * keeps its own threshold: stretched as a grey, a thin black letter swelled into a blob.
 */
const CLEAR_OF_LEVEL = 16;
/**
 * A piece at most this many pixels across (its box's narrower side) may cover no pixel whole (a
 * 13 px l, i, I or ! and most full stops: strokes under two pixels wide), so its darkest pixel is
 * as grey as grey text's, and black letters came out grey; or it may be grey text's own, lighter
 * than its level. Its darkest pixel is no evidence: it takes the level of its nearest wider
 * neighbour, as does a piece not clearly of any level.
 */
const NARROW_PIECE = 3;
/**
 * How far a piece looks for its neighbour (pixels between their boxes): along its line, this many
 * times its height, past a run of narrow glyphs ("ill", "1.1"); across lines, half its height, so
 * that it never takes the level of the line above or below. At least MIN_REACH either way.
 */
const LINE_REACH = 3;
const MIN_REACH = 2;
/**
 * Only a piece of a glyph's size (its longer side at most this, in pixels: a 2× screenshot's
 * headings) takes a neighbour's level; a longer one is a rule or a frame, not a letter of the line
 * beside it, and a light one is left as light as it is.
 */
const MAX_GLYPH_SIDE = 64;
/** A level's colour is the mean of this share of its pixels, the darkest (ink.ts's CORE_SHARE). */
const CORE_SHARE = 0.5;
/** The darkest tones are binned this many levels wide to find their modes. */
const BIN = 8;

/**
 * The neutral ink levels of a digital page's ink, from `tone` (normalised luma, paper at 255) and
 * the RGBA it came from; undefined when there is one level (black text alone, or grey alone).
 */
export function neutralLevelsOf(rgba: Buffer, width: number, height: number, tone: Uint8Array): NeutralLevels | undefined {
  // No grey at all (a 1-bit page): nothing to part, and no pieces to label.
  let greys = 0;
  for (let p = 0; p < tone.length; p++) if ((tone[p] as number) > LEVEL_GAP && (tone[p] as number) <= LIGHTEST_GREY) greys++;
  if (greys < MIN_LEVEL_PIXELS) return undefined;
  const below = 255 - PIECE_DEPTH;
  const isPiece = (p: number) => (tone[p] as number) < below;
  const parent = eightConnected(width, height, isPiece);
  // Each piece's darkest tone, its darkest pixel's colour and its size.
  const pieceOf = new Int32Array(width * height).fill(-1);
  const index = new Map<number, number>();
  const darkest: number[] = [];
  const darkestAt: number[] = [];
  const sizes: number[] = [];
  const boxes: number[][] = [];
  for (let p = 0; p < pieceOf.length; p++) {
    if (!isPiece(p)) continue;
    const root = find(parent, p);
    let piece = index.get(root);
    if (piece === undefined) {
      piece = index.size;
      index.set(root, piece);
      darkest.push(256);
      darkestAt.push(p);
      sizes.push(0);
      boxes.push([width, height, -1, -1]);
    }
    pieceOf[p] = piece;
    const box = boxes[piece] as number[];
    const x = p % width;
    const y = (p - x) / width;
    box[0] = Math.min(box[0] as number, x);
    box[1] = Math.min(box[1] as number, y);
    box[2] = Math.max(box[2] as number, x);
    box[3] = Math.max(box[3] as number, y);
    sizes[piece] = (sizes[piece] as number) + 1;
    if ((tone[p] as number) < (darkest[piece] as number)) {
      darkest[piece] = tone[p] as number;
      darkestAt[piece] = p;
    }
  }
  const pieces = index.size;
  if (pieces === 0) return undefined;
  const grey = new Uint8Array(pieces);
  let total = 0;
  for (let piece = 0; piece < pieces; piece++) {
    const at = (darkestAt[piece] as number) * 4;
    const chroma = Math.max(rgba[at] as number, rgba[at + 1] as number, rgba[at + 2] as number) - Math.min(rgba[at] as number, rgba[at + 1] as number, rgba[at + 2] as number);
    if (chroma <= MAX_GREY_CHROMA) grey[piece] = 1;
    total += sizes[piece] as number;
  }
  const isNarrow = (piece: number) => sidesOf(boxes[piece] as number[])[0] <= NARROW_PIECE;
  // Levels: the modes of the darkest tones of pieces wider than NARROW_PIECE (weighted by size, in
  // bins of BIN levels, lightly smoothed), the heaviest first, each at least LEVEL_GAP from those
  // before it; every piece then goes to the nearest level.
  const bins = new Float64Array(Math.ceil(256 / BIN));
  for (let piece = 0; piece < pieces; piece++) {
    if (grey[piece] !== 1 || (darkest[piece] as number) > LIGHTEST_GREY || isNarrow(piece)) continue;
    const bin = ((darkest[piece] as number) / BIN) | 0;
    bins[bin] = (bins[bin] as number) + (sizes[piece] as number);
  }
  const smooth = bins.map((value, bin) => value + 0.5 * ((bins[bin - 1] ?? 0) + (bins[bin + 1] ?? 0)));
  const least = Math.max(MIN_LEVEL_PIXELS, MIN_LEVEL_SHARE * total);
  const modes: { tone: number; weight: number }[] = [];
  smooth.forEach((value, bin) => {
    if (value >= (smooth[bin - 1] ?? 0) && value > (smooth[bin + 1] ?? 0) && value >= least) modes.push({ tone: (bin + 0.5) * BIN, weight: value });
  });
  modes.sort((a, b) => b.weight - a.weight);
  const levelTones: number[] = [];
  for (const mode of modes) if (levelTones.length < MAX_LEVELS && levelTones.every((tone) => Math.abs(tone - mode.tone) >= LEVEL_GAP)) levelTones.push(mode.tone);
  if (levelTones.length < 2) return undefined;
  levelTones.sort((a, b) => a - b);
  const levelOfPiece = new Uint8Array(pieces).fill(NO_LEVEL);
  const toneSums = levelTones.map(() => 0);
  const weights = levelTones.map(() => 0);
  for (let piece = 0; piece < pieces; piece++) {
    if (grey[piece] !== 1) continue;
    const value = darkest[piece] as number;
    let nearest = 0;
    for (let k = 1; k < levelTones.length; k++) if (Math.abs((levelTones[k] as number) - value) < Math.abs((levelTones[nearest] as number) - value)) nearest = k;
    // Lighter than the lightest level by a gap: a faint mark, not text of that level.
    if (value - (levelTones[nearest] as number) >= LEVEL_GAP) continue;
    levelOfPiece[piece] = nearest;
    toneSums[nearest] = (toneSums[nearest] as number) + value * (sizes[piece] as number);
    weights[nearest] = (weights[nearest] as number) + (sizes[piece] as number);
  }
  const tones = toneSums.map((sum, k) => sum / Math.max(1, weights[k] as number));
  const isClear = (piece: number) => levelOfPiece[piece] !== NO_LEVEL && Math.abs((darkest[piece] as number) - (tones[levelOfPiece[piece] as number] as number)) <= CLEAR_OF_LEVEL;
  const clearPiece = Uint8Array.from({ length: pieces }, (_, piece) => (isClear(piece) ? 1 : 0));
  const witness = Uint8Array.from({ length: pieces }, (_, piece) => (clearPiece[piece] === 1 && !isNarrow(piece) ? 1 : 0));
  const isGlyphSized = (piece: number) => sidesOf(boxes[piece] as number[])[1] <= MAX_GLYPH_SIDE;
  for (let piece = 0; piece < pieces; piece++) {
    if (grey[piece] !== 1 || witness[piece] === 1 || !isGlyphSized(piece)) continue;
    const neighbour = nearestWitness(boxes[piece] as number[], pieceOf, witness, width, height);
    if (neighbour === undefined) continue;
    // Of its neighbour's level, and clearly so: a thin grey stroke is darkened with its grey's
    // other strokes (levelledTones), as a thin black one of the same coverage is traced.
    levelOfPiece[piece] = levelOfPiece[neighbour] as number;
    clearPiece[piece] = 1;
  }
  // Each level's colour: the mean of its core, the darker half of its pixels under its own halfway
  // (CORE_SHARE, as ink.ts takes the ink's colour): a thin stroke is part paper throughout, and
  // painted in its darkest pixel's colour, text at 100 dpi came out heavier than the page shows it.
  const histograms = levelTones.map(() => new Float64Array(256));
  const halfway = tones.map((level) => (255 + level) / 2);
  for (let p = 0; p < pieceOf.length; p++) {
    const piece = pieceOf[p] as number;
    if (piece < 0) continue;
    const level = levelOfPiece[piece] as number;
    if (level === NO_LEVEL || (tone[p] as number) >= (halfway[level] as number)) continue;
    const histogram = histograms[level] as Float64Array;
    histogram[tone[p] as number] = (histogram[tone[p] as number] as number) + 1;
  }
  const coreBelow = histograms.map((histogram) => {
    const count = histogram.reduce((sum, value) => sum + value, 0);
    let below = 0;
    for (let t = 0; t < 256; t++) {
      below += histogram[t] as number;
      if (below >= CORE_SHARE * count) return t;
    }
    return 255;
  });
  const colourSums = levelTones.map(() => [0, 0, 0, 0]);
  for (let p = 0; p < pieceOf.length; p++) {
    const piece = pieceOf[p] as number;
    if (piece < 0) continue;
    const level = levelOfPiece[piece] as number;
    if (level === NO_LEVEL || (tone[p] as number) > (coreBelow[level] as number)) continue;
    const sum = colourSums[level] as number[];
    sum[0] = (sum[0] as number) + (rgba[p * 4] as number);
    sum[1] = (sum[1] as number) + (rgba[p * 4 + 1] as number);
    sum[2] = (sum[2] as number) + (rgba[p * 4 + 2] as number);
    sum[3] = (sum[3] as number) + 1;
  }
  const colours = colourSums.map(([r, g, b, w]) => ({ r: (r as number) / Math.max(1, w as number), g: (g as number) / Math.max(1, w as number), b: (b as number) / Math.max(1, w as number) }));
  const levelOf = new Uint8Array(width * height).fill(NO_LEVEL);
  const clear = new Uint8Array(width * height);
  for (let p = 0; p < levelOf.length; p++) {
    const piece = pieceOf[p] as number;
    if (piece < 0) continue;
    const level = levelOfPiece[piece] as number;
    levelOf[p] = level;
    if (clearPiece[piece] === 1) clear[p] = 1;
  }
  return { levelOf, clear, colours, tones };
}

/** The shorter and the longer side (pixels) of a box [left, top, right, bottom]. */
function sidesOf(box: number[]): [number, number] {
  const [left, top, right, bottom] = box as [number, number, number, number];
  const across = right - left + 1;
  const down = bottom - top + 1;
  return [Math.min(across, down), Math.max(across, down)];
}

/**
 * The piece whose level is evidence (`witness`: clearly of its level, and wider than NARROW_PIECE)
 * nearest to the box [left, top, right, bottom], within LINE_REACH times the box's height along
 * its line and half that height across (MIN_REACH at least), by the gap between them along either axis.
 */
function nearestWitness(box: number[], pieceOf: Int32Array, witness: Uint8Array, width: number, height: number): number | undefined {
  const [left, top, right, bottom] = box as [number, number, number, number];
  const along = Math.max(MIN_REACH, LINE_REACH * (bottom - top + 1));
  const across = Math.max(MIN_REACH, Math.round((bottom - top + 1) / 2));
  let nearest: number | undefined;
  let nearestGap = Infinity;
  for (let y = Math.max(0, top - across); y <= Math.min(height - 1, bottom + across); y++) {
    const dy = y < top ? top - y : y > bottom ? y - bottom : 0;
    for (let x = Math.max(0, left - along); x <= Math.min(width - 1, right + along); x++) {
      const piece = pieceOf[y * width + x] as number;
      if (piece < 0 || witness[piece] !== 1) continue;
      const gap = Math.max(dy, x < left ? left - x : x > right ? x - right : 0);
      if (gap < nearestGap) {
        nearestGap = gap;
        nearest = piece;
      }
    }
  }
  return nearest;
}

/**
 * The tones stretched so that each grey level's own halfway point between the paper and its tone
 * falls on `threshold`, where the page's threshold would cut its strokes: thresholded as one, every
 * level keeps its strokes.
 */
export function levelledTones(tone: Uint8Array, levels: NeutralLevels, threshold: number): Uint8Array {
  const out = Uint8Array.from(tone);
  // The darkest level (black text) keeps the page's threshold: thinned to its own halfway, a 13 px
  // letter i's dot fell under the speck filter. A grey is only ever darkened.
  const scales = levels.tones.map((level, k) => (k === 0 ? 1 : Math.max(1, (255 - threshold) / Math.max(1, (255 - level) / 2))));
  for (let p = 0; p < out.length; p++) {
    const level = levels.levelOf[p] as number;
    if (level === NO_LEVEL || levels.clear[p] !== 1) continue;
    const depth = (255 - (tone[p] as number)) * (scales[level] as number);
    out[p] = Math.max(0, Math.round(255 - depth));
  }
  return out;
}
