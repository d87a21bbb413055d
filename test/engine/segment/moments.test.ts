// Moment sums and the colour models fitted from them: sums add like the pixel sets they
// summarise, the models reproduce fields of their own order exactly, and the error of any model
// on any region follows from the sums alone, even over a large frame.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addPixel,
  addSums,
  centroidOf,
  evaluateModel,
  fitModel,
  flatMergeExcess,
  frameOf,
  meanOf,
  MOMENT_STRIDE,
  orderFor,
  pixelCount,
  rmsError,
  squaredError,
  type Colour,
  type Frame,
} from '../../../src/engine/segment/moments.ts';
import { randomSequence } from '../fixtures.ts';

type Field = (x: number, y: number) => Colour;

/** Sums of the pixels of a rectangle (x0 ≤ x < x1, y0 ≤ y < y1) coloured by a field of pixel centres. */
function sumsOf(frame: Frame, x0: number, y0: number, x1: number, y1: number, field: Field): Float64Array {
  const sums = new Float64Array(MOMENT_STRIDE);
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const [r, g, b, a] = field(x + 0.5, y + 0.5);
      addPixel(sums, 0, frame, x, y, r, g, b, a);
    }
  }
  return sums;
}

/** The largest difference, over the rectangle's pixel centres and the four channels, between a model and a field. */
function worstMiss(model: Float64Array, frame: Frame, x0: number, y0: number, x1: number, y1: number, field: Field): number {
  const colour: Colour = [0, 0, 0, 0];
  let worst = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const expected = field(x + 0.5, y + 0.5);
      evaluateModel(model, (x + 0.5 - frame.centreX) / frame.scale, (y + 0.5 - frame.centreY) / frame.scale, colour);
      for (let c = 0; c < 4; c++) worst = Math.max(worst, Math.abs((colour[c] as number) - (expected[c] as number)));
    }
  }
  return worst;
}

const planar: Field = (x, y) => [40 + 3 * x - 2 * y, 200 - 1.5 * x, 90 + 2.5 * y, 255];
const quadratic: Field = (x, y) => {
  const d2 = (x - 30) ** 2 + (y - 22) ** 2;
  return [250 - 0.12 * d2, 60 + 0.05 * (x - 30) * (y - 22) + x, 30 + 0.08 * (y - 20) ** 2, 255 - 0.06 * d2];
};

