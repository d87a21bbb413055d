// A photograph's smooth areas (a sky, a wall, a blurred background) come out of the palette and
// the tracer as bands of flat colour a few shades apart: at 100 % a person sees stripes where the
// photograph has a ramp. Each large shape is painted instead with the gradient its own visible
// pixels show (paint/gradient.ts, fitted as artwork's regions are): neighbouring bands then meet
// at about the same colour and the stripes fade into the ramp. Which pixels a shape shows is read
// from the traced shapes themselves, drawn once with one colour per shape and no anti-aliasing.
// Touching bands that one ramp fits are then painted with that one gradient (joinRamps), so no
// step is left where their own ramps met. Bands that curve across the picture in two directions
// keep part of their edges: a linear or radial gradient follows one direction only.

import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { resizeTo, type RgbaImage } from '../analyse/prepare.ts';
import { PathCommand, shapeBox, type Paint, type TracedShape } from '../geometry.ts';
import { collectPixels, fitRegion, samplePixels, paintDifference, paintError, type FittedPaint, type GradientRule, type RegionPixels } from './gradient.ts';
import { disjointSets, find, union } from '../segment/components.ts';
import { reserve, writeAscii, writeByte, type AsciiText } from '../write/ascii-text.ts';

/**
 * A large area's ramp is fitted on a sample of at most this many of its pixels, evenly spread: a
 * ramp has a few stops, and fitted on every pixel the largest areas took most of the map's time.
 */
const FIT_SAMPLES = 5_000;

/** Shapes showing fewer traced pixels than this stay flat: a band worth shading is a large area. */
export const MIN_SHADED_PIXELS = 400;

/** A gradient whose stops differ by less than this many levels in every channel is written flat: nobody sees it, and it costs bytes. */
const MIN_SHADED_RANGE = 3;

/**
 * A photograph's smooth areas carry their grain: a band's flat colour is about as far from its
 * pixels (RMS 1.5–2.5 on a sky) as artwork's FLAT_TOLERANCE, and a ramp under the grain lowers
 * that only a little (to 0.7–0.95 of it). So a gradient is kept wherever it fits at least as well
 * as the flat colour.
 */
export const PHOTO_GRADIENTS: GradientRule = { flatTolerance: 0, gain: 1, minRange: MIN_SHADED_RANGE };

/**
 * Shapes whose bounding box is smaller than this (working pixels²) are left out of the map: a
 * photograph's tracer output is mostly such specks (nine in ten of the angel's 220,000 shapes),
 * drawing them would take most of the time, and the few pixels they take from a large shape
 * beneath them barely move its fit.
 */
const MIN_DRAWN_BOX = 16;

/**
 * The map is drawn at most this many pixels. Coarser maps blur the bands' edges into the fit
 * (0.25 MP: the canyon's sky kept steps 1.51 times as steep as the photograph's; 0.5 MP: 1.37;
 * its full 0.6 MP: 1.34, bench/crops.ts, with three box blurs of radius 4) and finer ones cost time.
 */
const MAP_PIXELS = 500_000;

