// Ink in several colours: a page of black text with red and blue words, a code listing, a scan
// with corrections in red. Line art is traced in one binary layer (the ink's outlines stay crisp
// and legible); each connected piece of it then takes the colour its pixels show, gathered into a
// few inks, so that a word keeps its colour and the black text of a page stays one black.

import { disjointSets, find, union } from '../segment/components.ts';
import { oklabDistance, srgbToOklab } from '../check/oklab.ts';
import { flat, type Rgb, type TracedShape } from '../geometry.ts';

/** The pieces of ink on the traced grid and the colour each is painted in. */
export interface InkPieces {
  /** Per traced pixel: its piece, or −1 for paper. */
  labels: Int32Array;
  width: number;
  height: number;
  colours: Rgb[];
  /** The ink of the pieces without a colour of their own (black and grey text). */
  main: Rgb;
}

/** The source of line art as the pieces read their colour from it: RGBA and each pixel's tone relative to the paper (ink.ts). */
export interface InkSource {
  rgba: Buffer;
  width: number;
  height: number;
  /** 0–255, paper at 255 (separateInk's `normalised`). */
  tone: Uint8Array;
  /** Below this tone a pixel is ink. */
  threshold: number;
}

/** A piece whose colour has less Oklab chroma than this is black or grey ink: the main ink. */
export const NEUTRAL_CHROMA = 0.05;
/** Coloured pieces within this Oklab distance of an ink already found are painted in it. */
export const SAME_INK = 0.1;
/**
 * An ink holding less than this share of the ink's weight is specks, painted in the nearest ink
 * that is one: a scan's stains and blends of ink with tinted paper 0.0001 and less, a blue link on
 * a page of black text 0.003.
 */
export const MIN_INK_SHARE = 0.001;

/**
 * The pieces (8-connected) of a binarised ink raster (black on white, `upscale` traced pixels per
 * source pixel) and their inks. A piece's colour is the mean of its source pixels weighted towards
 * the darkest (the square of their depth below the threshold): its edge pixels are part paper.
 * Returns undefined when the pieces make one ink (black text alone, a drawing in blue ink).
 */
export function inkPiecesOf(ink: Buffer, width: number, height: number, upscale: number, source: InkSource, fallback: Rgb): InkPieces | undefined {
  const words = new Uint32Array(ink.buffer, ink.byteOffset, width * height);
  const isInk = (i: number) => ((words[i] as number) & 0xff) < 128;
  const parent = disjointSets(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0, i = y * width; x < width; x++, i++) {
      if (!isInk(i)) continue;
      if (x + 1 < width && isInk(i + 1)) union(parent, i, i + 1);
      if (y + 1 < height) {
        if (isInk(i + width)) union(parent, i, i + width);
        if (x + 1 < width && isInk(i + width + 1)) union(parent, i, i + width + 1);
        if (x > 0 && isInk(i + width - 1)) union(parent, i, i + width - 1);
      }
    }
  }
  const labels = new Int32Array(width * height).fill(-1);
  const compact = new Int32Array(width * height).fill(-1);
  const sums: number[] = [];
  let count = 0;
  for (let y = 0; y < height; y++) {
    const sy = Math.min(source.height - 1, (y / upscale) | 0);
    for (let x = 0, i = y * width; x < width; x++, i++) {
      if (!isInk(i)) continue;
      const root = find(parent, i);
      let label = compact[root] as number;
      if (label < 0) {
        label = count++;
        compact[root] = label;
        sums.push(0, 0, 0, 0);
      }
      labels[i] = label;
      const s = sy * source.width + Math.min(source.width - 1, (x / upscale) | 0);
      const depth = Math.max(1, source.threshold - (source.tone[s] as number));
      const weight = depth * depth;
      const at = label * 4;
      sums[at] = (sums[at] as number) + weight * (source.rgba[s * 4] as number);
      sums[at + 1] = (sums[at + 1] as number) + weight * (source.rgba[s * 4 + 1] as number);
      sums[at + 2] = (sums[at + 2] as number) + weight * (source.rgba[s * 4 + 2] as number);
      sums[at + 3] = (sums[at + 3] as number) + weight;
    }
  }
  const pieces = Array.from({ length: count }, (_, label) => {
    const at = label * 4;
    const weight = sums[at + 3] as number;
    return { colour: { r: (sums[at] as number) / weight, g: (sums[at + 1] as number) / weight, b: (sums[at + 2] as number) / weight }, weight };
  });
  const inks = gatherInks(pieces, fallback);
  if (!inks) return undefined;
  return { labels, width, height, colours: inks.colours, main: inks.main };
}

interface Ink {
  lab: Float32Array;
  r: number;
  g: number;
  b: number;
  weight: number;
}

