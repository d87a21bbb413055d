// Ink in several colours: a page of black text with red and blue words, a code listing, a scan
// with corrections in red. The inks are found on the colours of the ink's pieces, weighted towards
// their darkest pixels (where a stroke's colour is its own, not blended with the paper); each
// connected piece goes whole to the ink most of it shows, so a word keeps its colour and a page's
// black text stays one black, and a piece where strokes of two inks meet (a correction over
// writing, a coloured curve across black axes) is parted pixel by pixel. Each ink is then traced
// as a binary layer of its own (trace/line-art.ts, traceInkLayers).

import { eightConnected, find } from '../segment/components.ts';
import { oklabDistance, srgbToOklab } from '../check/oklab.ts';
import type { Rgb } from '../geometry.ts';
import { NO_LEVEL, type NeutralLevels } from '../analyse/grey-inks.ts';

/** The ink split into inks on the traced grid. */
export interface InkLayers {
  /** Per traced pixel: the index of its ink in `colours`, or PAPER. */
  inkOf: Uint8Array;
  width: number;
  height: number;
  /** The inks, the main ink (black and grey) first when there is one. */
  colours: Rgb[];
  /** Each ink's box on the traced grid (x0, y0 inclusive; x1, y1 exclusive). */
  boxes: { x0: number; y0: number; x1: number; y1: number }[];
  /** The ink without a colour of its own (black and grey text), or the single ink's colour. */
  main: Rgb;
  /** The index of that ink in `colours`, when there is one. */
  mainIndex?: number;
  /** The inks are a digital page's black and greys alone (withNeutralLevels): no colour. */
  neutralOnly?: boolean;
}

/** inkOf's value for paper. */
export const PAPER = 255;

/** The source of line art as the inks are read from it: RGBA and each pixel's tone relative to the paper (ink.ts). */
export interface InkSource {
  rgba: Buffer;
  width: number;
  height: number;
  /** 0–255, paper at 255 (separateInk's `normalised`). */
  tone: Uint8Array;
  /** Below this tone a pixel is ink. */
  threshold: number;
}

/** A piece of less Oklab chroma than this is black or grey ink: the main ink. */
export const NEUTRAL_CHROMA = 0.05;
/** Coloured pieces within this Oklab distance of an ink already found are of that ink. */
export const SAME_INK = 0.1;
/**
 * An ink holding less than this share of the ink's weight is specks, painted in the nearest ink
 * that is one: a scan's stains and blends of ink with tinted paper 0.0001 and less, a blue link on
 * a page of black text 0.003.
 */
export const MIN_INK_SHARE = 0.001;

/**
 * A piece whose colours spread more than this (RGB, the weighted standard deviation's length) may
 * be strokes of several inks that meet: its pixels, not its mean, tell the inks. Measured: pieces
 * of one ink in a scan (blue or black and red ink on tinted paper, as JPEG) 20–30; a digital page's
 * glyphs 50–75, their anti-aliasing spreading them along the line to the paper, so on such a page
 * most pieces lend their pixels, and SAME_DIRECTION keeps an ink laid thinner the same ink.
 * Measuring the spread across that line instead would keep those pieces whole: not done.
 */
const MIXED_SPREAD = 40;
/** A piece where a second ink holds at least this share of its weight is parted pixel by pixel. */
export const MIXED_SHARE = 0.15;
/**
 * Coloured inks whose directions from the paper (RGB) have at least this cosine are one ink laid
 * on thicker or thinner (under 6°): a page's dark blue text measured (28, 28, 114) in its bold
 * heading and (53, 53, 129) in its body, and parted into two layers its letters lost pieces.
 */
const SAME_DIRECTION = 0.995;
/** At most this many inks are traced apart; the lightest others join the nearest of them. */
const MAX_INKS = 12;

