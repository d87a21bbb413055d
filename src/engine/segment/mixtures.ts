// Pass 1 of the segmentation: slivers that are the anti-aliasing of an edge between two regions.
import { centroidOf, evaluateModel, fitModel, meanOf, MOMENT_STRIDE, orderFor, pixelCount, type Colour, type Frame } from './moments.ts';
import { hueDistance, isThin, perimeters, TRANSPARENT_BELOW } from './measures.ts';
import { FRINGE_ALPHA, TRANSPARENT_MIXTURE_HUE } from './silhouette.ts';

/** Passes of dissolving (a sliver between slivers is reached once they are gone). */
export const MIXTURE_PASSES = 2;
/** How far (pixels) from a sliver the sides of its edge are looked for. */
const MIXTURE_REACH = 2;
/** Neighbours (by common boundary) weighed as the two sides of a mixture. */
const MIXTURE_CANDIDATES = 6;
/** Two neighbours this close in colour (sum of channel differences) have no edge between them to anti-alias. */
const MIXTURE_MIN_CONTRAST = 24;
/**
 * A dark dot's core (dotCores) is a side of the slivers around it when it is at least this many
 * times their size; any other thin region must be four times their size and 8 pixels.
 */
const CORE_SIDE_RATIO = 2;
/** A dot's core is at most this many pixels: larger thin regions are lines, whose rims are their own. */
const CORE_MAX_PIXELS = 16;
/** A dot's core is darker than every region it touches, and this much (luma, 0–255) darker than the lightest. */
const CORE_CONTRAST = 32;
/** A dot's core is opaque (mean alpha, 0–255). */
const CORE_MIN_ALPHA = 250;

/**
 * Pass 1. A thin region whose mean colour lies on the segment between the colours of two of
 * its neighbours (each taken from its own model at the thin region's centroid) is the
 * anti-aliasing of their common edge: each of its pixels joins the closer of the two.
 */
export function dissolveMixtures(
  labels: Int32Array,
  count: number,
  sums: Float64Array,
  colours: Buffer,
  width: number,
  height: number,
  frame: Frame,
): Int32Array {
  const perimeter = perimeters(labels, count, width, height);
  const thin = new Uint8Array(count);
  let thinCount = 0;
  for (let region = 0; region < count; region++) {
    if (isThin(sums, perimeter, region)) {
      thin[region] = 1;
      thinCount++;
    }
  }
  if (thinCount === 0) return labels;
  const core = dotCores(labels, count, sums, thin, width, height);
  // The pixels of each thin region, in one array (offsets per region).
  const start = new Int32Array(count + 1);
  for (const label of labels) if (thin[label]) start[label + 1] = (start[label + 1] as number) + 1;
  for (let region = 0; region < count; region++) start[region + 1] = (start[region + 1] as number) + (start[region] as number);
  const members = new Int32Array(start[count] as number);
  const filled = start.slice(0, count);
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i] as number;
    if (thin[label]) members[(filled[label] as number)++] = i;
  }
  const models = new Map<number, Float64Array>();
  const modelOf = (region: number): Float64Array => {
    let model = models.get(region);
    if (!model) {
      const offset = region * MOMENT_STRIDE;
      model = fitModel(sums, offset, Math.min(3, orderFor(pixelCount(sums, offset))) as 1 | 3);
      models.set(region, model);
    }
    return model;
  };
  /** For each dissolved region, the two regions its pixels go to (-1: stays). */
  const intoA = new Int32Array(count).fill(-1);
  const intoB = new Int32Array(count).fill(-1);
  let dissolved = 0;
  const colour: Colour = [0, 0, 0, 0];
  const sideLabel = new Int32Array(MIXTURE_CANDIDATES);
  const sideWeight = new Float64Array(MIXTURE_CANDIDATES);
  const sideColours = new Float64Array(MIXTURE_CANDIDATES * 4);
  const reach = MIXTURE_REACH;
  for (let region = 0; region < count; region++) {
    if (!thin[region]) continue;
    // The sides of the edge: regions that are not slivers themselves, within MIXTURE_REACH
    // pixels of the sliver (an anti-aliased edge can be several pixels wide), nearer ones weighing more.
    let found = 0;
    const size = pixelCount(sums, region * MOMENT_STRIDE);
    const opaque = (meanOf(sums, region * MOMENT_STRIDE)[3] as number) >= CORE_MIN_ALPHA;
    for (let k = start[region] as number; k < (start[region + 1] as number); k++) {
      const i = members[k] as number;
      const x = i % width;
      const y = (i - x) / width;
      for (let dy = -reach; dy <= reach; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= height) continue;
        for (let dx = -reach; dx <= reach; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= width) continue;
          const other = labels[ny * width + nx] as number;
          // A thin region is a side only when much larger than the sliver (a line or a letter's
          // stroke), or when it is the dark core of a dot a few pixels across (an eye, whose grey
          // rim is the anti-aliasing between it and the face, not a shape of its own).
          if (other === region) continue;
          if (thin[other]) {
            const otherSize = pixelCount(sums, other * MOMENT_STRIDE);
            if (otherSize < Math.max(8, 4 * size) && !(core[other] && opaque && otherSize >= CORE_SIDE_RATIO * size)) continue;
          }
          const weight = 1 / (dx * dx + dy * dy);
          let at = 0;
          while (at < found && sideLabel[at] !== other) at++;
          if (at < found) sideWeight[at] = (sideWeight[at] as number) + weight;
          else if (found < MIXTURE_CANDIDATES) {
            sideLabel[found] = other;
            sideWeight[found++] = weight;
          }
        }
      }
    }
    if (found < 2) continue;
    const offset = region * MOMENT_STRIDE;
    const own = meanOf(sums, offset);
    const [u, v] = centroidOf(sums, offset);
    for (let k = 0; k < found; k++) {
      evaluateModel(modelOf(sideLabel[k] as number), u, v, colour);
      for (let c = 0; c < 4; c++) sideColours[k * 4 + c] = colour[c] as number;
    }
    let bestScore = Infinity;
    for (let i = 0; i < found; i++) {
      for (let j = i + 1; j < found; j++) {
        // Where the region's colour falls on the segment between the two sides' colours.
        let dot = 0;
        let length = 0;
        let contrast = 0;
        for (let c = 0; c < 4; c++) {
          const a = sideColours[i * 4 + c] as number;
          const b = sideColours[j * 4 + c] as number;
          dot += ((own[c] as number) - b) * (a - b);
          length += (a - b) * (a - b);
          contrast += Math.abs(a - b);
        }
        if (contrast < MIXTURE_MIN_CONTRAST) continue;
        const t = Math.max(0, Math.min(1, dot / length));
        let residual = 0;
        for (let c = 0; c < 4; c++) {
          const a = sideColours[i * 4 + c] as number;
          const b = sideColours[j * 4 + c] as number;
          residual += Math.abs((own[c] as number) - (b + t * (a - b)));
        }
        if (residual > Math.max(12, 0.15 * contrast)) continue;
        // Against transparency a pixel's coverage changes its alpha, not its hue: an opaque rim
        // whose own colour differs from the shape's is a line of its own (a frame), not anti-aliasing.
        // (Rims are made opaque by opaqueSilhouette; translucent slivers are soft edges and shadows.)
        const clearI = (sideColours[i * 4 + 3] as number) < TRANSPARENT_BELOW;
        const clearJ = (sideColours[j * 4 + 3] as number) < TRANSPARENT_BELOW;
        if (clearI !== clearJ && (own[3] as number) >= FRINGE_ALPHA) {
          const at = (clearI ? j : i) * 4;
          const shape: Colour = [sideColours[at] as number, sideColours[at + 1] as number, sideColours[at + 2] as number, sideColours[at + 3] as number];
          if (hueDistance(own, shape) > TRANSPARENT_MIXTURE_HUE) continue;
        }
        // Of the pairs that explain it, the one closest around it.
        const score = residual / Math.sqrt((sideWeight[i] as number) * (sideWeight[j] as number));
        if (score < bestScore) {
          bestScore = score;
          intoA[region] = sideLabel[i] as number;
          intoB[region] = sideLabel[j] as number;
        }
      }
    }
    if (intoA[region] !== -1) dissolved++;
  }
  if (dissolved === 0) return labels;
  const out = Int32Array.from(labels);
  const a: Colour = [0, 0, 0, 0];
  const b: Colour = [0, 0, 0, 0];
  for (let region = 0; region < count; region++) {
    const first = intoA[region] as number;
    if (first === -1) continue;
    const second = intoB[region] as number;
    for (let k = start[region] as number; k < (start[region + 1] as number); k++) {
      const i = members[k] as number;
      const u = ((i % width) + 0.5 - frame.centreX) / frame.scale;
      const v = (Math.floor(i / width) + 0.5 - frame.centreY) / frame.scale;
      evaluateModel(modelOf(first), u, v, a);
      evaluateModel(modelOf(second), u, v, b);
      let towardsA = 0;
      let towardsB = 0;
      for (let c = 0; c < 4; c++) {
        const value = colours[i * 4 + c] as number;
        towardsA += Math.abs(value - (a[c] as number));
        towardsB += Math.abs(value - (b[c] as number));
      }
      out[i] = towardsA <= towardsB ? first : second;
    }
  }
  return out;
}

