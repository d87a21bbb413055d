// Colour models fitted to regions of pixels from moment sums: a region is summarised by a fixed
// number of sums, two regions merge by adding them, and the fit of any model to any region (its
// own or a neighbour's) follows from the sums alone. That makes "do these two regions form one
// smooth area?" a constant-time question, whatever their size.
//
// The model is a polynomial in the pixel position, per colour channel: flat (1 term), linear
// (3 terms: a plane, i.e. a linear gradient) or quadratic (6 terms: also radial and one-bump
// profiles). Positions are normalised to about [-1, 1] over the image. Colours are premultiplied
// RGBA, so transparency is a colour like any other: (0, 0, 0, 0).

/** Colour channels modelled: premultiplied red, green, blue, and alpha. */
export const CHANNELS = 4;
export const TERMS = 6;
const CHANNEL_SUMS = 15;
const SQUARE_SUMS = CHANNEL_SUMS + CHANNELS * TERMS;
/** Sums kept per region: 15 monomials x^a y^b (a + b ≤ 4), 4 channels × 6 basis terms, 4 squares. */
export const MOMENT_STRIDE = SQUARE_SUMS + CHANNELS;

/** Index of x^a·y^b among the monomial sums. */
const MONOMIAL: number[][] = [
  [0, 2, 5, 9, 14],
  [1, 4, 8, 13],
  [3, 7, 12],
  [6, 11],
  [10],
];

/** Exponents (a, b) of the basis terms 1, x, y, x², xy, y². */
const BASIS: readonly (readonly [number, number])[] = [
  [0, 0],
  [1, 0],
  [0, 1],
  [2, 0],
  [1, 1],
  [0, 2],
];

/** Monomial index of the product of basis terms i and j. */
const PRODUCT = BASIS.map(([ai, bi]) => BASIS.map(([aj, bj]) => (MONOMIAL[ai + aj] as number[])[bi + bj] as number));

export type ModelOrder = 1 | 3 | 6;

/** Scratch space of fitModel: it runs hundreds of thousands of times per image. */
const GRAM_SCRATCH = new Float64Array(TERMS * TERMS);
const RHS_SCRATCH = new Float64Array(TERMS);

/** Pixel coordinates onto the normalised frame of the moments. */
export interface Frame {
  centreX: number;
  centreY: number;
  /** Pixels per normalised unit. */
  scale: number;
}

export function frameOf(width: number, height: number): Frame {
  return { centreX: width / 2, centreY: height / 2, scale: Math.max(1, Math.max(width, height) / 2) };
}

/** Adds one pixel (centre at x + 0.5, y + 0.5) with premultiplied colour r, g, b, a to the sums at `offset`. */
export function addPixel(sums: Float64Array, offset: number, frame: Frame, x: number, y: number, r: number, g: number, b: number, a: number): void {
  const u = (x + 0.5 - frame.centreX) / frame.scale;
  const v = (y + 0.5 - frame.centreY) / frame.scale;
  const uu = u * u;
  const uv = u * v;
  const vv = v * v;
  const o = offset;
  sums[o] = (sums[o] as number) + 1;
  sums[o + 1] = (sums[o + 1] as number) + u;
  sums[o + 2] = (sums[o + 2] as number) + v;
  sums[o + 3] = (sums[o + 3] as number) + uu;
  sums[o + 4] = (sums[o + 4] as number) + uv;
  sums[o + 5] = (sums[o + 5] as number) + vv;
  sums[o + 6] = (sums[o + 6] as number) + uu * u;
  sums[o + 7] = (sums[o + 7] as number) + uu * v;
  sums[o + 8] = (sums[o + 8] as number) + u * vv;
  sums[o + 9] = (sums[o + 9] as number) + vv * v;
  sums[o + 10] = (sums[o + 10] as number) + uu * uu;
  sums[o + 11] = (sums[o + 11] as number) + uu * uv;
  sums[o + 12] = (sums[o + 12] as number) + uu * vv;
  sums[o + 13] = (sums[o + 13] as number) + uv * vv;
  sums[o + 14] = (sums[o + 14] as number) + vv * vv;
  let c = o + CHANNEL_SUMS;
  for (const value of [r, g, b, a]) {
    sums[c] = (sums[c] as number) + value;
    sums[c + 1] = (sums[c + 1] as number) + value * u;
    sums[c + 2] = (sums[c + 2] as number) + value * v;
    sums[c + 3] = (sums[c + 3] as number) + value * uu;
    sums[c + 4] = (sums[c + 4] as number) + value * uv;
    sums[c + 5] = (sums[c + 5] as number) + value * vv;
    c += TERMS;
  }
  sums[o + SQUARE_SUMS] = (sums[o + SQUARE_SUMS] as number) + r * r;
  sums[o + SQUARE_SUMS + 1] = (sums[o + SQUARE_SUMS + 1] as number) + g * g;
  sums[o + SQUARE_SUMS + 2] = (sums[o + SQUARE_SUMS + 2] as number) + b * b;
  sums[o + SQUARE_SUMS + 3] = (sums[o + SQUARE_SUMS + 3] as number) + a * a;
}

