// The artwork path (kind `logo`): segment the image into regions that each take one paint
// (segment.ts), fit each region's paint (gradient.ts), draw the region map at the grid that is
// traced with edges placed from the image (upsample.ts), trace that map with VTracer as a
// picture of distinct colours, and give every traced shape its region's paint.
//
// Small images are traced on a grid finer than their pixels, so their edges are reconstructed
// for the size they are seen at; large ones are segmented on a reduced grid (the cost of
// segmenting grows with the pixels) and traced at their working size.

import type { Config } from '@neplex/vectorizer';
import sharp from 'sharp';
import { CORNER_ISOLATION, fitOutlines, type CurveOptions } from './curves.ts';
import { flat, type TracedShape } from '../geometry.ts';
import { fitSoftEdges, softEdgeMask, type FineMask } from '../paint/soft-edges.ts';
import { fitPaints, paintOpacity, type RegionPaint } from '../paint/gradient.ts';
import { meanOf, MOMENT_STRIDE, pixelCount } from '../segment/moments.ts';
import type { TraceParams } from '../params.ts';
import { isDenseArtwork, PALETTE_COLOURS, quantiseColours, type RgbaImage } from '../analyse/prepare.ts';
import { DEFAULT_SEGMENT_OPTIONS, segmentArtwork, type Segmentation, type SegmentOptions } from '../segment/segment.ts';
import { opaqueSilhouette, premultiply } from '../segment/silhouette.ts';
import { regionMapTracerConfig, runTracer, type ResolvedCurveMode } from './vtracer.ts';
import { parseTracerSvg } from './tracer-output.ts';
import { cutOutTraced } from '../write/cutouts.ts';
import { OPAQUE_ABOVE, upsampleLabels } from '../segment/upsample.ts';

/**
 * The image is segmented at this many pixels at most, and artwork larger than this goes the artwork
 * path only with enough gradients (LARGE_GRADIENT_SHARE): the most pixels at which the traced grid
 * (FINE_PIXELS) stays twice as fine. At 160 000 (until the engine's third round) artwork of
 * 0.16–0.4 MP was either segmented on a reduced grid, which blends away lines a pixel or two wide
 * (a gopher's lightning over a white glow, a penguin's eyes), or, when flat, traced from its
 * palette, whose pixel outlines are ragged at the size it is shown at (512 px emoji and logos).
 * Figures in docs/decisions.md.
 */
export const SEGMENT_PIXELS = 400_000;
/**
 * A logo trace that is another kind's second opinion (a photograph's doubt, a retrace of ink or
 * pixel art as artwork) keeps the grid SEGMENT_PIXELS had before: it is there to catch flat
 * artwork the classifier missed, which wins by far on the coarser grid too, and the finer one
 * only made it slower and closer to a photograph's trace (docs/decisions.md).
 */
export const SECOND_OPINION_SEGMENT_PIXELS = 160_000;
/**
 * Artwork larger than this is asked whether it is dense (a map, a chart: traced from its palette).
 * Smaller, no statistic tried tells a small map from a clean logo of its size, and the self-check
 * decides (palettePlan in check/retrace.ts). Density stays measured as when its limit was set
 * (on a copy of this size). The tune part's street map of 0.26 MP is asked, but its palette copy
 * fits the logo budget, so it is not dense: it is traced by its regions (0.796) and then from its
 * palette by the self-check, which wins (0.847; 2.5 s in the bench, 0.7 s of it the retrace).
 */
const DENSE_ABOVE_PIXELS = 160_000;
/**
 * An image larger than the segmentation grid goes the artwork path only when at least this share
 * of it is gradient: flat artwork that large is traced better from its palette at full working size
 * (on the corpus cartoon, SSIM 0.964 against 0.951; the gum-tree illustration 0.960 against 0.937).
 * Measured on the corpus: flat cartoons and flags 0–2 %, the gum-tree illustration 16 % (its JPEG
 * noise and soft water), the city at sunset 43 %, baby Tux's shading 49 %.
 */