/**
 * The inks of a binarised ink raster (black on white, `upscale` traced pixels per source pixel),
 * and which ink each of its pixels is traced in. Returns undefined when there is one ink (black
 * text alone, a drawing in blue ink): it is painted in the ink's colour as before.
 *
 * The inks are found on the pieces' colours (a piece's mean over its pixels, weighted by the square
 * of their depth below the threshold: a stroke's edge is part paper), which evens out a scan's
 * colour noise; a piece where strokes of several inks meet, whose mean would be a colour between
 * theirs, lends its pixels' colours instead. `neutral`, when given, is the main ink's colour (a
 * digital page's black, grey-inks.ts): the neutral pieces' mean would take in its grey text, and
 * black strokes, darker than that mean, went to the nearest dark coloured ink.
 */
export function inkLayersOf(ink: Buffer, width: number, height: number, upscale: number, source: InkSource, paper: Rgb, fallback: Rgb, neutral?: Rgb): InkLayers | undefined {
  const words = new Uint32Array(ink.buffer, ink.byteOffset, width * height);
  const isInk = (i: number) => ((words[i] as number) & 0xff) < 128;
  const sourceOf = (x: number, y: number) => Math.min(source.height - 1, (y / upscale) | 0) * source.width + Math.min(source.width - 1, (x / upscale) | 0);
  const weightOf = (s: number) => Math.max(1, source.threshold - (source.tone[s] as number)) ** 2;

  // Pieces: 8-connected, numbered; each one's weighted colour.
  const parent = eightConnected(width, height, isInk);
  const pieceOf = new Int32Array(width * height).fill(-1);
  const compact = new Map<number, number>();
  const sums: number[] = [];
  const squares: number[] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0, i = y * width; x < width; x++, i++) {
      if (!isInk(i)) continue;
      const root = find(parent, i);
      let piece = compact.get(root);
      if (piece === undefined) {
        piece = compact.size;
        compact.set(root, piece);
        sums.push(0, 0, 0, 0);
        squares.push(0);
      }
      pieceOf[i] = piece;
      const s = sourceOf(x, y);
      const weight = weightOf(s);
      const r = source.rgba[s * 4] as number;
      const g = source.rgba[s * 4 + 1] as number;
      const b = source.rgba[s * 4 + 2] as number;
      const at = piece * 4;
      sums[at] = (sums[at] as number) + weight * r;
      sums[at + 1] = (sums[at + 1] as number) + weight * g;
      sums[at + 2] = (sums[at + 2] as number) + weight * b;
      sums[at + 3] = (sums[at + 3] as number) + weight;
      squares[piece] = (squares[piece] as number) + weight * (r * r + g * g + b * b);
    }
  }
  // A piece of one ink lends the inks its mean; a piece where strokes of several meet (its colours
  // spread past MIXED_SPREAD) lends its pixels' colours, binned 5 bits a channel.
  const colours: { colour: Rgb; weight: number }[] = [];
  const spread = new Uint8Array(compact.size);
  for (let piece = 0; piece < compact.size; piece++) {
    const at = piece * 4;
    const weight = sums[at + 3] as number;
    const colour = { r: (sums[at] as number) / weight, g: (sums[at + 1] as number) / weight, b: (sums[at + 2] as number) / weight };
    const variance = (squares[piece] as number) / weight - (colour.r ** 2 + colour.g ** 2 + colour.b ** 2);
    if (variance > MIXED_SPREAD ** 2) spread[piece] = 1;
    else colours.push({ colour, weight });
  }
  if (spread.includes(1)) {
    const bins = new Float64Array(32768 * 4);
    for (let y = 0; y < height; y++) {
      for (let x = 0, i = y * width; x < width; x++, i++) {
        if (pieceOf[i] === -1 || spread[pieceOf[i] as number] !== 1) continue;
        const s = sourceOf(x, y);
        const r = source.rgba[s * 4] as number;
        const g = source.rgba[s * 4 + 1] as number;
        const b = source.rgba[s * 4 + 2] as number;
        const key = ((r >> 3) * 1024 + (g >> 3) * 32 + (b >> 3)) * 4;
        const weight = weightOf(s);
        bins[key] = (bins[key] as number) + r * weight;
        bins[key + 1] = (bins[key + 1] as number) + g * weight;
        bins[key + 2] = (bins[key + 2] as number) + b * weight;
        bins[key + 3] = (bins[key + 3] as number) + weight;
      }
    }
    for (let key = 0; key < 32768; key++) {
      const weight = bins[key * 4 + 3] as number;
      if (weight > 0) colours.push({ colour: { r: (bins[key * 4] as number) / weight, g: (bins[key * 4 + 1] as number) / weight, b: (bins[key * 4 + 2] as number) / weight }, weight });
    }
  }
  const gathered = gatherInks(colours, paper, fallback, neutral);
  if (!gathered) return undefined;

  // Each ink pixel's nearest ink (the one whose line from the paper passes nearest its colour, so
  // that a stroke's edge goes with the stroke); pieces go whole to the ink most of them shows,
  // unless a second ink holds MIXED_SHARE of them: strokes of two inks that meet, parted pixel by pixel.
  const inkOf = new Uint8Array(width * height).fill(PAPER);
  const pieceCount = compact.size;
  const assign = (inks: Rgb[]): void => {
    const weights = new Float64Array(pieceCount * inks.length);
    for (let y = 0; y < height; y++) {
      for (let x = 0, i = y * width; x < width; x++, i++) {
        if (!isInk(i)) continue;
        const s = sourceOf(x, y);
        const k = nearestInk(source.rgba, s * 4, paper, inks);
        inkOf[i] = k;
        const at = (pieceOf[i] as number) * inks.length + k;
        weights[at] = (weights[at] as number) + weightOf(s);
      }
    }
    const whole = new Int16Array(pieceCount).fill(-1);
    for (let piece = 0; piece < pieceCount; piece++) {
      let best = 0;
      let total = 0;
      for (let k = 0; k < inks.length; k++) {
        const weight = weights[piece * inks.length + k] as number;
        total += weight;
        if (weight > (weights[piece * inks.length + best] as number)) best = k;
      }
      let second = 0;
      for (let k = 0; k < inks.length; k++) if (k !== best) second = Math.max(second, weights[piece * inks.length + k] as number);
      if (second < MIXED_SHARE * total) whole[piece] = best;
    }
    for (let i = 0; i < inkOf.length; i++) if (inkOf[i] !== PAPER && (whole[pieceOf[i] as number] as number) >= 0) inkOf[i] = whole[pieceOf[i] as number] as number;
  };
  assign(gathered.inks);
  return { inkOf, width, height, colours: gathered.inks, boxes: boxesOf(inkOf, width, height, gathered.inks.length), main: gathered.main, ...(gathered.mainIndex === undefined ? {} : { mainIndex: gathered.mainIndex }) };
}