test('sums of two pixel sets added, or merged with addSums, are the sums of their union', () => {
  const frame = frameOf(50, 40);
  const random = randomSequence(7);
  const first = new Float64Array(MOMENT_STRIDE * 2);
  const second = new Float64Array(MOMENT_STRIDE);
  const union = new Float64Array(MOMENT_STRIDE);
  for (let k = 0; k < 500; k++) {
    const x = Math.floor(random() * 50);
    const y = Math.floor(random() * 40);
    const colour = [random() * 255, random() * 255, random() * 255, random() * 255] as const;
    // Into the second slot of `first` (an offset, as the segmentation keeps one slot per region) or into `second`.
    if (k % 3 === 0) addPixel(second, 0, frame, x, y, ...colour);
    else addPixel(first, MOMENT_STRIDE, frame, x, y, ...colour);
    addPixel(union, 0, frame, x, y, ...colour);
  }
  assert.ok(first.subarray(0, MOMENT_STRIDE).every((value) => value === 0), 'the other slot is untouched');
  addSums(first, MOMENT_STRIDE, second, 0);
  for (let k = 0; k < MOMENT_STRIDE; k++) {
    const expected = union[k] as number;
    assert.ok(Math.abs((first[MOMENT_STRIDE + k] as number) - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `sum ${k}`);
  }
  assert.equal(pixelCount(first, MOMENT_STRIDE), 500);
});

test('the mean is the mean colour and the centroid the mean pixel centre, in the normalised frame', () => {
  const frame = frameOf(80, 60);
  assert.deepEqual(frame, { centreX: 40, centreY: 30, scale: 40 });
  const sums = new Float64Array(MOMENT_STRIDE);
  // Three pixels: centres (10.5, 5.5), (12.5, 5.5), (11.5, 8.5).
  addPixel(sums, 0, frame, 10, 5, 30, 60, 90, 255);
  addPixel(sums, 0, frame, 12, 5, 60, 90, 120, 255);
  addPixel(sums, 0, frame, 11, 8, 90, 0, 60, 0);
  assert.deepEqual(meanOf(sums, 0), [60, 50, 90, 170]);
  const [u, v] = centroidOf(sums, 0);
  assert.ok(Math.abs(u * frame.scale + frame.centreX - 11.5) < 1e-12, `centroid x ${u * frame.scale + frame.centreX}`);
  assert.ok(Math.abs(v * frame.scale + frame.centreY - 6.5) < 1e-12, `centroid y ${v * frame.scale + frame.centreY}`);
  // An empty region has a zero mean rather than NaN.
  assert.deepEqual(meanOf(new Float64Array(MOMENT_STRIDE), 0), [0, 0, 0, 0]);
});

test('a flat region is fitted by its colour with no error, at every order', () => {
  const frame = frameOf(64, 64);
  const sums = sumsOf(frame, 5, 9, 25, 21, () => [200, 40, 10, 255]);
  for (const order of [1, 3, 6] as const) {
    const model = fitModel(sums, 0, order);
    assert.ok(worstMiss(model, frame, 5, 9, 25, 21, () => [200, 40, 10, 255]) < 1e-3, `order ${order}`);
    assert.ok(squaredError(sums, 0, model) < 1e-3, `order ${order}: squared error ${squaredError(sums, 0, model)}`);
  }
});

test('a linear model reproduces a planar field and a quadratic one a quadratic field, with no error left', () => {
  const frame = frameOf(64, 48);
  const linear = sumsOf(frame, 10, 8, 40, 30, planar);
  const plane = fitModel(linear, 0, 3);
  assert.ok(worstMiss(plane, frame, 10, 8, 40, 30, planar) < 0.01, `planar miss ${worstMiss(plane, frame, 10, 8, 40, 30, planar)}`);
  assert.ok(rmsError(linear, 0, plane) < 0.01, `planar RMS ${rmsError(linear, 0, plane)}`);
  // A flat model of the same ramp leaves the ramp's spread: 3 and 2.5 levels per pixel over 30 and 22 pixels.
  assert.ok(rmsError(linear, 0, fitModel(linear, 0, 1)) > 15);

  const curved = sumsOf(frame, 12, 6, 50, 40, quadratic);
  const quadric = fitModel(curved, 0, 6);
  assert.ok(worstMiss(quadric, frame, 12, 6, 50, 40, quadratic) < 0.01, `quadratic miss ${worstMiss(quadric, frame, 12, 6, 50, 40, quadratic)}`);
  assert.ok(squaredError(curved, 0, quadric) / pixelCount(curved, 0) < 1e-4, `quadratic squared error ${squaredError(curved, 0, quadric)}`);
  // A plane cannot follow the bowl.
  assert.ok(rmsError(curved, 0, fitModel(curved, 0, 3)) > 5, `plane on the bowl: RMS ${rmsError(curved, 0, fitModel(curved, 0, 3))}`);
});

test('squaredError of any model on any region is the sum of squared differences over its pixels', () => {
  const frame = frameOf(40, 40);
  const random = randomSequence(3);
  const noisy: Field = (x, y) => [100 + 60 * random(), 20 + x + 40 * random(), 200 - y, 255 * random()];
  // The field is random: keep the pixels to compare against.
  const pixels: [number, number, Colour][] = [];
  const sums = new Float64Array(MOMENT_STRIDE);
  for (let y = 4; y < 20; y++) {
    for (let x = 6; x < 30; x++) {
      const colour = noisy(x + 0.5, y + 0.5);
      pixels.push([x, y, colour]);
      addPixel(sums, 0, frame, x, y, ...colour);
    }
  }
  // A neighbour's model, not the region's own.
  const other = fitModel(sumsOf(frame, 20, 20, 36, 36, quadratic), 0, 6);
  let direct = 0;
  const colour: Colour = [0, 0, 0, 0];
  for (const [x, y, expected] of pixels) {
    evaluateModel(other, (x + 0.5 - frame.centreX) / frame.scale, (y + 0.5 - frame.centreY) / frame.scale, colour);
    for (let c = 0; c < 4; c++) direct += ((colour[c] as number) - (expected[c] as number)) ** 2;
  }
  const fromSums = squaredError(sums, 0, other);
  assert.ok(Math.abs(fromSums - direct) <= 1e-7 * direct, `from sums ${fromSums}, pixel by pixel ${direct}`);
  assert.ok(Math.abs(rmsError(sums, 0, other) - Math.sqrt(direct / (4 * pixels.length))) < 1e-6);
});

test('flatMergeExcess is zero for regions of one colour and n·|μ − μ_joint|² otherwise', () => {
  const frame = frameOf(60, 30);
  const sums = new Float64Array(MOMENT_STRIDE * 3);
  const fill = (slot: number, x0: number, x1: number, colour: Colour) => {
    for (let y = 0; y < 30; y++) for (let x = x0; x < x1; x++) addPixel(sums, slot * MOMENT_STRIDE, frame, x, y, ...colour);
  };
  fill(0, 0, 20, [120, 80, 40, 255]); // 600 pixels
  fill(1, 20, 30, [120, 80, 40, 255]); // 300 pixels, the same colour
  fill(2, 30, 60, [150, 80, 0, 255]); // 900 pixels, 30 and 40 levels away
  const [same0, same1] = flatMergeExcess(sums, 0, MOMENT_STRIDE);
  assert.ok(Math.abs(same0) < 1e-9 && Math.abs(same1) < 1e-9, `identical colours: ${same0}, ${same1}`);
  // Joint mean of 600 and 900 pixels: 0.4 and 0.6 of the way; |Δ|² = 30² + 40² = 2500.
  const [excessA, excessB] = flatMergeExcess(sums, 0, 2 * MOMENT_STRIDE);
  assert.ok(Math.abs(excessA - 600 * 0.6 ** 2 * 2500) < 1e-6, `excess of the first: ${excessA}`);
  assert.ok(Math.abs(excessB - 900 * 0.4 ** 2 * 2500) < 1e-6, `excess of the second: ${excessB}`);
  // The same excess follows from fitting the flat model of the union and measuring each part.
  const joint = new Float64Array(MOMENT_STRIDE);
  addSums(joint, 0, sums, 0);
  addSums(joint, 0, sums, 2 * MOMENT_STRIDE);
  const model = fitModel(joint, 0, 1);
  const ownA = squaredError(sums, 0, fitModel(sums, 0, 1));
  assert.ok(Math.abs(squaredError(sums, 0, model) - ownA - excessA) < 1e-3 * excessA);
});

test('the model order grows with the region: flat under 12 pixels, linear under 48, then quadratic', () => {
  assert.deepEqual([1, 11, 12, 47, 48, 10_000].map(orderFor), [1, 1, 3, 3, 6, 6]);
});

test('a line one pixel tall gets the ramp along it and no wild coefficients across it', () => {
  // The y² and xy terms are undetermined on one row; the ridge keeps them near zero.
  const frame = frameOf(100, 100);
  const ramp: Field = (x) => [50 + 2 * x, 100, 150, 255];
  const sums = sumsOf(frame, 10, 40, 90, 41, ramp);
  const model = fitModel(sums, 0, 6);
  assert.ok(worstMiss(model, frame, 10, 40, 90, 41, ramp) < 0.5, `along the line: ${worstMiss(model, frame, 10, 40, 90, 41, ramp)}`);
  // One pixel off the line the model still gives about the line's colour.
  assert.ok(worstMiss(model, frame, 10, 41, 90, 42, ramp) < 8, `beside the line: ${worstMiss(model, frame, 10, 41, 90, 42, ramp)}`);
  for (const value of model) assert.ok(Number.isFinite(value) && Math.abs(value) < 1000, `coefficient ${value}`);
  // A single pixel: every order falls back to its colour.
  const single = sumsOf(frame, 3, 3, 4, 4, () => [9, 8, 7, 255]);
  assert.ok(worstMiss(fitModel(single, 0, 6), frame, 3, 3, 4, 4, () => [9, 8, 7, 255]) < 1e-6);
});

test('fits stay exact over a 2000 × 2000 frame: the whole frame and a corner block', () => {
  const size = 2000;
  const frame = frameOf(size, size);
  const field: Field = (x, y) => {
    const u = x / size;
    const v = y / size;
    return [30 + 200 * u * u, 20 + 150 * u * v + 40 * v, 240 - 180 * v * v, 255 - 100 * u];
  };
  const whole = sumsOf(frame, 0, 0, size, size, field);
  assert.equal(pixelCount(whole, 0), size * size);
  const model = fitModel(whole, 0, 6);
  const rms = rmsError(whole, 0, model);
  assert.ok(rms < 0.01, `RMS over 4 million pixels: ${rms}`);
  // Spot checks instead of every pixel: the corners and the centre.
  const colour: Colour = [0, 0, 0, 0];
  for (const [x, y] of [[0, 0], [size - 1, 0], [0, size - 1], [size - 1, size - 1], [1000, 1000]] as const) {
    evaluateModel(model, (x + 0.5 - frame.centreX) / frame.scale, (y + 0.5 - frame.centreY) / frame.scale, colour);
    const expected = field(x + 0.5, y + 0.5);
    for (let c = 0; c < 4; c++) assert.ok(Math.abs((colour[c] as number) - (expected[c] as number)) < 0.05, `(${x}, ${y}) channel ${c}: ${colour[c]} for ${expected[c]}`);
  }
  // A 200-pixel block in a corner: far from the frame's centre, the sums are dominated by the offset.
  const corner: Field = (x, y) => [10 + 0.9 * (x - 1790), 250 - 0.7 * (y - 1790), 128, 255];
  const block = sumsOf(frame, 1790, 1790, 1990, 1990, corner);
  const plane = fitModel(block, 0, 3);
  assert.ok(worstMiss(plane, frame, 1790, 1790, 1990, 1990, corner) < 0.1, `corner block miss ${worstMiss(plane, frame, 1790, 1790, 1990, 1990, corner)}`);
  assert.ok(rmsError(block, 0, plane) < 0.05, `corner block RMS ${rmsError(block, 0, plane)}`);
});