const LARGE_GRADIENT_SHARE = 0.25;
/** Pixels of the copy a large image's gradients are measured on. */
const PROBE_PIXELS = 40_000;
/**
 * Small images are traced on a grid of about this many pixels: the size they are likely to be
 * shown at, and where the curve tolerances are measured. At 0.5 MP the corpus images shrunk 4×
 * and shown at their original size scored a median SSIM of 0.888, under a Lanczos enlargement's
 * 0.892; at 1 MP, 0.901, for a median corpus SVG of 61 KB instead of 46 KB and 5 % more time
 * (docs/decisions.md).
 */
const FINE_PIXELS = 1_000_000;
/**
 * Icons (at most ICON_SIDE on their long side) on a grid of about this many: 8 × 8 traced pixels
 * per pixel of a 48 px icon. Against the 512 px renders of wide/small, SSIM fell by 0.006 from
 * FINE_PIXELS' grid, and the conversion took 40 % less time (icons must take under 100 ms).
 */
const ICON_FINE_PIXELS = 160_000;
const ICON_SIDE = 128;
/** ... but at least this many traced pixels per pixel: a 128 px icon is traced at 512, the size it is shown at. */
const ICON_MIN_FACTOR = 4;
/** ... at most this many times finer than their pixels. */
const MAX_FACTOR = 16;

/** layerDifference 0–5 onto the merge tolerance (RMS per channel): how far apart two shades may be and still be one region. */
export const MERGE_TOLERANCE = [1.5, 3, 5, 8, 12, 18] as const;

/** Outline points this close (traced pixels) to the image's edge are put on it. */
const FRAME_SNAP = 2;

/** Control points closer than this (traced pixels) to the chord make a cubic a line. */
const STRAIGHT_TOLERANCE = 0.15;

export interface ArtworkTrace {
  shapes: TracedShape[];
  /**
   * Where shadows or glows were drawn as blurred shapes (soft edges): the same picture with their
   * regions flat, as segmented, for the self-check to choose between.
   */
  flatEdges?: TracedShape[];
  /** Size of the traced grid. */
  width: number;
  height: number;
}

/**
 * The grid an image is segmented on (at most SEGMENT_PIXELS), and how many times finer the
 * traced grid is (about FINE_PIXELS in all), and whether the image is an icon (at most ICON_SIDE).
 */
export function artworkGrid(width: number, height: number, segmentPixels = SEGMENT_PIXELS): { width: number; height: number; factor: number; icon: boolean } {
  const shrink = Math.min(1, Math.sqrt(segmentPixels / (width * height)));
  const segmentWidth = Math.max(1, Math.round(width * shrink));
  const segmentHeight = Math.max(1, Math.round(height * shrink));
  const icon = Math.max(width, height) <= ICON_SIDE;
  const fine = icon ? ICON_FINE_PIXELS : FINE_PIXELS;
  const least = icon ? ICON_MIN_FACTOR : 1;
  const factor = Math.max(least, Math.min(MAX_FACTOR, Math.round(Math.sqrt(fine / (segmentWidth * segmentHeight)))));
  return { width: segmentWidth, height: segmentHeight, factor, icon };
}

async function resized(image: RgbaImage, width: number, height: number, kernel: 'cubic' | 'lanczos3'): Promise<Buffer> {
  if (image.width === width && image.height === height) return image.rgba;
  return sharp(image.rgba, { raw: { width: image.width, height: image.height, channels: 4 } })
    .resize(width, height, { fit: 'fill', kernel })
    .raw()
    .toBuffer();
}

export function segmentOptions(params: TraceParams, sourcePixelsPerSegmentPixel: number, icon = false): SegmentOptions {
  const speckPixels =
    params.filterSpeckle === 0
      ? DEFAULT_SEGMENT_OPTIONS.speckPixels
      : Math.max(1, Math.round((params.filterSpeckle * params.filterSpeckle) / sourcePixelsPerSegmentPixel));
  return {
    ...DEFAULT_SEGMENT_OPTIONS,
    mergeTolerance: MERGE_TOLERANCE[params.layerDifference] ?? DEFAULT_SEGMENT_OPTIONS.mergeTolerance,
    speckPixels,
    separatePaints: icon,
  };
}