/** Writes a number as String() does, digit by digit where it is a whole number of a few digits. */
function writeWhole(text: AsciiText, value: number): void {
  if (!Number.isInteger(value) || Math.abs(value) >= 1e9) {
    writeAscii(text, String(value));
    return;
  }
  reserve(text, 11);
  // -0 is written "0", as String(-0) is.
  if (value < 0) text.bytes[text.length++] = 45;
  let rest = Math.abs(value);
  let digits = 1;
  for (let power = 10; power <= rest; power *= 10) digits++;
  for (let at = text.length + digits - 1; at >= text.length; at--) {
    text.bytes[at] = 48 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  text.length += digits;
}

/**
 * A shape's outlines as SVG path data on the map: the polygon through its segments' ends (within
 * a pixel of the curves, and quicker to draw), in whole map pixels, tokens one space apart.
 */
function writePolygonData(text: AsciiText, shape: TracedShape, scaleX: number, scaleY: number): void {
  let first = true;
  for (const path of shape.paths) {
    const { commands, coords } = path;
    let at = 0;
    for (let index = 0; index < commands.length; index++) {
      const command = commands[index] as number;
      if (!first) writeByte(text, 32);
      first = false;
      if (command === PathCommand.close) {
        writeByte(text, 90);
        continue;
      }
      const points = command === PathCommand.cubic ? 3 : 1;
      const end = at + (points - 1) * 2;
      writeByte(text, command === PathCommand.move ? 77 : 76);
      writeByte(text, 32);
      writeWhole(text, Math.round((coords[end] as number) * scaleX));
      writeByte(text, 32);
      writeWhole(text, Math.round((coords[end + 1] as number) * scaleY));
      at += points * 2;
    }
  }
}

/**
 * The index of the shape each pixel of a `mapWidth`×`mapHeight` map of the `width`×`height` grid
 * shows (−1 where none): the shapes drawn without anti-aliasing, each in a colour of its own.
 */
export function visibleShapes(shapes: readonly TracedShape[], width: number, height: number, mapWidth = width, mapHeight = height): Int32Array {
  const scaleX = mapWidth / width;
  const scaleY = mapHeight / height;
  const text: AsciiText = { bytes: Buffer.allocUnsafe(1 << 16), length: 0 };
  writeAscii(text, `<svg xmlns="http://www.w3.org/2000/svg" width="${mapWidth}" height="${mapHeight}" viewBox="0 0 ${mapWidth} ${mapHeight}" shape-rendering="crispEdges">`);
  for (let index = 0; index < shapes.length; index++) {
    const shape = shapes[index] as TracedShape;
    const box = shapeBox(shape);
    if ((box.x1 - box.x0) * (box.y1 - box.y0) < MIN_DRAWN_BOX) continue;
    const colour = (index + 1).toString(16).padStart(6, '0');
    // The id's bytes as red, green, blue: low byte first.
    writeAscii(text, `<path fill="#${colour.slice(4, 6)}${colour.slice(2, 4)}${colour.slice(0, 2)}" d="`);
    writePolygonData(text, shape, scaleX, scaleY);
    writeAscii(text, '"/>');
  }
  writeAscii(text, '</svg>');
  const rendered = new Resvg(text.bytes.subarray(0, text.length), { font: { loadSystemFonts: false } }).render();
  const pixels = rendered.pixels;
  const renderedWidth = rendered.width;
  const rows = Math.min(mapHeight, rendered.height);
  const columns = Math.min(mapWidth, renderedWidth);
  const owner = new Int32Array(mapWidth * mapHeight).fill(-1);
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < columns; x++) {
      const o = (y * renderedWidth + x) * 4;
      if ((pixels[o + 3] as number) < 255) continue;
      const id = (pixels[o] as number) | ((pixels[o + 1] as number) << 8) | ((pixels[o + 2] as number) << 16);
      if (id > 0 && id <= shapes.length) owner[y * mapWidth + x] = id - 1;
    }
  }
  return owner;
}

/**
 * Paints each opaque flat shape that shows at least MIN_SHADED_PIXELS (traced pixels) of the
 * picture with the gradient its visible pixels follow, where one fits at least as well as its flat
 * colour (PHOTO_GRADIENTS). The shapes are in the coordinates of a `width`×`height` grid;
 * `picture` is the image traced, at any size. Returns how many shapes were shaded.
 */