/** Each ink's box on the traced grid (empty boxes for inks without pixels). */
function boxesOf(inkOf: Uint8Array, width: number, height: number, inks: number): InkLayers['boxes'] {
  const boxes = Array.from({ length: inks }, () => ({ x0: width, y0: height, x1: 0, y1: 0 }));
  for (let y = 0; y < height; y++) {
    for (let x = 0, i = y * width; x < width; x++, i++) {
      if (inkOf[i] === PAPER) continue;
      const box = boxes[inkOf[i] as number] as (typeof boxes)[number];
      box.x0 = Math.min(box.x0, x);
      box.y0 = Math.min(box.y0, y);
      box.x1 = Math.max(box.x1, x + 1);
      box.y1 = Math.max(box.y1, y + 1);
    }
  }
  return boxes;
}

/**
 * The main ink parted into a digital page's neutral levels (analyse/grey-inks.ts): each of its
 * pieces on the traced grid goes whole to the level most of its pixels lie in on the source grid,
 * black text staying the main ink in the black level's colour, each grey becoming an ink of its
 * own. `layers` are the coloured inks found (undefined: the ink was one, all of it main); `ink` is
 * the binarised raster.
 */
export function withNeutralLevels(layers: InkLayers | undefined, ink: Buffer, width: number, height: number, upscale: number, levels: NeutralLevels, sourceWidth: number, sourceHeight: number): InkLayers | undefined {
  const words = new Uint32Array(ink.buffer, ink.byteOffset, width * height);
  let inkOf: Uint8Array;
  let colours: Rgb[];
  let mainIndex: number;
  if (layers) {
    if (layers.mainIndex === undefined) return layers;
    inkOf = Uint8Array.from(layers.inkOf);
    colours = [...layers.colours];
    mainIndex = layers.mainIndex;
  } else {
    inkOf = new Uint8Array(width * height).fill(PAPER);
    for (let i = 0; i < inkOf.length; i++) if (((words[i] as number) & 0xff) < 128) inkOf[i] = 0;
    colours = [levels.colours[0] as Rgb];
    mainIndex = 0;
  }
  colours[mainIndex] = levels.colours[0] as Rgb;
  // Level k ≥ 1 becomes ink `inkOfLevel[k]`, appended after the others.
  const inkOfLevel = levels.colours.map((colour, level) => {
    if (level === 0) return mainIndex;
    colours.push(colour);
    return colours.length - 1;
  });
  // The main ink's pieces (8-connected on the traced grid) go whole to the level most of their
  // pixels lie in on the source grid: parted, a glyph's pieces would each be a speck of its layer.
  const isMain = (i: number) => inkOf[i] === mainIndex;
  const parent = eightConnected(width, height, isMain);
  const votes = new Map<number, Float64Array>();
  for (let y = 0; y < height; y++) {
    const sourceRow = Math.min(sourceHeight - 1, (y / upscale) | 0) * sourceWidth;
    for (let x = 0, i = y * width; x < width; x++, i++) {
      if (!isMain(i)) continue;
      const level = levels.levelOf[sourceRow + Math.min(sourceWidth - 1, (x / upscale) | 0)] as number;
      if (level === NO_LEVEL) continue;
      const root = find(parent, i);
      let count = votes.get(root);
      if (!count) votes.set(root, (count = new Float64Array(levels.colours.length)));
      count[level] = (count[level] as number) + 1;
    }
  }
  const levelOfPiece = new Map<number, number>();
  for (const [root, count] of votes) {
    let best = 0;
    for (let level = 1; level < count.length; level++) if ((count[level] as number) > (count[best] as number)) best = level;
    levelOfPiece.set(root, best);
  }
  for (let i = 0; i < inkOf.length; i++) {
    if (!isMain(i)) continue;
    const level = levelOfPiece.get(find(parent, i)) ?? 0;
    if (level !== 0) inkOf[i] = inkOfLevel[level] as number;
  }
  return { inkOf, width, height, colours, boxes: boxesOf(inkOf, width, height, colours.length), main: levels.colours[0] as Rgb, mainIndex, ...(layers ? {} : { neutralOnly: true }) };
}