/**
 * segmentLength 1–20 onto the fitting tolerance, in traced pixels (the grid an image is traced
 * on is about the size it is meant to be seen at): 1 → 0.5, the default 10 → 1.4, 20 → 2.4.
 */
export function fittingTolerance(segmentLength: number): number {
  return 0.4 + 0.1 * segmentLength;
}

/** How far (working pixels) a side from one corner to the next may waver and still be drawn straight. */
const STRAIGHT_SIDE_PIXELS = 0.25;

/** Curve fitting on the traced grid, which has `perPixel` traced pixels per working pixel. */
export function curveOptions(params: TraceParams, perPixel: number): CurveOptions {
  return {
    tolerance: fittingTolerance(params.segmentLength),
    cornerAngle: params.cornerThreshold,
    // A corner's turn is looked for within a pixel and a half either side: the grid and the
    // resampling round a corner off over about that much, and nearer, their steps read as turns.
    cornerSpan: Math.max(1, 1.5 * perPixel),
    sampleStep: 1,
    spliceAngle: params.spliceThreshold,
    // Half a working pixel, where the grid is finer than the image: the waver of an edge
    // resampled from pixels has their period, and goes; shapes a few pixels across keep their form.
    smoothing: perPixel > 1 ? perPixel / 2 : 0,
    straightTolerance: STRAIGHT_SIDE_PIXELS * perPixel,
    cornerIsolation: CORNER_ISOLATION,
  };
}

/**
 * One distinct colour per region, as close to its mean colour as uniqueness allows: VTracer
 * stacks each region over its closest-coloured neighbour, so true colours keep that choice
 * sensible, while distinct ones keep every region its own shape.
 */
export function labelColours(segmentation: Segmentation): Uint32Array {
  const used = new Set<number>();
  const colours = new Uint32Array(segmentation.count);
  for (let region = 0; region < segmentation.count; region++) {
    const [r, g, b] = meanOf(segmentation.sums, region * MOMENT_STRIDE).map((value) => Math.max(0, Math.min(255, Math.round(value))));
    const word = nearestFreeColour(r as number, g as number, b as number, used);
    used.add(word);
    colours[region] = word;
  }
  return colours;
}

/**
 * The colour word nearest (r, g, b) that is not taken, each channel kept within 0–255. Counting
 * up through the word instead carried out of a full channel: a second white region became black
 * (0xffffff + 1), and the tracer merged it into a black frame beside it (a flag's white stripe
 * vanished).
 */
function nearestFreeColour(r: number, g: number, b: number, used: Set<number>): number {
  for (let distance = 0; ; distance++) {
    for (let dr = -distance; dr <= distance; dr++) {
      const rest = distance - Math.abs(dr);
      for (let dg = -rest; dg <= rest; dg++) {
        const db = rest - Math.abs(dg);
        for (const sign of db === 0 ? [1] : [1, -1]) {
          const red = r + dr;
          const green = g + dg;
          const blue = b + sign * db;
          if (red < 0 || red > 255 || green < 0 || green > 255 || blue < 0 || blue > 255) continue;
          const word = ((red << 16) | (green << 8) | blue) >>> 0;
          if (!used.has(word)) return word;
        }
      }
    }
  }
}

/**
 * Whether the tracer drew a colour 0xRRGGBB within OWN_COLOUR_DISTANCE of `word` in every channel,
 * and gave its shapes a paint that `paintedAlike` accepts (`colours`: each colour drawn, and the
 * region whose paint it was given).
 */
