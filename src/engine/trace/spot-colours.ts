// Pictures in spot colours (`palette`, `maxColors`): the image reduced to its own palette, each
// of its colours given a spot colour (paint/spot-colours.ts), every pixel painted in its spot
// colour, and that picture of a few exact colours traced. Areas that end up in one colour are
// one area of the picture, so the tracer makes them one shape; there are no gradients and no
// partial opacity (alpha is made binary at one half). Small artwork is resampled to a finer grid
// first, as the artwork path does, so edges fall between pixels where the anti-aliasing puts them.

import sharp from 'sharp';
import type { ImageKind } from '../analyse/classify.ts';
import { PALETTE_COLOURS, quantiseColours, type RgbaImage } from '../analyse/prepare.ts';
import { flat, type Rgb, type TracedShape } from '../geometry.ts';
import { assignSpotColours, nearestSpotColour, oklabOf, type PaletteEntry, type SpotColourRequest } from '../paint/spot-colours.ts';
import type { TraceParams } from '../params.ts';
import { curveOptions, snapToFrame, type RegionRecolouring } from './artwork.ts';
import { meanColour } from '../geometry.ts';
import { paintOpacity, type RegionPaint } from '../paint/gradient.ts';
import { fitOutlines } from './curves.ts';
import { parseTracerSvg } from './tracer-output.ts';
import { binariseAlpha, runTracer, spotColourTracerConfig, type ResolvedCurveMode } from './vtracer.ts';

/** Artwork is resampled to a grid of about this many pixels ... */
const FINE_PIXELS = 1_000_000;
/** ... at most this many times finer than its working size. */
const MAX_FACTOR = 4;
/** Control points closer than this (traced pixels) to the chord make a cubic a line. */
const STRAIGHT_TOLERANCE = 0.15;
/**
 * A group of colours takes the colour most of its pixels have exactly when at least this share
 * has it (a logo's flat colour survives as it is, not shifted by its anti-aliasing), else the
 * mean of its pixels (a photograph's dominant colours).
 */
const EXACT_COLOUR_SHARE = 0.3;
/** Speck filter (working pixels) when filterSpeckle is 0: anti-aliasing and noise between two spot colours. */
const AUTOMATIC_SPECKLE = 2;

export interface SpotColourTrace {
  shapes: TracedShape[];
  width: number;
  height: number;
  /** The spot colours used, for the report and the tests. */
  colours: Rgb[];
}

/** Traced pixels per working pixel: small artwork on a finer grid; photographs and pixel art on their own. */
export function spotColourFactor(kind: ImageKind, width: number, height: number): number {
  if (kind !== 'logo') return 1;
  return Math.max(1, Math.min(MAX_FACTOR, Math.round(Math.sqrt(FINE_PIXELS / (width * height)))));
}

async function resampled(image: RgbaImage, factor: number): Promise<RgbaImage> {
  if (factor === 1) return image;
  const width = image.width * factor;
  const height = image.height * factor;
  const rgba = await sharp(image.rgba, { raw: { width: image.width, height: image.height, channels: 4 } })
    .resize(width, height, { fit: 'fill', kernel: 'cubic' })
    .raw()
    .toBuffer();
  return { rgba, width, height };
}

/** The image's own palette: a colour per pixel (pixel art keeps its exact colours). */
async function ownPalette(image: RgbaImage, kind: ImageKind, params: TraceParams, maxColors: number | undefined): Promise<Buffer> {
  if (kind === 'pixelart') return image.rgba;
  // colorPrecision says what counts as one colour; never fewer colours than maxColors allows.
  const size = Math.min(256, Math.max(PALETTE_COLOURS[kind === 'photo' ? 'photo' : 'other'][params.colorPrecision - 1] ?? 64, maxColors ?? 0));
  return (await quantiseColours(image, size)).rgba;
}

interface EntryStats {
  sum: [number, number, number];
  /** The exact source colour most of the entry's pixels have, and how many. */
  modeColour: number;
  modeCount: number;
}

/**
 * The picture in spot colours: RGBA with every opaque pixel (alpha ≥ 128) in its spot colour and
 * every other one clear; and the colours.
 */