export async function shadeLargeShapes(shapes: TracedShape[], picture: RgbaImage, width: number, height: number): Promise<number> {
  const scale = Math.min(1, Math.sqrt(MAP_PIXELS / (width * height)));
  const mapWidth = Math.max(1, Math.round(width * scale));
  const mapHeight = Math.max(1, Math.round(height * scale));
  const owner = visibleShapes(shapes, width, height, mapWidth, mapHeight);
  const visible = new Int32Array(shapes.length);
  // Indexed, not for…of: run once per image, the loop's iterator made a result object per pixel.
  for (let p = 0; p < owner.length; p++) {
    const index = owner[p] as number;
    if (index >= 0) visible[index] = (visible[index] as number) + 1;
  }
  const minimum = MIN_SHADED_PIXELS * (mapWidth / width) * (mapHeight / height);
  const regionOf = new Int32Array(shapes.length).fill(-1);
  const candidates: number[] = [];
  shapes.forEach((shape, index) => {
    if (shape.fill.kind !== 'flat' || shape.opacity < 1 || shape.blur || shape.stroke) return;
    if ((visible[index] as number) < minimum) return;
    regionOf[index] = candidates.length;
    candidates.push(index);
  });
  if (candidates.length === 0) return 0;
  const { rgba } = await resizeTo(picture, mapWidth, mapHeight);
  const { groupOf, count } = sameColourAreas(owner, mapWidth, mapHeight, shapes, regionOf, candidates.length);
  // Only opaque pixels are fitted: an opaque shape's gradient stays opaque where it meets
  // transparency (restoreOpacity has given translucent shapes their opacity already).
  const labels = new Int32Array(mapWidth * mapHeight);
  for (let i = 0; i < labels.length; i++) {
    const index = owner[i] as number;
    labels[i] = index < 0 || (rgba[i * 4 + 3] as number) < 255 || (regionOf[index] as number) < 0 ? -1 : (groupOf[regionOf[index] as number] as number);
  }
  // Every fitted pixel is opaque, so its straight colour is its premultiplied one.
  const factor = width / mapWidth;
  const areas = collectPixels({ width: mapWidth, height: mapHeight, labels, count, premultiplied: rgba });
  const fitted = areas.map((pixels) => fitRegion(samplePixels([{ pixels, weight: pixels.count }], FIT_SAMPLES), factor, PHOTO_GRADIENTS));
  // Ramps are joined on the map blurred: a sky's grain weighs more in a paint's error than a step between its bands.
  const blurred = await sharp(rgba, { raw: { width: mapWidth, height: mapHeight, channels: 4 } }).blur(JOIN_BLUR).raw().toBuffer();
  const samples = areas.map((pixels) => colouredFrom(samplePixels([{ pixels, weight: pixels.count }], JOIN_SAMPLES), blurred, mapWidth));
  const paints = joinRamps(labels, mapWidth, mapHeight, samples, areas.map((pixels) => pixels.count), fitted, factor);
  let shaded = 0;
  candidates.forEach((index, region) => {
    const paint = paints[groupOf[region] as number]?.paint;
    if (!paint || paint.fill.kind === 'flat') return;
    (shapes[index] as TracedShape).fill = paint.fill;
    shaded++;
  });
  const areaPaintOf = (index: number): Paint | undefined => {
    const region = regionOf[index] as number;
    const fill = region < 0 ? undefined : paints[groupOf[region] as number]?.paint.fill;
    return fill && fill.kind !== 'flat' ? fill : undefined;
  };
  return shaded + shadeIslands(shapes, owner, mapWidth, mapHeight, rgba, factor, (index) => regionOf[index] as number < 0 && (visible[index] as number) > 0, areaPaintOf);
}

/**
 * Two touching areas take one ramp when it fits their pixels together within this many levels
 * (RMS per channel) of their own fits: a sky the palette cut into bands of colour a few shades
 * apart, each band with a ramp of its own, still showed its bands where the ramps met at
 * different shades. Painted with one gradient, they meet at the same colour.
 */
const JOIN_TOLERANCE = 0.5;
/** The blur (sigma, map pixels) under which joins are judged. */
const JOIN_BLUR = 1.5;
/**
 * Only areas their own paint fits within this many levels are joined: a smooth area's grain
 * (a sky's: RMS 1.5–2.5). Every join measured on the corpus's photographs was of areas under 3.
 */