function drawnNear(colours: Map<number, number>, word: number, paintedAlike: (region: number) => boolean): boolean {
  const range = (channel: number): [number, number] => [Math.max(0, channel - OWN_COLOUR_DISTANCE), Math.min(255, channel + OWN_COLOUR_DISTANCE)];
  const [r0, r1] = range(word >> 16);
  const [g0, g1] = range((word >> 8) & 0xff);
  const [b0, b1] = range(word & 0xff);
  for (let red = r0; red <= r1; red++) {
    for (let green = g0; green <= g1; green++) {
      for (let blue = b0; blue <= b1; blue++) {
        const drawnAs = colours.get((red << 16) | (green << 8) | blue);
        if (drawnAs !== undefined && paintedAlike(drawnAs)) return true;
      }
    }
  }
  return false;
}

function nearestRegion(colours: Uint32Array, r: number, g: number, b: number, eligible: (region: number) => boolean): number {
  let best = -1;
  let bestDistance = Infinity;
  for (let region = 0; region < colours.length; region++) {
    if (!eligible(region)) continue;
    const word = colours[region] as number;
    const distance = Math.abs((word >> 16) - r) + Math.abs(((word >> 8) & 0xff) - g) + Math.abs((word & 0xff) - b);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = region;
    }
  }
  return best;
}

/**
 * Traces the fine label map. Translucent regions (shadows, glows, soft edges) lie over nothing
 * in the source, so nothing may be stacked under them: each is traced alone, on its own box, and
 * painted first (stacked with the others, one lying in another's hole would show that one through
 * itself, darker; VTracer's cutout mode separates them too, but took up to 4 s on a 1 MP grid).
 * Past a budget they are traced together and cut apart. The opaque regions are then traced
 * together, stacked, with the translucent ones as holes. A region the tracer then drew no shape
 * of its own paint for is traced alone and laid on top.
 */
export async function traceLabels(labels: Int32Array, width: number, height: number, colours: Uint32Array, paints: RegionPaint[], config: Config): Promise<TracedShape[]> {
  const translucent = paints.map((paint) => paintOpacity(paint) < OPAQUE_ABOVE);
  const shapes: TracedShape[] = [];
  const painted = (shape: TracedShape, region: number): void => {
    const paint = paints[region];
    if (!paint) return;
    shape.fill = paint.fill;
    shape.opacity = paint.opacity;
    shapes.push(shape);
  };
  const allBoxes = regionBoxes(labels, width, height, colours.length);
  const boxes = allBoxes.filter((box) => translucent[box.region]);
  // Many large boxes (bands of a translucent diagonal gradient, an icon inside a faint glow) would
  // cost more than they are worth: past the budget, the translucent regions are traced together.
  const boxPixels = boxes.reduce((sum, box) => sum + (box.x1 - box.x0 + 2) * (box.y1 - box.y0 + 2), 0);
  const alone = boxPixels <= ALONE_BUDGET * width * height;
  if (alone) for (const box of boxes) for (const shape of await traceRegionAlone(labels, width, box, config)) painted(shape, box.region);
  const regionOf = new Map<number, number>();
  colours.forEach((word, region) => regionOf.set(word, region));
  /** Each colour the tracer drew, and the region whose paint its shapes were given. */
  const tracedColours = new Map<number, number>();
  for (const layer of alone ? [false] : [true, false]) {
    const pixels = Buffer.alloc(width * height * 4);
    const words = new Uint32Array(pixels.buffer, pixels.byteOffset, width * height);
    let count = 0;
    for (let i = 0; i < labels.length; i++) {
      const label = labels[i] as number;
      if (label < 0 || translucent[label] !== layer) continue;
      words[i] = rgbaWord(colours[label] as number);
      count++;
    }
    if (count === 0) continue;
    const svg = await runTracer(pixels, width, height, config);
    const traced = parseTracerSvg(svg, STRAIGHT_TOLERANCE);
    // Translucent regions traced together are cut apart: stacked, each would show the ones under it through itself.
    for (const shape of layer ? cutOutTraced(traced) : traced) {
      if (shape.fill.kind !== 'flat') continue;
      const { r, g, b } = shape.fill.color;
      // A patch the tracer merged into a shape shifts its mean colour a little: the nearest region colour is its own.
      const word = (r << 16) | (g << 8) | b;
      const region = regionOf.get(word) ?? nearestRegion(colours, r, g, b, (candidate) => translucent[candidate] === layer);
      tracedColours.set(word, region);
      painted(shape, region);
    }
  }
  // The tracer's clustering can fold a whole region into a neighbour and draw it in the mixed
  // colour of both (a grey band between two black outlines: one dark shape, the grey gone), or
  // join regions of one mean colour and different gradients (a gear's two white teeth, each lit
  // from its own centre: one shape, painted with one tooth's gradient). A region the tracer drew
  // no shape of its own paint for is traced alone and laid on top, where it lay in the map.
  const minimum = DROPPED_MIN_SPECKS * Math.max(1, config.filterSpeckle) ** 2;
  for (const box of allBoxes) {
    if (alone && translucent[box.region]) continue;
    if (box.pixels < minimum || drawnNear(tracedColours, colours[box.region] as number, (drawnAs) => samePaint(paints[drawnAs], paints[box.region]))) continue;
    for (const shape of await traceRegionAlone(labels, width, box, config)) painted(shape, box.region);
  }
  return shapes;
}