/** The index of the ink whose segment from the paper passes nearest the colour at `at` (RGB). */
function nearestInk(rgba: Buffer, at: number, paper: Rgb, inks: Rgb[]): number {
  const r = (rgba[at] as number) - paper.r;
  const g = (rgba[at + 1] as number) - paper.g;
  const b = (rgba[at + 2] as number) - paper.b;
  let best = 0;
  let nearest = Infinity;
  for (let k = 0; k < inks.length; k++) {
    const ink = inks[k] as Rgb;
    const dr = ink.r - paper.r;
    const dg = ink.g - paper.g;
    const db = ink.b - paper.b;
    const length = dr * dr + dg * dg + db * db || 1;
    const t = Math.max(0, Math.min(1, (r * dr + g * dg + b * db) / length));
    const distance = (r - t * dr) ** 2 + (g - t * dg) ** 2 + (b - t * db) ** 2;
    if (distance < nearest) {
      nearest = distance;
      best = k;
    }
  }
  return best;
}

/** One ink's pixels as a binary raster (black on white) of its box, for the tracer. */
export function inkLayerRaster(layers: InkLayers, k: number): { rgba: Buffer; width: number; height: number } {
  const box = layers.boxes[k] as InkLayers['boxes'][number];
  const width = box.x1 - box.x0;
  const height = box.y1 - box.y0;
  const rgba = Buffer.alloc(width * height * 4, 255);
  for (let y = 0; y < height; y++) {
    for (let x = 0, from = (box.y0 + y) * layers.width + box.x0; x < width; x++, from++) {
      if (layers.inkOf[from] === k) rgba.fill(0, (y * width + x) * 4, (y * width + x) * 4 + 3);
    }
  }
  return { rgba, width, height };
}