const SMOOTH_ERROR = 3;
/**
 * Only areas whose paints differ along their shared edge by MIN_SEAM–MAX_SEAM (RMS per channel,
 * 0–255) are joined. Under it no step shows. Over it the step is an edge of the picture, which
 * the shapes' outlines draw crisp, where a joined ramp would draw it as wide as a bin of the map
 * (8 pixels of a 20 MP photograph). The joins on the corpus's photographs met steps of 1–4.
 */
const MIN_SEAM = 1;
const MAX_SEAM = 6;
const JOIN_PASSES = 3;
/**
 * Joined areas span a sky: their ramp may bend through more colours than one band's, so it
 * keeps up to twice the stops.
 */
const JOINED_GRADIENTS: GradientRule = { ...PHOTO_GRADIENTS, maxStops: 16, linearOnly: true };
/** Joined areas are fitted on a sample of at most this many of their pixels. */
const JOIN_SAMPLES = 1_000;
/** Areas touching along fewer map pixels than this are not joined: a corner is not a shared edge. */
const MIN_SHARED_EDGE = 8;

/**
 * The paint of every area after joining touching areas whose pixels one gradient fits about as
 * well as their own paints (JOIN_TOLERANCE), the longest shared edges first.
 */
export function joinRamps(labels: Int32Array, width: number, height: number, areas: RegionPixels[], sizes: readonly number[], fitted: FittedPaint[], factor: number): FittedPaint[] {
  const count = areas.length;
  // Where each pair of areas meets: the midpoints between their touching pixels' centres.
  const edges = new Map<number, number[]>();
  const touch = (a: number, b: number, x: number, y: number): void => {
    if (a < 0 || b < 0 || a === b) return;
    const key = a < b ? a * count + b : b * count + a;
    const edge = edges.get(key);
    if (edge) edge.push(x, y);
    else edges.set(key, [x, y]);
  };
  forEachTouching(labels, width, height, touch);
  const pairs = [...edges].filter(([, edge]) => edge.length / 2 >= MIN_SHARED_EDGE).sort((p, q) => q[1].length - p[1].length || p[0] - q[0]);
  const parent = disjointSets(count);
  const joinedOf = areas.slice();
  const weight = sizes.slice();
  const paints = fitted.slice();
  const smooth = fitted.map((fit) => fit.error <= SMOOTH_ERROR);
  // Every area joined is held to its own paint's error: measured over a whole join, one area's
  // wrong shade hides among the others', and joins one after another drift.
  const ownError = areas.map((area, index) => (smooth[index] ? paintError((fitted[index] as FittedPaint).paint.fill, area, factor) : 0));
  const members: number[][] = areas.map((_, index) => [index]);
  const fitsMembers = (paint: FittedPaint, root: number): boolean => (members[root] as number[]).every((member) => paintError(paint.paint.fill, areas[member] as RegionPixels, factor) <= (ownError[member] as number) + JOIN_TOLERANCE);
  const version = new Int32Array(count);
  const tried: string[] = [];
  for (let pass = 0, joined = 1; pass < JOIN_PASSES && joined > 0; pass++) {
    joined = 0;
    for (let index = 0; index < pairs.length; index++) {
      const [key, edge] = pairs[index] as [number, number[]];
      const ra = find(parent, Math.floor(key / count));
      const rb = find(parent, key % count);
      if (ra === rb || !smooth[ra] || !smooth[rb]) continue;
      // A pair tried before is tried again only when either side has joined others since.
      const sides = `${ra}.${version[ra]}:${rb}.${version[rb]}`;
      if (tried[index] === sides) continue;
      tried[index] = sides;
      const fa = (paints[ra] as FittedPaint).paint.fill;
      const fb = (paints[rb] as FittedPaint).paint.fill;
      // Only a step a person sees along the shared edge is worth a ramp across it.
      const step = paintDifference(fa, fb, Float64Array.from(edge), factor);
      if (step < MIN_SEAM || step > MAX_SEAM) continue;
      const both = samplePixels([{ pixels: joinedOf[ra] as RegionPixels, weight: weight[ra] as number }, { pixels: joinedOf[rb] as RegionPixels, weight: weight[rb] as number }], JOIN_SAMPLES);
      const fit = fitRegion(both, factor, JOINED_GRADIENTS);
      if (fit.paint.fill.kind === 'flat' || !fitsMembers(fit, ra) || !fitsMembers(fit, rb)) continue;
      union(parent, ra, rb);
      const root = find(parent, ra);
      members[root] = [...(members[ra] as number[]), ...(members[rb] as number[])];
      joinedOf[root] = both;
      weight[root] = (weight[ra] as number) + (weight[rb] as number);
      version[root] = Math.max(version[ra] as number, version[rb] as number) + 1;
      paints[root] = fit;
      joined++;
    }
  }
  return Array.from({ length: count }, (_, area) => paints[find(parent, area)] as FittedPaint);
}

