// The region map drawn at the grid that is traced: finer than the segmented image, with each
// edge placed from the colours of the fine image (the anti-aliasing ramp of a small image
// resampled smoothly, or the detail of a large one) rather than on the segmentation's pixels.

import { addPixel, evaluateModel, fitModel, meanOf, MOMENT_STRIDE, orderFor, pixelCount, type Colour } from './moments.ts';
import type { Segmentation } from './segment.ts';

/** Regions at least this opaque (0–1) are shapes whose edge against transparency is placed by alpha. */
export const OPAQUE_ABOVE = 0.97;

/** A region's model is fitted to its inner pixels when it has at least this many. */
const MIN_INNER_PIXELS = 8;

/** A region's colour model, with the range of the colours its pixels have. */
interface RegionModel {
  coefficients: Float64Array;
  /** Lowest and highest value per channel (premultiplied RGBA) among the region's pixels. */
  low: Colour;
  high: Colour;
}

/**
 * Each region's model (moments.ts), fitted once to the region's inner pixels (those whose four
 * neighbours are all in it): an edge pixel is part the other side's colour, and a model fitted
 * with them bends towards that colour at the edge, which pulls each edge placed by colour
 * towards the boundary of the segmented pixels (by up to a quarter of a pixel). Regions too
 * small or thin to have inner pixels keep the model of all their pixels.
 */
function regionModels(segmentation: Segmentation): RegionModel[] {
  const { width, height, labels, frame, premultiplied: colours, count } = segmentation;
  const inner = new Float64Array(count * MOMENT_STRIDE);
  const low = new Float64Array(count * 4).fill(255);
  const high = new Float64Array(count * 4);
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i] as number;
    if (label < 0) continue;
    for (let c = 0; c < 4; c++) {
      const value = colours[i * 4 + c] as number;
      if (value < (low[label * 4 + c] as number)) low[label * 4 + c] = value;
      if (value > (high[label * 4 + c] as number)) high[label * 4 + c] = value;
    }
  }
  for (let y = 1; y + 1 < height; y++) {
    for (let x = 1; x + 1 < width; x++) {
      const i = y * width + x;
      const label = labels[i] as number;
      if (label < 0 || labels[i - 1] !== label || labels[i + 1] !== label || labels[i - width] !== label || labels[i + width] !== label) continue;
      const p = i * 4;
      addPixel(inner, label * MOMENT_STRIDE, frame, x, y, colours[p] as number, colours[p + 1] as number, colours[p + 2] as number, colours[p + 3] as number);
    }
  }
  const models: RegionModel[] = [];
  for (let region = 0; region < count; region++) {
    const offset = region * MOMENT_STRIDE;
    const sums = pixelCount(inner, offset) >= MIN_INNER_PIXELS ? inner : segmentation.sums;
    models.push({
      coefficients: fitModel(sums, offset, orderFor(pixelCount(sums, offset))),
      low: [...low.subarray(region * 4, region * 4 + 4)] as Colour,
      high: [...high.subarray(region * 4, region * 4 + 4)] as Colour,
    });
  }
  return models;
}

/**
 * How far (0–255) a model's colour may run outside its region's colours before it is held back.
 * A gradient's model rightly runs a little past its pixels at the region's edge, where the ramp
 * goes on: held at 0–16, two gradient icons' edges moved (SSIM −0.003 at 512 px); at 32 they
 * are as they were. At 64 a frame extrapolated towards its page's colour is lost again.
 */
const MODEL_RANGE_MARGIN = 32;

/**
 * A region's model colour at (u, v), within the colours its pixels have: a model fitted to part
 * of a region (its inner pixels) can run far off elsewhere on it (a page's frame, a ring a
 * pixel wide whose inner pixels are a few at one corner, evaluated at 2000 on its far side),
 * and the frame then lost every fine pixel to the page and the shadow beside it.
 */
function modelColour(model: RegionModel | undefined, u: number, v: number, into: Colour): Colour {
  if (!model) return into.fill(0) as Colour;
  evaluateModel(model.coefficients, u, v, into);
  for (let c = 0; c < 4; c++) into[c] = Math.max((model.low[c] as number) - MODEL_RANGE_MARGIN, Math.min((model.high[c] as number) + MODEL_RANGE_MARGIN, into[c] as number));
  return into;
}

/**
 * The region map drawn `factor` times finer. `fine` is the image at that size, premultiplied:
 * resampled smoothly from the segmented image, or the larger image it was reduced from. Where
 * the four segmented pixels around a fine pixel belong to different regions, it takes the
 * region whose model colour is closest to the fine image there, so an edge lands where the anti-aliasing ramp crosses halfway
 * between the colours on its two sides: at a sub-pixel position, straight where the edge is.
 */