/**
 * Thin regions of at most CORE_MAX_PIXELS darker than every region they touch: the core of a
 * dark dot (an emoji's eye two pixels across), not the anti-aliasing between two others, which lies
 * between its sides. Light ones are left out: a small highlight's rim is mostly its glow, and
 * taking it as anti-aliasing cost the tune icons that have them (docs/decisions.md).
 */
function dotCores(labels: Int32Array, count: number, sums: Float64Array, thin: Uint8Array, width: number, height: number): Uint8Array {
  const luma = new Float64Array(count);
  const candidate = new Uint8Array(count);
  for (let region = 0; region < count; region++) {
    const [r, g, b, a] = meanOf(sums, region * MOMENT_STRIDE);
    // Premultiplied colours, seen over white as a shape on transparency is.
    luma[region] = 0.299 * r + 0.587 * g + 0.114 * b + (255 - a);
    // Opaque cores, for opaque slivers only: against transparency a rim is coverage, weighed apart.
    candidate[region] = thin[region] && a >= CORE_MIN_ALPHA && pixelCount(sums, region * MOMENT_STRIDE) <= CORE_MAX_PIXELS ? 1 : 0;
  }
  const darkest = new Uint8Array(count).fill(1);
  const contrast = new Float64Array(count);
  const compare = (here: number, other: number): void => {
    if (here < 0 || other < 0 || here === other || !candidate[here]) return;
    const difference = (luma[other] as number) - (luma[here] as number);
    if (difference < 0) darkest[here] = 0;
    contrast[here] = Math.max(contrast[here] as number, difference);
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const here = labels[i] as number;
      if (x + 1 < width) {
        compare(here, labels[i + 1] as number);
        compare(labels[i + 1] as number, here);
      }
      if (y + 1 < height) {
        compare(here, labels[i + width] as number);
        compare(labels[i + width] as number, here);
      }
    }
  }
  return Uint8Array.from({ length: count }, (_, region) => (candidate[region] && darkest[region] && (contrast[region] as number) >= CORE_CONTRAST ? 1 : 0));
}