/**
 * Whether two regions' paints draw alike: one region, or both flat (their colours are within
 * OWN_COLOUR_DISTANCE when this is asked). A gradient is its own region's: another region's
 * gradient of the same mean colour runs from another centre or along another axis.
 */
function samePaint(a: RegionPaint | undefined, b: RegionPaint | undefined): boolean {
  if (!a || !b) return false;
  return a === b || (a.fill.kind === 'flat' && b.fill.kind === 'flat' && Math.abs(a.opacity - b.opacity) < OPACITY_ALIKE);
}

/** Flat paints whose opacities differ by less than this draw alike. */
const OPACITY_ALIKE = 0.02;

/**
 * A region was drawn when the tracer drew a shape within this of its colour (per channel): the
 * tracer rounds its clusters' means and joins neighbours a level apart, and regions of one paint
 * are told apart by colours a level or two apart (labelColours).
 */
const OWN_COLOUR_DISTANCE = 2;

/**
 * A region the tracer drew no shape for is traced alone when it has at least this many times the
 * pixels of the tracer's speck filter: smaller ones are the specks the filter is there to drop.
 */
const DROPPED_MIN_SPECKS = 4;

/** Translucent regions are traced alone while their boxes add up to at most this many traced grids. */
const ALONE_BUDGET = 4;

/** A colour 0xRRGGBB as an opaque RGBA pixel read as a little-endian word (A B G R). */
function rgbaWord(word: number): number {
  return (0xff000000 | ((word & 0xff) << 16) | (word & 0xff00) | ((word >> 16) & 0xff)) >>> 0;
}

interface RegionBox {
  region: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  pixels: number;
}

/** Each region's bounding box on the label map (exclusive ends). */
function regionBoxes(labels: Int32Array, width: number, height: number, count: number): RegionBox[] {
  const boxes: RegionBox[] = Array.from({ length: count }, (_, region) => ({ region, x0: width, y0: height, x1: 0, y1: 0, pixels: 0 }));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const label = labels[y * width + x] as number;
      if (label < 0) continue;
      const box = boxes[label] as RegionBox;
      box.pixels++;
      if (x < box.x0) box.x0 = x;
      if (x >= box.x1) box.x1 = x + 1;
      if (y < box.y0) box.y0 = y;
      if (y >= box.y1) box.y1 = y + 1;
    }
  }
  return boxes.filter((box) => box.x1 > box.x0);
}

/**
 * One region traced alone: its pixels in one colour on transparency, within its box and a pixel
 * around it. With nothing else in the picture the tracer keeps every hole in it.
 */