/** target += source, for the sums of two regions (or a scratch copy). */
export function addSums(target: Float64Array, targetOffset: number, source: Float64Array, sourceOffset: number): void {
  for (let k = 0; k < MOMENT_STRIDE; k++) {
    target[targetOffset + k] = (target[targetOffset + k] as number) + (source[sourceOffset + k] as number);
  }
}

export function pixelCount(sums: Float64Array, offset: number): number {
  return sums[offset] as number;
}

/** Mean premultiplied colour of a region. */
export function meanOf(sums: Float64Array, offset: number): Colour {
  const n = Math.max(1, sums[offset] as number);
  return [
    (sums[offset + CHANNEL_SUMS] as number) / n,
    (sums[offset + CHANNEL_SUMS + TERMS] as number) / n,
    (sums[offset + CHANNEL_SUMS + 2 * TERMS] as number) / n,
    (sums[offset + CHANNEL_SUMS + 3 * TERMS] as number) / n,
  ];
}

/** A premultiplied RGBA colour, 0–255 per channel. */
export type Colour = [number, number, number, number];

/**
 * How much worse each of two regions is explained by the mean colour of both together than by
 * its own mean: n_a · |μ_a − μ|², where μ is the joint mean. The cheap, flat case of a merge test.
 */
export function flatMergeExcess(sums: Float64Array, a: number, b: number): [number, number] {
  const na = sums[a] as number;
  const nb = sums[b] as number;
  let distance = 0;
  for (let c = 0; c < CHANNELS; c++) {
    const offset = CHANNEL_SUMS + c * TERMS;
    const difference = (sums[a + offset] as number) / na - (sums[b + offset] as number) / nb;
    distance += difference * difference;
  }
  const total = na + nb;
  return [na * (nb / total) ** 2 * distance, nb * (na / total) ** 2 * distance];
}

/** Centroid of a region in normalised coordinates. */
export function centroidOf(sums: Float64Array, offset: number): [number, number] {
  const n = Math.max(1, sums[offset] as number);
  return [(sums[offset + 1] as number) / n, (sums[offset + 2] as number) / n];
}

/** The largest order a region of n pixels can support. */
export function orderFor(n: number): ModelOrder {
  if (n >= 48) return 6;
  if (n >= 12) return 3;
  return 1;
}

/**
 * Coefficients (TERMS per channel, unused terms 0) of the least-squares model of this order,
 * with a small ridge on the non-constant terms so that thin or tiny regions, whose positions do
 * not span the basis, get the flattest model that fits instead of wild coefficients.
 */