export function upsampleLabels(segmentation: Segmentation, source: Buffer, fine: Buffer, factor: number): Int32Array {
  const { width, height, labels, frame } = segmentation;
  const fineWidth = width * factor;
  const fineHeight = height * factor;
  const models = regionModels(segmentation);
  const opaque = Array.from({ length: segmentation.count }, (_, region) => (meanOf(segmentation.sums, region * MOMENT_STRIDE)[3] as number) >= OPAQUE_ABOVE * 255);
  const out = new Int32Array(fineWidth * fineHeight);
  const colour: Colour = [0, 0, 0, 0];
  const candidates = new Int32Array(4);
  // The segmented column at or left of each fine column's centre, worked out once for every row.
  const left = new Int32Array(fineWidth);
  for (let fx = 0; fx < fineWidth; fx++) left[fx] = Math.max(0, Math.min(width - 1, Math.floor((fx + 0.5) / factor - 0.5)));
  for (let fy = 0; fy < fineHeight; fy++) {
    const v = (fy + 0.5) / factor - 0.5;
    const y0 = Math.max(0, Math.min(height - 1, Math.floor(v)));
    const y1 = Math.min(height - 1, y0 + 1);
    for (let fx = 0; fx < fineWidth; fx++) {
      const x0 = left[fx] as number;
      const x1 = Math.min(width - 1, x0 + 1);
      candidates[0] = labels[y0 * width + x0] as number;
      candidates[1] = labels[y0 * width + x1] as number;
      candidates[2] = labels[y1 * width + x0] as number;
      candidates[3] = labels[y1 * width + x1] as number;
      const at = fy * fineWidth + fx;
      const p = at * 4;
      const first = candidates[0] as number;
      if (candidates[1] === first && candidates[2] === first && candidates[3] === first) {
        // Inside one region; but an opaque shape ends where the resampled alpha falls below one half,
        // even between pixels that all belong to it (its anti-aliased rim was made opaque).
        out[at] = first >= 0 && opaque[first] && (fine[p + 3] as number) < 128 ? -1 : first;
        continue;
      }
      const u = (fx + 0.5) / factor - 0.5;
      const nu = (u + 0.5 - frame.centreX) / frame.scale;
      const nv = (v + 0.5 - frame.centreY) / frame.scale;
      const alpha = fine[p + 3] as number;
      // Against transparency, the resampled alpha places the silhouette (at one half) and
      // colour picks among the shapes inside it; elsewhere premultiplied colour decides
      // (a shadow against transparency, one colour against another).
      const silhouette = candidates.includes(-1);
      const inside = !silhouette || alpha >= 128;
      let best = -2;
      let bestDistance = Infinity;
      for (let index = 0; index < 4; index++) {
        const candidate = candidates[index] as number;
        // A label met already scored the same distance, which could not beat itself.
        if (candidate === best || (index > 0 && candidate === candidates[0]) || (index > 1 && candidate === candidates[1]) || (index > 2 && candidate === candidates[2])) continue;
        modelColour(candidate < 0 ? undefined : models[candidate], nu, nv, colour);
        const opaqueModel = colour[3] >= OPAQUE_ABOVE * 255;
        if (silhouette && inside && candidate < 0) continue;
        if (silhouette && !inside && opaqueModel) continue;
        let distance: number;
        if (silhouette && inside) {
          // Straight colours: the pixel's alpha here is coverage, not colour.
          const a = Math.max(1, alpha);
          const m = Math.max(1, colour[3]);
          distance =
            Math.abs(((fine[p] as number) * 255) / a - (colour[0] * 255) / m) +
            Math.abs(((fine[p + 1] as number) * 255) / a - (colour[1] * 255) / m) +
            Math.abs(((fine[p + 2] as number) * 255) / a - (colour[2] * 255) / m);
        } else {
          distance =
            Math.abs((fine[p] as number) - colour[0]) +
            Math.abs((fine[p + 1] as number) - colour[1]) +
            Math.abs((fine[p + 2] as number) - colour[2]) +
            Math.abs(alpha - colour[3]);
        }
        if (distance < bestDistance) {
          bestDistance = distance;
          best = candidate;
        }
      }
      if (best === -2) best = inside ? (candidates.find((candidate) => candidate >= 0) ?? -1) : -1;
      out[at] = best;
    }
  }
  preserveCoverage(segmentation, models, source, fine, factor, out);
  return out;
}

/**
 * Whether the region `here` is a line a pixel wide at (x, y), and so which fine lines run along it:
 * `rows` when the pixels above and below are other regions and not both beside it (the line runs
 * left to right), `columns` the other way round; `none` otherwise (a dot, or a wider shape).
 */