interface Ink {
  lab: Float32Array;
  r: number;
  g: number;
  b: number;
  weight: number;
}

/**
 * The inks of the pieces' colours: neutral colours one main ink (their weighted mean),
 * coloured ones gathered greedily, heaviest first, into inks SAME_INK apart; an ink of specks
 * (MIN_INK_SHARE) joins the nearest that is one, as do the lightest past MAX_INKS. Undefined when
 * one ink is left. The main ink comes first.
 */
function gatherInks(colours: { colour: Rgb; weight: number }[], paper: Rgb, fallback: Rgb, neutralColour?: Rgb): { inks: Rgb[]; main: Rgb; mainIndex?: number } | undefined {
  const order = colours.map((_, index) => index).sort((a, b) => (colours[b] as { weight: number }).weight - (colours[a] as { weight: number }).weight);
  const neutral: Ink = { lab: new Float32Array(3), r: 0, g: 0, b: 0, weight: 0 };
  const inks: Ink[] = [];
  for (const index of order) {
    const { colour, weight } = colours[index] as { colour: Rgb; weight: number };
    const lab = new Float32Array(3);
    srgbToOklab(Math.round(colour.r), Math.round(colour.g), Math.round(colour.b), lab, 0);
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
  }
  // One ink laid on thinner is lighter (a thin stroke is part paper throughout): coloured inks
  // in the same direction from the paper are one, painted in their mean.
  const direction = (ink: Ink) => {
    const v = [ink.r / ink.weight - paper.r, ink.g / ink.weight - paper.g, ink.b / ink.weight - paper.b];
    const length = Math.hypot(v[0] as number, v[1] as number, v[2] as number) || 1;
    return v.map((value) => value / length);
  };
  for (let a = 0; a < inks.length; a++) {
    const heavier = inks[a] as Ink;
    if (heavier.weight === 0) continue;
    const along = direction(heavier);
    for (let b = a + 1; b < inks.length; b++) {
      const lighter = inks[b] as Ink;
      if (lighter.weight === 0) continue;
      const other = direction(lighter);
      if ((along[0] as number) * (other[0] as number) + (along[1] as number) * (other[1] as number) + (along[2] as number) * (other[2] as number) < SAME_DIRECTION) continue;
      heavier.weight += lighter.weight;
      heavier.r += lighter.r;
      heavier.g += lighter.g;
      heavier.b += lighter.b;
      lighter.weight = 0;
    }
  }
  // Inks of a few specks (a stain, a blend of ink and tinted paper) are no inks of their own.
  const total = inks.reduce((sum, ink) => sum + ink.weight, neutral.weight);
  const kept = [neutral, ...inks].filter((ink) => ink.weight > 0 && ink.weight >= MIN_INK_SHARE * total).slice(0, MAX_INKS);
  if (kept.length < 2) return undefined;
  const meanOf = (ink: Ink): Rgb => (ink === neutral && neutralColour ? neutralColour : ink.weight > 0 ? { r: ink.r / ink.weight, g: ink.g / ink.weight, b: ink.b / ink.weight } : fallback);
  return { inks: kept.map(meanOf), main: kept.includes(neutral) ? meanOf(neutral) : fallback, ...(kept.includes(neutral) ? { mainIndex: 0 } : {}) };
}