/**
 * Calls `visit` with every labelled pixel of a `width`×`height` map and its right, then its lower
 * neighbour (whatever that one's label, −1 included), and the midpoint between their centres.
 */
function forEachTouching(labels: Int32Array, width: number, height: number, visit: (here: number, there: number, x: number, y: number) => void): void {
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const here = labels[i] as number;
      if (here < 0) continue;
      if (x + 1 < width) visit(here, labels[i + 1] as number, x + 1, y + 0.5);
      if (y + 1 < height) visit(here, labels[i + width] as number, x + 0.5, y + 1);
    }
  }
}

/** A sample of a map's pixels with its colours read again from another copy of the map (`rgba`, `width` pixels wide). */
function colouredFrom(sample: RegionPixels, rgba: Buffer, width: number): RegionPixels {
  const colours = new Float64Array(sample.count * 4);
  for (let k = 0; k < sample.count; k++) {
    const at = (Math.floor(sample.positions[k * 2 + 1] as number) * width + Math.floor(sample.positions[k * 2] as number)) * 4;
    for (let c = 0; c < 4; c++) colours[k * 4 + c] = rgba[at + c] as number;
  }
  return { ...sample, colours };
}

/**
 * The `candidateCount` candidates (`regionOf`: shape → candidate, −1 for none) grouped into
 * areas: candidates of the same flat colour whose visible pixels touch are one area, fitted with
 * one gradient. A region traced in tiles (trace/tiles.ts) is cut into a shape per tile, and pieces
 * fitted apart met at different shades along the tiles' straight edge (a sky's band, lighter left
 * of it than right). Returns each candidate's area and their number.
 */
export function sameColourAreas(owner: Int32Array, width: number, height: number, shapes: readonly TracedShape[], regionOf: Int32Array, candidateCount: number): { groupOf: Int32Array; count: number } {
  const parent = disjointSets(candidateCount);
  const join = (a: number, b: number): void => {
    if (a === b || a < 0 || b < 0) return;
    const ra = regionOf[a] as number;
    const rb = regionOf[b] as number;
    if (ra < 0 || rb < 0 || ra === rb) return;
    const fa = (shapes[a] as TracedShape).fill;
    const fb = (shapes[b] as TracedShape).fill;
    if (fa.kind === 'flat' && fb.kind === 'flat' && fa.color.r === fb.color.r && fa.color.g === fb.color.g && fa.color.b === fb.color.b) union(parent, ra, rb);
  };
  forEachTouching(owner, width, height, join);
  const groupOf = new Int32Array(candidateCount);
  const numbered = new Int32Array(candidateCount).fill(-1);
  let count = 0;
  for (let region = 0; region < candidateCount; region++) {
    const root = find(parent, region);
    if ((numbered[root] as number) < 0) numbered[root] = count++;
    groupOf[region] = numbered[root] as number;
  }
  return { groupOf, count };
}