/**
 * Each piece's ink: neutral pieces the main ink (their weighted mean), coloured ones gathered
 * greedily, heaviest first, into inks SAME_INK apart; an ink of specks (MIN_INK_SHARE) joins the
 * nearest that is one. Undefined when that leaves one ink.
 */
function gatherInks(pieces: { colour: Rgb; weight: number }[], fallback: Rgb): { colours: Rgb[]; main: Rgb } | undefined {
  const labOf = (colour: Rgb): Float32Array => {
    const lab = new Float32Array(3);
    srgbToOklab(Math.round(colour.r), Math.round(colour.g), Math.round(colour.b), lab, 0);
    return lab;
  };
  const order = pieces.map((_, index) => index).sort((a, b) => (pieces[b] as { weight: number }).weight - (pieces[a] as { weight: number }).weight);
  const neutral: Ink = { lab: new Float32Array(3), r: 0, g: 0, b: 0, weight: 0 };
  const inks: Ink[] = [];
  const inkOf = new Array<Ink>(pieces.length);
  for (const index of order) {
    const { colour, weight } = pieces[index] as { colour: Rgb; weight: number };
    const lab = labOf(colour);
    let chosen: Ink | undefined;
    if (Math.hypot(lab[1] as number, lab[2] as number) < NEUTRAL_CHROMA) chosen = neutral;
    else {
      let nearest = SAME_INK;
      for (const candidate of inks) {
        const apart = oklabDistance(lab, candidate.lab);
        if (apart < nearest) {
          nearest = apart;
          chosen = candidate;
        }
      }
      if (!chosen) {
        chosen = { lab, r: 0, g: 0, b: 0, weight: 0 };
        inks.push(chosen);
      }
    }
    chosen.r += colour.r * weight;
    chosen.g += colour.g * weight;
    chosen.b += colour.b * weight;
    chosen.weight += weight;
    inkOf[index] = chosen;
  }
  // An ink of a few specks (a stain, a blend of ink and tinted paper) is no ink of its own: its
  // pieces take the nearest ink that is one. One ink left, coloured or not, is painted as line art
  // always was: in the ink's colour.
  const total = inks.reduce((sum, ink) => sum + ink.weight, neutral.weight);
  const kept = [neutral, ...inks].filter((ink) => ink.weight >= MIN_INK_SHARE * total);
  if (kept.length < 2) return undefined;
  if (neutral.weight > 0) srgbToOklab(...roundedMean(neutral), neutral.lab, 0);
  const nearestKept = new Map<Ink, Ink>();
  for (const ink of [neutral, ...inks]) {
    if (kept.includes(ink)) continue;
    let best = kept[0] as Ink;
    for (const candidate of kept) if (oklabDistance(ink.lab, candidate.lab) < oklabDistance(ink.lab, best.lab)) best = candidate;
    nearestKept.set(ink, best);
  }
  const meanOf = (ink: Ink): Rgb => (ink.weight > 0 ? { r: ink.r / ink.weight, g: ink.g / ink.weight, b: ink.b / ink.weight } : fallback);
  const means = new Map<Ink, Rgb>(kept.map((ink) => [ink, meanOf(ink)]));
  const main = kept.includes(neutral) ? meanOf(neutral) : fallback;
  return { colours: inkOf.map((ink) => means.get(nearestKept.get(ink) ?? ink) as Rgb), main };
}


function roundedMean(ink: Ink): [number, number, number] {
  return [Math.round(ink.r / ink.weight), Math.round(ink.g / ink.weight), Math.round(ink.b / ink.weight)];
}

/**
 * Each traced ink shape painted in its piece's ink: the piece its outline runs along, by a vote of
 * the ink pixels at its first outline's points (traced pixel corners). Shapes none of whose
 * points touch a piece keep the main ink.
 */
export function paintInkPieces(shapes: TracedShape[], pieces: InkPieces): void {
  const { labels, width, height } = pieces;
  const votes = new Map<number, number>();
  for (const shape of shapes) {
    votes.clear();
    const outline = shape.paths[0];
    if (outline) {
      for (let k = 0; k + 1 < outline.coords.length; k += 2) {
        const cx = Math.round(outline.coords[k] as number);
        const cy = Math.round(outline.coords[k + 1] as number);
        for (let y = cy - 1; y <= cy; y++) {
          if (y < 0 || y >= height) continue;
          for (let x = cx - 1; x <= cx; x++) {
            if (x < 0 || x >= width) continue;
            const label = labels[y * width + x] as number;
            if (label >= 0) votes.set(label, (votes.get(label) ?? 0) + 1);
          }
        }
      }
    }
    let best = -1;
    let most = 0;
    for (const [label, count] of votes) {
      if (count > most) {
        most = count;
        best = label;
      }
    }
    shape.fill = flat(best >= 0 ? (pieces.colours[best] as Rgb) : pieces.main);
  }
}