export function paintSpotColours(source: Buffer, palettised: Buffer, request: SpotColourRequest): { rgba: Buffer; colours: Rgb[] } {
  const pixels = source.length / 4;
  const entryOf = new Map<number, number>();
  const entries: PaletteEntry[] = [];
  const entryIndex = new Int32Array(pixels).fill(-1);
  for (let p = 0; p < pixels; p++) {
    if ((source[p * 4 + 3] as number) < 128) continue;
    const key = ((palettised[p * 4] as number) << 16) | ((palettised[p * 4 + 1] as number) << 8) | (palettised[p * 4 + 2] as number);
    let entry = entryOf.get(key);
    if (entry === undefined) {
      entry = entries.length;
      entryOf.set(key, entry);
      entries.push({ color: { r: key >> 16, g: (key >> 8) & 0xff, b: key & 0xff }, weight: 0 });
    }
    (entries[entry] as PaletteEntry).weight++;
    entryIndex[p] = entry;
  }
  const out = Buffer.alloc(source.length);
  if (entries.length === 0) return { rgba: out, colours: [] };
  const stats = request.palette ? [] : entryStatistics(source, entryIndex, entries.length);
  const { colours, assignment } = assignSpotColours(entries, request, (members) => representative(members, entries, stats));
  const words = new Uint32Array(out.buffer, out.byteOffset, pixels);
  // RGBA bytes as a little-endian word: A B G R.
  const colourWords = colours.map(({ r, g, b }) => (0xff000000 | (Math.round(b) << 16) | (Math.round(g) << 8) | Math.round(r)) >>> 0);
  for (let p = 0; p < pixels; p++) {
    const entry = entryIndex[p] as number;
    if (entry >= 0) words[p] = colourWords[assignment[entry] as number] as number;
  }
  const used = new Set(assignment);
  return { rgba: out, colours: colours.filter((_, index) => used.has(index)) };
}

function entryStatistics(source: Buffer, entryIndex: Int32Array, count: number): EntryStats[] {
  const stats: EntryStats[] = Array.from({ length: count }, () => ({ sum: [0, 0, 0], modeColour: 0, modeCount: 0 }));
  // Exact colours per entry, counted together: (entry, colour) as one key.
  const counts = new Map<number, number>();
  for (let p = 0; p < entryIndex.length; p++) {
    const entry = entryIndex[p] as number;
    if (entry < 0) continue;
    const r = source[p * 4] as number;
    const g = source[p * 4 + 1] as number;
    const b = source[p * 4 + 2] as number;
    const s = stats[entry] as EntryStats;
    s.sum[0] += r;
    s.sum[1] += g;
    s.sum[2] += b;
    const colour = (r << 16) | (g << 8) | b;
    const key = entry * 16_777_216 + colour;
    const seen = (counts.get(key) ?? 0) + 1;
    counts.set(key, seen);
    if (seen > s.modeCount) {
      s.modeCount = seen;
      s.modeColour = colour;
    }
  }
  return stats;
}

/** A group's colour: the exact colour most of its pixels have when enough do, else their mean. */
function representative(members: number[], entries: PaletteEntry[], stats: EntryStats[]): Rgb {
  let weight = 0;
  const sum = [0, 0, 0];
  let best: EntryStats | undefined;
  for (const member of members) {
    const s = stats[member] as EntryStats;
    weight += (entries[member] as PaletteEntry).weight;
    for (let c = 0; c < 3; c++) sum[c] = (sum[c] as number) + (s.sum[c] as number);
    if (!best || s.modeCount > best.modeCount) best = s;
  }
  if (best && best.modeCount >= EXACT_COLOUR_SHARE * weight) {
    return { r: best.modeColour >> 16, g: (best.modeColour >> 8) & 0xff, b: best.modeColour & 0xff };
  }
  return { r: Math.round((sum[0] as number) / weight), g: Math.round((sum[1] as number) / weight), b: Math.round((sum[2] as number) / weight) };
}

/** Regions at least this opaque become opaque spot colours; the others are left clear (no partial opacity). */
const OPAQUE_FROM = 0.5;

/**
 * Spot colours for the artwork path's regions: a region's colour is its paint's (a gradient's
 * mean), weighted by its pixels; a group of regions takes the colour of its largest region when
 * that holds EXACT_COLOUR_SHARE of the group's pixels (a flat logo colour survives exactly), else
 * their mean.
 */