/**
 * A small shape is kept flat only where its pixels show something the ramp around it does not: it
 * is given that ramp when at least this share of its edge on the map meets one shaded area.
 */
const ISLAND_SURROUND = 0.75;
/**
 * ...and its flat colour differs from that ramp over its pixels by at most this many levels (RMS
 * per channel): a step, not an edge of the picture (MAX_SEAM). A sky's band boundary wanders with
 * the grain and leaves islands of each band in the other: drawn flat over a ramp, a few levels off
 * it, they are blotches with crisp edges (the canyon's sky at 100 %). A bird or a star differs by tens of levels.
 */
const ISLAND_STEP = MAX_SEAM;

/**
 * Gives each small flat shape (`isIsland`) that lies in a shaded area (`areaPaintOf`) that area's
 * gradient where the two differ by a step only (ISLAND_STEP).
 * Returns how many were given one.
 */
function shadeIslands(
  shapes: TracedShape[],
  owner: Int32Array,
  mapWidth: number,
  mapHeight: number,
  rgba: Buffer,
  factor: number,
  isIsland: (index: number) => boolean,
  areaPaintOf: (index: number) => Paint | undefined,
): number {
  const islandOf = new Int32Array(shapes.length).fill(-1);
  const islands: number[] = [];
  shapes.forEach((shape, index) => {
    if (shape.fill.kind !== 'flat' || shape.opacity < 1 || shape.blur || shape.stroke || !isIsland(index)) return;
    islandOf[index] = islands.length;
    islands.push(index);
  });
  if (islands.length === 0) return 0;
  // Each island's edge: how many of its map pixels' neighbours belong to other shapes, and to which shaded areas' paints.
  const edge = new Int32Array(islands.length);
  const around: (Map<Paint, number> | undefined)[] = new Array(islands.length);
  const labels = new Int32Array(owner.length).fill(-1);
  const meet = (island: number, other: number): void => {
    if (other < 0) return;
    edge[island] = (edge[island] as number) + 1;
    const paint = areaPaintOf(other);
    if (!paint) return;
    const counts = (around[island] ??= new Map());
    counts.set(paint, (counts.get(paint) ?? 0) + 1);
  };
  for (let y = 0; y < mapHeight; y++) {
    for (let x = 0; x < mapWidth; x++) {
      const i = y * mapWidth + x;
      const here = owner[i] as number;
      const island = here < 0 ? -1 : (islandOf[here] as number);
      if (island < 0) continue;
      if ((rgba[i * 4 + 3] as number) === 255) labels[i] = island;
      if (x > 0 && owner[i - 1] !== here) meet(island, owner[i - 1] as number);
      if (x + 1 < mapWidth && owner[i + 1] !== here) meet(island, owner[i + 1] as number);
      if (y > 0 && owner[i - mapWidth] !== here) meet(island, owner[i - mapWidth] as number);
      if (y + 1 < mapHeight && owner[i + mapWidth] !== here) meet(island, owner[i + mapWidth] as number);
    }
  }
  const pixels = collectPixels({ width: mapWidth, height: mapHeight, labels, count: islands.length, premultiplied: rgba });
  let given = 0;
  islands.forEach((index, island) => {
    const counts = around[island];
    if (!counts) return;
    let ramp: Paint | undefined;
    let most = 0;
    for (const [paint, count] of counts) {
      if (count > most) [ramp, most] = [paint, count];
    }
    if (!ramp || most < ISLAND_SURROUND * (edge[island] as number)) return;
    const shape = shapes[index] as TracedShape;
    const own = pixels[island] as RegionPixels;
    if (own.count === 0) return;
    if (paintDifference(shape.fill, ramp, own.positions, factor) > ISLAND_STEP) return;
    shape.fill = ramp;
    given++;
  });
  return given;
}
