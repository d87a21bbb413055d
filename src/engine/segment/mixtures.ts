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
          // A thin region is a side only when much larger than the sliver: a line or a letter's stroke.
          if (other === region || (thin[other] && pixelCount(sums, other * MOMENT_STRIDE) < Math.max(8, 4 * size))) continue;
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