export function fitModel(sums: Float64Array, offset: number, order: ModelOrder, out = new Float64Array(CHANNELS * TERMS)): Float64Array {
  out.fill(0);
  const n = sums[offset] as number;
  if (n <= 0) return out;
  if (order === 1) {
    for (let c = 0; c < CHANNELS; c++) out[c * TERMS] = (sums[offset + CHANNEL_SUMS + c * TERMS] as number) / n;
    return out;
  }
  const size = order;
  const gram = GRAM_SCRATCH;
  for (let i = 0; i < size; i++) {
    for (let j = 0; j < size; j++) gram[i * size + j] = sums[offset + ((PRODUCT[i] as number[])[j] as number)] as number;
  }
  const ridge = n * 1e-6;
  for (let i = 1; i < size; i++) gram[i * size + i] = (gram[i * size + i] as number) + ridge;
  if (!choleskyInPlace(gram, size)) return fitModel(sums, offset, order === 6 ? 3 : 1, out);
  const rhs = RHS_SCRATCH;
  for (let c = 0; c < CHANNELS; c++) {
    for (let i = 0; i < size; i++) rhs[i] = sums[offset + CHANNEL_SUMS + c * TERMS + i] as number;
    choleskySolve(gram, size, rhs);
    for (let i = 0; i < size; i++) out[c * TERMS + i] = rhs[i] as number;
  }
  return out;
}

/** Sum of squared colour errors of a region's pixels under a model (any model, not only its own). */
export function squaredError(sums: Float64Array, offset: number, model: Float64Array): number {
  let total = 0;
  for (let c = 0; c < CHANNELS; c++) {
    const base = c * TERMS;
    let linear = 0;
    let quadratic = 0;
    for (let i = 0; i < TERMS; i++) {
      const ti = model[base + i] as number;
      if (ti === 0) continue;
      linear += ti * (sums[offset + CHANNEL_SUMS + base + i] as number);
      const row = PRODUCT[i] as number[];
      for (let j = 0; j < TERMS; j++) {
        const tj = model[base + j] as number;
        if (tj !== 0) quadratic += ti * tj * (sums[offset + (row[j] as number)] as number);
      }
    }
    total += (sums[offset + SQUARE_SUMS + c] as number) - 2 * linear + quadratic;
  }
  return Math.max(0, total);
}

/** Root-mean-square error per channel of a region under a model. */
export function rmsError(sums: Float64Array, offset: number, model: Float64Array): number {
  const n = sums[offset] as number;
  return n > 0 ? Math.sqrt(squaredError(sums, offset, model) / (CHANNELS * n)) : 0;
}

/** The model's colour at a normalised position. */
export function evaluateModel(model: Float64Array, u: number, v: number, out: Colour): Colour {
  const uu = u * u;
  const uv = u * v;
  const vv = v * v;
  for (let c = 0; c < CHANNELS; c++) {
    const o = c * TERMS;
    out[c] =
      (model[o] as number) +
      (model[o + 1] as number) * u +
      (model[o + 2] as number) * v +
      (model[o + 3] as number) * uu +
      (model[o + 4] as number) * uv +
      (model[o + 5] as number) * vv;
  }
  return out;
}

function choleskyInPlace(matrix: Float64Array, size: number): boolean {
  for (let j = 0; j < size; j++) {
    let diagonal = matrix[j * size + j] as number;
    for (let k = 0; k < j; k++) diagonal -= (matrix[j * size + k] as number) ** 2;
    if (!(diagonal > 1e-12)) return false;
    const root = Math.sqrt(diagonal);
    matrix[j * size + j] = root;
    for (let i = j + 1; i < size; i++) {
      let value = matrix[i * size + j] as number;
      for (let k = 0; k < j; k++) value -= (matrix[i * size + k] as number) * (matrix[j * size + k] as number);
      matrix[i * size + j] = value / root;
    }
  }
  return true;
}

function choleskySolve(lower: Float64Array, size: number, rhs: Float64Array): void {
  for (let i = 0; i < size; i++) {
    let value = rhs[i] as number;
    for (let k = 0; k < i; k++) value -= (lower[i * size + k] as number) * (rhs[k] as number);
    rhs[i] = value / (lower[i * size + i] as number);
  }
  for (let i = size - 1; i >= 0; i--) {
    let value = rhs[i] as number;
    for (let k = i + 1; k < size; k++) value -= (lower[k * size + i] as number) * (rhs[k] as number);
    rhs[i] = value / (lower[i * size + i] as number);
  }
}