function fineLinesAlong(labels: Int32Array, width: number, height: number, x: number, y: number, here: number): 'rows' | 'columns' | 'none' {
  // Off the image is neither: a shape cut by the frame is not a line along it.
  const other = (nx: number, ny: number) => nx >= 0 && ny >= 0 && nx < width && ny < height && labels[ny * width + nx] !== here;
  const openVertically = other(x, y - 1) && other(x, y + 1);
  const openHorizontally = other(x - 1, y) && other(x + 1, y);
  if (openVertically && !openHorizontally) return 'rows';
  if (openHorizontally && !openVertically) return 'columns';
  return 'none';
}

/** Where the pixel at `at` lies from colour `b` (0) towards b + `difference` (1); `length` is the difference's squared length. */
function shareOf(pixels: Buffer, at: number, b: Colour, difference: number[], length: number): number {
  let dot = 0;
  for (let c = 0; c < 4; c++) dot += ((pixels[at + c] as number) - (b[c] as number)) * (difference[c] as number);
  return dot / length;
}

/**
 * Marks in `kept` the `keep` highest of `scores`, ties going to the lower index: the first `keep`
 * of a stable sort by score, highest first, without sorting the indices (a numeric sort of a copy
 * finds the lowest score kept).
 */
function keepHighest(scores: Float64Array, keep: number, kept: Uint8Array, sorted: Float64Array): void {
  const count = scores.length;
  if (keep <= 0 || keep >= count) {
    kept.fill(keep <= 0 ? 0 : 1);
    return;
  }
  sorted.set(scores);
  sorted.sort();
  const lowest = sorted[count - keep] as number;
  let ties = keep;
  for (let k = 0; k < count; k++) if ((scores[k] as number) > lowest) ties--;
  for (let k = 0; k < count; k++) {
    const score = scores[k] as number;
    const keepIt = score > lowest || (score === lowest && ties-- > 0);
    kept[k] = keepIt ? 1 : 0;
  }
}

/** Two sides closer than this (sum over premultiplied RGBA) have no edge whose position their colours could tell. */
const COVERAGE_MIN_CONTRAST = 48;

/** `a` − `b` into `difference`, with its squared length and its sum of absolute values (the contrast COVERAGE_MIN_CONTRAST is held to). */
function differenceOf(a: Colour, b: Colour, difference: number[]): { length: number; contrast: number } {
  let length = 0;
  let contrast = 0;
  for (let c = 0; c < 4; c++) {
    difference[c] = (a[c] as number) - (b[c] as number);
    length += (difference[c] as number) ** 2;
    contrast += Math.abs(difference[c] as number);
  }
  return { length, contrast };
}

/** A pixel at least this far (0–1) from each neighbouring region's colour towards its own region's is covered by its own region whole. */
const WHOLE_SHARE = 0.9;

/**
 * Whether the pixel at (x, y), where three regions or more meet, is its own region's colour,
 * measured from every neighbouring region (the `count` labels of `others`, otherLabels) that
 * differs enough to tell (COVERAGE_MIN_CONTRAST):
 * its own region covers it whole. Lines a pixel wide side by side (an icon's outline and the
 * highlight inside it) meet three regions at every pixel, and their edges were placed on the
 * resampled image alone, whose ramp across two thin lines is pulled by the third colour: the
 * highlight inside a 128 px icon's outline came out a quarter of a pixel off, or a quarter wider.
 * Asked only of pixels in such a line (preserveCoverage): a wider region's pixel kept whole where
 * three regions meet is a square block on a fine grid, and a 47 px elephant's eyes, traced 9
 * times finer, came out with square corners (SSIM at 4× 0.902 → 0.887).
 */
function coveredWhole(segmentation: Segmentation, models: RegionModel[], source: Buffer, x: number, y: number, u: number, v: number, others: Int32Array, count: number): boolean {
  const here = segmentation.labels[y * segmentation.width + x] as number;
  if (here < 0) return false;
  const own: Colour = [0, 0, 0, 0];
  const side: Colour = [0, 0, 0, 0];
  const difference = [0, 0, 0, 0];
  modelColour(models[here], u, v, own);
  let told = false;
  for (let k = 0; k < count; k++) {
    const label = others[k] as number;
    modelColour(label < 0 ? undefined : models[label], u, v, side);
    const { length, contrast } = differenceOf(own, side, difference);
    if (contrast < COVERAGE_MIN_CONTRAST) continue;
    if (shareOf(source, (y * segmentation.width + x) * 4, side, difference, length) < WHOLE_SHARE) return false;
    told = true;
  }
  return told;
}