async function traceRegionAlone(labels: Int32Array, width: number, box: RegionBox, config: Config): Promise<TracedShape[]> {
  const x0 = Math.max(0, box.x0 - 1);
  const y0 = Math.max(0, box.y0 - 1);
  const boxWidth = Math.min(width, box.x1 + 1) - x0;
  const boxHeight = Math.min(labels.length / width, box.y1 + 1) - y0;
  const mask = new Uint8Array(boxWidth * boxHeight);
  for (let y = 0; y < boxHeight; y++) {
    for (let x = 0; x < boxWidth; x++) if (labels[(y0 + y) * width + x0 + x] === box.region) mask[y * boxWidth + x] = 1;
  }
  return traceMaskAlone({ mask, x0, y0, width: boxWidth, height: boxHeight }, config);
}

/** A mask traced alone (one colour on transparency), its shapes placed at the mask's box. */
async function traceMaskAlone(box: FineMask, config: Config): Promise<TracedShape[]> {
  const pixels = Buffer.alloc(box.width * box.height * 4);
  const words = new Uint32Array(pixels.buffer, pixels.byteOffset, box.width * box.height);
  box.mask.forEach((inside, k) => {
    if (inside) words[k] = rgbaWord(0);
  });
  const shapes = parseTracerSvg(await runTracer(pixels, box.width, box.height, config), STRAIGHT_TOLERANCE);
  for (const shape of shapes) {
    for (const { coords } of shape.paths) {
      for (let at = 0; at + 1 < coords.length; at += 2) {
        coords[at] = (coords[at] as number) + box.x0;
        coords[at + 1] = (coords[at + 1] as number) + box.y0;
      }
    }
  }
  return shapes;
}

/** The soft edges (shadows, glows) of translucent regions, each traced alone as its blurred shape, and the regions they draw. */
async function traceSoftEdges(
  segmentation: Segmentation,
  labels: Int32Array,
  fine: Buffer,
  covered: Buffer,
  factor: number,
  paints: RegionPaint[],
  config: Config,
): Promise<{ shapes: TracedShape[]; regions: Set<number> }> {
  const translucent = paints.map((paint) => paintOpacity(paint) < OPAQUE_ABOVE);
  const opaque = translucent.map((value) => !value);
  const edges = fitSoftEdges(segmentation.labels, segmentation.width, segmentation.height, covered, translucent, opaque);
  const shapes: TracedShape[] = [];
  const regions = new Set<number>();
  for (const edge of edges) {
    const mask = softEdgeMask(edge, segmentation, labels, fine, factor, opaque);
    if (!mask) continue;
    for (const shape of await traceMaskAlone(mask, config)) shapes.push({ ...shape, fill: flat(edge.color), opacity: edge.opacity, blur: edge.sigma * factor });
    for (const region of edge.regions) regions.add(region);
  }
  return { shapes, regions };
}

/** The regions drawn as soft edges, each traced alone and painted flat as segmented (the other version). */
async function traceRegionsFlat(labels: Int32Array, width: number, height: number, regions: Set<number>, paints: RegionPaint[], config: Config): Promise<TracedShape[]> {
  const shapes: TracedShape[] = [];
  for (const box of regionBoxes(labels, width, height, paints.length)) {
    const paint = paints[box.region];
    if (!regions.has(box.region) || !paint) continue;
    for (const shape of await traceRegionAlone(labels, width, box, config)) shapes.push({ ...shape, fill: paint.fill, opacity: paint.opacity });
  }
  return shapes;
}

/**
 * Points within two traced pixels of the image's edge are put on it: the tracer's outline of a
 * shape that fills to the edge can end a pixel short, and the page would show there.
 */
export function snapToFrame(shapes: TracedShape[], width: number, height: number): void {
  for (const shape of shapes) {
    for (const { coords } of shape.paths) {
      for (let at = 0; at + 1 < coords.length; at += 2) {
        const x = coords[at] as number;
        const y = coords[at + 1] as number;
        if (x < FRAME_SNAP) coords[at] = 0;
        else if (x > width - FRAME_SNAP) coords[at] = width;
        if (y < FRAME_SNAP) coords[at + 1] = 0;
        else if (y > height - FRAME_SNAP) coords[at + 1] = height;
      }
    }
  }
}