export function spotColourRegions(request: SpotColourRequest): RegionRecolouring {
  return (paints, weights) => {
    const spotOfRegion = new Int32Array(paints.length).fill(-1);
    // Regions of one colour are one entry: a logo has thousands of regions and a few colours.
    const entryOf = new Map<number, number>();
    const entries: PaletteEntry[] = [];
    const entryOfRegion = new Int32Array(paints.length).fill(-1);
    paints.forEach((paint: RegionPaint, region) => {
      if (paintOpacity(paint) < OPAQUE_FROM) return;
      const { r, g, b } = meanColour(paint.fill);
      const key = (Math.round(r) << 16) | (Math.round(g) << 8) | Math.round(b);
      let entry = entryOf.get(key);
      if (entry === undefined) {
        entry = entries.length;
        entryOf.set(key, entry);
        entries.push({ color: { r: key >> 16, g: (key >> 8) & 0xff, b: key & 0xff }, weight: 0 });
      }
      (entries[entry] as PaletteEntry).weight += weights[region] ?? 0;
      entryOfRegion[region] = entry;
    });
    if (entries.length === 0) return { spotOfRegion, paints: [] };
    const representativeOf = (members: number[]): Rgb => {
      let total = 0;
      let heaviest = members[0] as number;
      const sum = [0, 0, 0];
      for (const member of members) {
        const { color, weight } = entries[member] as PaletteEntry;
        total += weight;
        sum[0] = (sum[0] as number) + color.r * weight;
        sum[1] = (sum[1] as number) + color.g * weight;
        sum[2] = (sum[2] as number) + color.b * weight;
        if (weight > (entries[heaviest] as PaletteEntry).weight) heaviest = member;
      }
      if ((entries[heaviest] as PaletteEntry).weight >= EXACT_COLOUR_SHARE * total) return (entries[heaviest] as PaletteEntry).color;
      return { r: Math.round((sum[0] as number) / total), g: Math.round((sum[1] as number) / total), b: Math.round((sum[2] as number) / total) };
    };
    const { colours, assignment } = assignSpotColours(entries, request, representativeOf);
    // Only the colours some region takes, each a flat opaque paint.
    const used = [...new Set(assignment)].sort((a, b) => a - b);
    const slot = new Map(used.map((colour, index) => [colour, index]));
    entryOfRegion.forEach((entry, region) => {
      if (entry >= 0) spotOfRegion[region] = slot.get(assignment[entry] as number) as number;
    });
    return { spotOfRegion, paints: used.map((colour) => ({ fill: flat(colours[colour] as Rgb), opacity: 1 }) as RegionPaint) };
  };
}

/** Traces the working image in spot colours; shapes in the coordinates of the traced grid. */
export async function traceSpotColours(
  working: RgbaImage,
  kind: ImageKind,
  params: TraceParams,
  request: SpotColourRequest,
  curveMode: ResolvedCurveMode,
  /** Working pixels per original pixel (≤ 1), for filterSpeckle. */
  workingScale: number,
): Promise<SpotColourTrace> {
  const factor = spotColourFactor(kind, working.width, working.height);
  const resampledImage = await resampled(working, factor);
  // Opaque or clear at one half, before the palette is found: an edge pixel against transparency
  // counts as the colour it shows, not as a darker translucent one.
  const fine = { ...resampledImage, rgba: binariseAlpha(resampledImage.rgba) };
  const palettised = await ownPalette(fine, kind, params, request.maxColors);
  const { rgba, colours } = paintSpotColours(fine.rgba, palettised, request);
  if (colours.length === 0) return { shapes: [], width: fine.width, height: fine.height, colours };
  const speckle =
    params.filterSpeckle === 0
      ? (kind === 'pixelart' ? 0 : AUTOMATIC_SPECKLE) * factor
      : Math.max(1, Math.round(params.filterSpeckle * workingScale * factor));
  const svg = await runTracer(rgba, fine.width, fine.height, spotColourTracerConfig(params, curveMode, speckle));
  const shapes = parseTracerSvg(svg, STRAIGHT_TOLERANCE);
  if (curveMode === 'spline') {
    const options = curveOptions(params, factor);
    for (const shape of shapes) shape.paths = shape.paths.map((path) => fitOutlines(path, options));
  }
  snapToFrame(shapes, fine.width, fine.height);
  // The tracer gives a shape the mean colour of what it merged into it (specks): the spot colour
  // nearest that is the shape's own.
  const labs = colours.map(oklabOf);
  for (const shape of shapes) {
    const colour = shape.fill.kind === 'flat' ? shape.fill.color : (colours[0] as Rgb);
    shape.fill = flat(colours[nearestSpotColour(colour, colours, labs)] as Rgb);
    shape.opacity = 1;
  }
  return { shapes, width: fine.width, height: fine.height, colours };
}