/** The labels other than its own around the pixel at (x, y), each once, in reading order, into `others`; returns how many. */
function otherLabels(labels: Int32Array, width: number, height: number, x: number, y: number, others: Int32Array): number {
  const here = labels[y * width + x] as number;
  let count = 0;
  for (let ny = Math.max(0, y - 1); ny <= Math.min(height - 1, y + 1); ny++) {
    for (let nx = Math.max(0, x - 1); nx <= Math.min(width - 1, x + 1); nx++) {
      const label = labels[ny * width + nx] as number;
      if (label === here) continue;
      // A plain scan of the few found so far: a subarray view per neighbour cost an allocation on every edge pixel.
      let seen = false;
      for (let k = 0; k < count && !seen; k++) seen = others[k] === label;
      if (!seen) others[count++] = label;
    }
  }
  return count;
}

/**
 * Where a segmented pixel lies on an edge between exactly two regions, the pixel's colour tells
 * how much of it each side covers (its place on the line between the two sides' colours), and
 * that is the share of its fine pixels each side gets: the ones the fine image shows nearest a
 * side go to it. Edges then sit where the anti-aliasing put them, to a fraction of a pixel
 * (the midpoint of a resampled ramp is off by up to a fifth of a pixel), and a line one pixel
 * wide stays one pixel wide.
 */
function preserveCoverage(segmentation: Segmentation, models: RegionModel[], source: Buffer, fine: Buffer, factor: number, out: Int32Array): void {
  const { width, height, labels, frame } = segmentation;
  const fineWidth = width * factor;
  const block = factor * factor;
  const scores = new Float64Array(block);
  const order = new Int32Array(block);
  const kept = new Uint8Array(block);
  const sorted = new Float64Array(block);
  const a: Colour = [0, 0, 0, 0];
  const b: Colour = [0, 0, 0, 0];
  const difference = [0, 0, 0, 0];
  const others = new Int32Array(8);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const here = labels[y * width + x] as number;
      const count = otherLabels(labels, width, height, x, y, others);
      if (count === 0) continue;
      const other = others[0] as number;
      const u = (x + 0.5 - frame.centreX) / frame.scale;
      const v = (y + 0.5 - frame.centreY) / frame.scale;
      if (count > 1) {
        // A line a pixel wide beside another (an outline and its highlight) keeps its pixels whole.
        const inLine = fineLinesAlong(labels, width, height, x, y, here) !== 'none';
        if (inLine && coveredWhole(segmentation, models, source, x, y, u, v, others, count)) for (let fy = y * factor; fy < (y + 1) * factor; fy++) out.fill(here, fy * fineWidth + x * factor, fy * fineWidth + (x + 1) * factor);
        continue;
      }
      modelColour(here < 0 ? undefined : models[here], u, v, a);
      modelColour(other < 0 ? undefined : models[other], u, v, b);
      const { length, contrast } = differenceOf(a, b, difference);
      if (contrast < COVERAGE_MIN_CONTRAST) continue;
      const covered = Math.max(0, Math.min(1, shareOf(source, (y * width + x) * 4, b, difference, length)));
      let k = 0;
      for (let fy = y * factor; fy < (y + 1) * factor; fy++) {
        for (let fx = x * factor; fx < (x + 1) * factor; fx++) scores[k++] = shareOf(fine, (fy * fineWidth + fx) * 4, b, difference, length);
      }
      const keep = Math.round(covered * block);
      const along = fineLinesAlong(labels, width, height, x, y, here);
      if (along === 'none') keepHighest(scores, keep, kept, sorted);
      else {
        // A line a pixel wide keeps a whole fine row (or column) along it, the one its fine pixels
        // show best first: picked pixel by pixel, a faint line's partly covered pixels gave one
        // fine pixel here and one there, diagonal neighbours that traced as specks and were lost
        // (a star's arms on a wallpaper). Its width may round up to that row, never down to none.
        const lineOf = (k: number) => (along === 'rows' ? Math.floor(k / factor) : k % factor);
        const lineScore = new Float64Array(factor);
        for (let k2 = 0; k2 < block; k2++) lineScore[lineOf(k2)] = (lineScore[lineOf(k2)] as number) + (scores[k2] as number);
        for (let k2 = 0; k2 < block; k2++) order[k2] = k2;
        order.sort((i, j) => (lineScore[lineOf(j)] as number) - (lineScore[lineOf(i)] as number) || (scores[j] as number) - (scores[i] as number));
        const lineKeep = Math.max(keep, factor);
        for (let rank = 0; rank < block; rank++) kept[order[rank] as number] = rank < lineKeep ? 1 : 0;
      }
      for (let k2 = 0; k2 < block; k2++) {
        const fx = x * factor + (k2 % factor);
        const fy = y * factor + Math.floor(k2 / factor);
        out[fy * fineWidth + fx] = kept[k2] === 1 ? here : other;
      }
    }
  }
}