/** How much of a large image is gradient, from a copy of PROBE_PIXELS. */
async function gradientShareOf(working: RgbaImage, params: TraceParams): Promise<number> {
  const shrink = Math.sqrt(PROBE_PIXELS / (working.width * working.height));
  const width = Math.max(1, Math.round(working.width * shrink));
  const height = Math.max(1, Math.round(working.height * shrink));
  const rgba = opaqueSilhouette(await resized(working, width, height, 'lanczos3'), width, height);
  const quantised = (await quantiseColours({ rgba, width, height }, PALETTE_COLOURS.other[params.colorPrecision - 1] ?? 64)).rgba;
  const segmentation = segmentArtwork(rgba, quantised, width, height, segmentOptions(params, (working.width * working.height) / (width * height)));
  return gradientShare(segmentation, fitPaints(segmentation, 1));
}

/** The share of the painted pixels whose region is filled with a gradient. */
function gradientShare(segmentation: Segmentation, paints: RegionPaint[]): number {
  let painted = 0;
  let graded = 0;
  for (const label of segmentation.labels) {
    if (label < 0) continue;
    painted++;
    if ((paints[label] as RegionPaint).fill.kind !== 'flat') graded++;
  }
  return painted === 0 ? 0 : graded / painted;
}

/**
 * Traces artwork at its working size: shapes in the coordinates of the traced grid; or null
 * for artwork the other path traces better: dense artwork (isDenseArtwork), whose detail the
 * reduced segmentation grid would lose, and large artwork with little gradient in it.
 */
/**
 * Spot colours for the artwork path (`palette`, `maxColors`): each region's paint and pixel count
 * in, a spot colour per region out (-1: the region is left clear), with the spot colours' paints.
 */
export type RegionRecolouring = (paints: RegionPaint[], weights: number[]) => { spotOfRegion: Int32Array; paints: RegionPaint[] };

/** The image on a segmentation grid, its anti-aliased rims made opaque (median-filtered under inputEnhance), and its palette version. */
async function segmentedCopy(working: RgbaImage, grid: { width: number; height: number }, params: TraceParams): Promise<{ source: RgbaImage; quantised: Buffer }> {
  const segmented: RgbaImage = {
    rgba: opaqueSilhouette(await resized(working, grid.width, grid.height, 'lanczos3'), grid.width, grid.height),
    width: grid.width,
    height: grid.height,
  };
  const source = params.inputEnhance
    ? { ...segmented, rgba: await sharp(segmented.rgba, { raw: { width: grid.width, height: grid.height, channels: 4 } }).median(3).raw().toBuffer() }
    : segmented;
  const colours = PALETTE_COLOURS.other[params.colorPrecision - 1] ?? 64;
  return { source, quantised: (await quantiseColours(source, colours)).rgba };
}

export async function traceArtwork(
  working: RgbaImage,
  params: TraceParams,
  curveMode: ResolvedCurveMode,
  recolour?: RegionRecolouring,
  segmentPixels = SEGMENT_PIXELS,
): Promise<ArtworkTrace | null> {
  const pixels = working.width * working.height;
  const grid = artworkGrid(working.width, working.height, segmentPixels);
  // Density as it was measured when its limit was set: on the palette of a copy of at most
  // DENSE_ABOVE_PIXELS (the segmentation grid's own when that is its size).
  const probeGrid = artworkGrid(working.width, working.height, DENSE_ABOVE_PIXELS);
  const probe = pixels > DENSE_ABOVE_PIXELS ? await segmentedCopy(working, probeGrid, params) : undefined;
  if (probe && isDenseArtwork(probe.quantised, probeGrid.width, probeGrid.height, pixels)) return null;
  const fineWidth = grid.width * grid.factor;
  const fineHeight = grid.height * grid.factor;
  const sameGrid = probe && probeGrid.width === grid.width && probeGrid.height === grid.height;
  const { source, quantised } = sameGrid ? probe : await segmentedCopy(working, grid, params);
  // Large flat artwork keeps more of its detail traced whole from its palette: the reduced grid
  // pays off where it brings gradients, which a small copy shows as well as a large one. Asked
  // after density, which is cheaper: the probe segments its copy (0.4 s on a dense map traced at
  // 2 MP, where the grid and palette above cost 40 ms), and either answer alone sends the image on.
  if (pixels > segmentPixels && (await gradientShareOf(working, params)) < LARGE_GRADIENT_SHARE) return null;
  const segmentation = segmentArtwork(source.rgba, quantised, grid.width, grid.height, segmentOptions(params, pixels / (grid.width * grid.height), grid.icon));
  // The fine grid is resampled smoothly up from a small image, or down from a large one (its own detail).
  const fine = premultiply(await resized(working, fineWidth, fineHeight, fineWidth > working.width ? 'cubic' : 'lanczos3'));
  // The segmented image as it was (its anti-aliased rims not made opaque): how much of each pixel each side covers.
  const covered = premultiply(await resized(working, grid.width, grid.height, 'lanczos3'));
  const labels = grid.factor === 1 ? segmentation.labels : upsampleLabels(segmentation, covered, fine, grid.factor);
  const paints = fitPaints(segmentation, grid.factor);
  const config = regionMapTracerConfig(params, curveMode, grid.factor);
  let shapes: TracedShape[];
  let flatEdges: TracedShape[] | undefined;
  if (recolour) {
    // Regions of one spot colour are one colour on the map: the tracer makes touching ones one shape.
    const weights = paints.map((_, region) => pixelCount(segmentation.sums, region * MOMENT_STRIDE));
    const spot = recolour(paints, weights);
    const spotLabels = labels.map((label) => (label < 0 ? -1 : (spot.spotOfRegion[label] as number)));
    const words = Uint32Array.from(spot.paints, (paint) => {
      const { r, g, b } = paint.fill.kind === 'flat' ? paint.fill.color : { r: 0, g: 0, b: 0 };
      return ((Math.round(r) << 16) | (Math.round(g) << 8) | Math.round(b)) >>> 0;
    });
    shapes = await traceLabels(spotLabels, fineWidth, fineHeight, words, spot.paints, config);
  } else {
    // Soft edges are drawn first, under everything (a shadow lies under its shape); the rest is
    // traced once for both versions, the soft edges' regions left out.
    const soft = await traceSoftEdges(segmentation, labels, fine, covered, grid.factor, paints, config);
    const others = soft.regions.size > 0 ? labels.map((label) => (soft.regions.has(label) ? -1 : label)) : labels;
    const rest = await traceLabels(others, fineWidth, fineHeight, labelColours(segmentation), paints, config);
    shapes = [...soft.shapes, ...rest];
    if (soft.shapes.length > 0) flatEdges = [...(await traceRegionsFlat(labels, fineWidth, fineHeight, soft.regions, paints, config)), ...rest];
  }
  const fitted = (list: TracedShape[]): void => {
    if (curveMode !== 'spline') return;
    const curves = { ...curveOptions(params, fineWidth / working.width), stairStep: grid.factor > 1 ? grid.factor : undefined };
    for (const shape of list) shape.paths = shape.paths.map((path) => fitOutlines(path, curves));
  };
  fitted(shapes);
  snapToFrame(shapes, fineWidth, fineHeight);
  if (flatEdges) {
    // The shapes both versions share are fitted and snapped once.
    const shared = new Set(shapes);
    const own = flatEdges.filter((shape) => !shared.has(shape));
    fitted(own);
    snapToFrame(own, fineWidth, fineHeight);
  }
  return { shapes, width: fineWidth, height: fineHeight, ...(flatEdges ? { flatEdges } : {}) };
}
