// A photograph's bands of flat colour shaded by their own pixels: which shape shows where is read
// from the shapes themselves, large bands of a ramp become gradients that meet their neighbours
// at about the same colour, and flat areas, small shapes and specks keep their flat colour.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PathCommand, type Paint, type Rgb, type TracedShape } from '../../../src/engine/geometry.ts';
import { MIN_SHADED_PIXELS, sameColourAreas, shadeLargeShapes, visibleShapes } from '../../../src/engine/paint/shading.ts';
import { randomSequence } from '../fixtures.ts';

const SIZE = 96;
const BAND = 24;

function rectangle(x0: number, y0: number, x1: number, y1: number, color: Rgb): TracedShape {
  return {
    fill: { kind: 'flat', color },
    opacity: 1,
    paths: [{ commands: [PathCommand.move, PathCommand.line, PathCommand.line, PathCommand.line, PathCommand.close], coords: [x0, y0, x1, y0, x1, y1, x0, y1] }],
  };
}

/** A grey ramp down the image (`slope` levels per pixel) under ±3 levels of grain, as a photograph's sky. */
function noisyRamp(slope = 1): { rgba: Buffer; width: number; height: number } {
  const random = randomSequence(7);
  const rgba = Buffer.alloc(SIZE * SIZE * 4);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const value = Math.round(60 + slope * y + (random() - 0.5) * 6);
      rgba.set([value, value, value, 255], (y * SIZE + x) * 4);
    }
  }
  return { rgba, width: SIZE, height: SIZE };
}

/** Stacked bands as the tracer draws them: each starts at its band and reaches to the bottom, under the next. */
function stackedBands(): TracedShape[] {
  return [0, 1, 2, 3].map((band) => {
    const mean = Math.round(60 + band * BAND + BAND / 2 - 0.5);
    return rectangle(0, band * BAND, SIZE, SIZE, { r: mean, g: mean, b: mean });
  });
}

/** The grey a paint shows at a point (SVG's linear gradient, padded beyond its end stops). */
function greyAt(paint: Paint, x: number, y: number): number {
  if (paint.kind === 'flat') return paint.color.r;
  assert.equal(paint.kind, 'linear');
  if (paint.kind !== 'linear') return NaN;
  const dx = paint.x2 - paint.x1;
  const dy = paint.y2 - paint.y1;
  const t = ((x - paint.x1) * dx + (y - paint.y1) * dy) / (dx * dx + dy * dy);
  const stops = paint.stops;
  if (t <= (stops[0] as (typeof stops)[0]).offset) return (stops[0] as (typeof stops)[0]).color.r;
  for (let k = 0; k + 1 < stops.length; k++) {
    const a = stops[k] as (typeof stops)[0];
    const b = stops[k + 1] as (typeof stops)[0];
    if (t <= b.offset) return a.color.r + ((t - a.offset) / (b.offset - a.offset)) * (b.color.r - a.color.r);
  }
  return (stops[stops.length - 1] as (typeof stops)[0]).color.r;
}

test('visibleShapes: each pixel belongs to the topmost shape drawn over it, and to none outside every shape', () => {
  const shapes = [rectangle(0, 0, 40, 40, { r: 10, g: 10, b: 10 }), rectangle(10, 10, 30, 30, { r: 200, g: 200, b: 200 })];
  const owner = visibleShapes(shapes, 48, 48);
  assert.equal(owner[5 * 48 + 5], 0);
  assert.equal(owner[20 * 48 + 20], 1);
  assert.equal(owner[20 * 48 + 35], 0);
  assert.equal(owner[45 * 48 + 45], -1);
  // Counts: the lower shape shows its frame only.
  const shown = [0, 0];
  for (const index of owner) if (index >= 0) shown[index] = (shown[index] as number) + 1;
  assert.deepEqual(shown, [40 * 40 - 20 * 20, 20 * 20]);
});

test('shadeLargeShapes: the bands of a grainy ramp become gradients down the ramp that meet at their edges', async () => {
  const shapes = stackedBands();
  const shaded = await shadeLargeShapes(shapes, noisyRamp(), SIZE, SIZE);
  assert.equal(shaded, 4);
  for (const [band, shape] of shapes.entries()) {
    const fill = shape.fill;
    assert.equal(fill.kind, 'linear', `band ${band}`);
    if (fill.kind !== 'linear') continue;
    // Along the ramp, not across it.
    assert.ok(Math.abs(fill.y2 - fill.y1) > 10 * Math.abs(fill.x2 - fill.x1), `band ${band}: axis (${fill.x2 - fill.x1}, ${fill.y2 - fill.y1})`);
    // Within the grain of the ramp, inside the band.
    for (const y of [band * BAND + 3.5, band * BAND + 12.5, band * BAND + 20.5]) {
      assert.ok(Math.abs(greyAt(fill, 48, y) - (60 + y - 0.5)) <= 2.5, `band ${band} at y ${y}: ${greyAt(fill, 48, y)} for ${60 + y - 0.5}`);
    }
  }
  // Where two bands meet, the colours either side differ by about the ramp's step (1), not the band's (24).
  for (let band = 1; band < 4; band++) {
    const above = greyAt((shapes[band - 1] as TracedShape).fill, 48, band * BAND - 0.5);
    const below = greyAt((shapes[band] as TracedShape).fill, 48, band * BAND + 0.5);
    assert.ok(Math.abs(below - above) <= 4, `edge ${band}: ${above} above, ${below} below`);
  }
});

test('shadeLargeShapes: a band whose ramp spans under 3 levels stays flat (nobody sees it; it costs bytes)', async () => {
  // 96 px at 1/48 level per pixel: 2 levels over the whole band, under the grain.
  const gentle = [rectangle(0, 0, SIZE, SIZE, { r: 61, g: 61, b: 61 })];
  assert.equal(await shadeLargeShapes(gentle, noisyRamp(1 / 48), SIZE, SIZE), 0);
  assert.equal(gentle[0]?.fill.kind, 'flat');
  // The same band on a ramp of 1 level per pixel is shaded.
  const steep = [rectangle(0, 0, SIZE, SIZE, { r: 108, g: 108, b: 108 })];
  assert.equal(await shadeLargeShapes(steep, noisyRamp(), SIZE, SIZE), 1);
});

test('shadeLargeShapes: flat areas, shapes showing fewer than MIN_SHADED_PIXELS and specks stay flat', async () => {
  const flatGrey = { rgba: Buffer.alloc(SIZE * SIZE * 4, 128), width: SIZE, height: SIZE };
  for (let i = 3; i < flatGrey.rgba.length; i += 4) flatGrey.rgba[i] = 255;
  const even = [rectangle(0, 0, SIZE, SIZE, { r: 128, g: 128, b: 128 })];
  assert.equal(await shadeLargeShapes(even, flatGrey, SIZE, SIZE), 0);
  assert.equal(even[0]?.fill.kind, 'flat');

  // On the ramp: a shape that shows fewer pixels than the minimum, and a speck, stay flat.
  const side = Math.floor(Math.sqrt(MIN_SHADED_PIXELS)) - 2;
  const small = rectangle(10, 10, 10 + side, 10 + side, { r: 90, g: 90, b: 90 });
  const speck = rectangle(60, 60, 63, 63, { r: 150, g: 150, b: 150 });
  const shapes = [rectangle(0, 0, SIZE, SIZE, { r: 108, g: 108, b: 108 }), small, speck];
  await shadeLargeShapes(shapes, noisyRamp(), SIZE, SIZE);
  assert.equal(shapes[0]?.fill.kind, 'linear');
  assert.equal(small.fill.kind, 'flat');
  assert.equal(speck.fill.kind, 'flat');
});

test('shadeLargeShapes: a small shape a step off the ramp around it takes that ramp; one that draws something stays flat', async () => {
  // A 12 × 8 patch in the ramp (60 + y under grain), 4 levels off it: a band's island that the
  // grain left in the other. Drawn flat over the ramp it is a blotch with crisp edges.
  const island = rectangle(40, 40, 52, 48, { r: 108, g: 108, b: 108 });
  // The same patch 40 levels darker in the picture, as a bird in a sky: it draws something.
  const bird = rectangle(40, 70, 52, 78, { r: 94, g: 94, b: 94 });
  const picture = noisyRamp();
  for (let y = 70; y < 78; y++) {
    for (let x = 40; x < 52; x++) {
      for (let c = 0; c < 3; c++) picture.rgba[(y * SIZE + x) * 4 + c] = (picture.rgba[(y * SIZE + x) * 4 + c] as number) - 40;
    }
  }
  const sky = rectangle(0, 0, SIZE, SIZE, { r: 108, g: 108, b: 108 });
  assert.equal(await shadeLargeShapes([sky, island, bird], picture, SIZE, SIZE), 2);
  assert.equal(sky.fill.kind, 'linear');
  assert.deepEqual(island.fill, sky.fill);
  assert.deepEqual(bird.fill, { kind: 'flat', color: { r: 94, g: 94, b: 94 } });
});

test('shadeLargeShapes: pieces of one colour that touch, as tiles cut a region (trace/tiles.ts), get one gradient', async () => {
  // The ramp runs down the image; cut across it, each piece fitted apart took the shades of its own half.
  const top = rectangle(0, 0, SIZE, SIZE / 2, { r: 108, g: 108, b: 108 });
  const bottom = rectangle(0, SIZE / 2, SIZE, SIZE, { r: 108, g: 108, b: 108 });
  assert.equal(await shadeLargeShapes([top, bottom], noisyRamp(), SIZE, SIZE), 2);
  assert.equal(top.fill.kind, 'linear');
  assert.deepEqual(top.fill, bottom.fill);
  // Where the pieces meet, one colour either side.
  assert.ok(Math.abs(greyAt(top.fill, 48, SIZE / 2 - 0.5) - greyAt(bottom.fill, 48, SIZE / 2 + 0.5)) <= 1.5);
  // Of another colour, over a picture with a step between them, the lower piece is fitted on its own.
  const upper = rectangle(0, 0, SIZE, SIZE / 2, { r: 84, g: 84, b: 84 });
  const lower = rectangle(0, SIZE / 2, SIZE, SIZE, { r: 162, g: 162, b: 162 });
  await shadeLargeShapes([upper, lower], steppedRamp(30), SIZE, SIZE);
  assert.notDeepEqual(upper.fill, lower.fill);
});

/** noisyRamp with the lower half `step` levels lighter: an edge in the picture, not a band of the trace. */
function steppedRamp(step: number): { rgba: Buffer; width: number; height: number } {
  const picture = noisyRamp();
  for (let i = (SIZE / 2) * SIZE * 4; i < picture.rgba.length; i += 4) {
    for (let c = 0; c < 3; c++) picture.rgba[i + c] = Math.min(255, (picture.rgba[i + c] as number) + step);
  }
  return picture;
}

test('shadeLargeShapes: the bands of one ramp, each of its own colour, are painted with one gradient, so no step shows where they meet', async () => {
  const shapes = stackedBands();
  assert.equal(await shadeLargeShapes(shapes, noisyRamp(), SIZE, SIZE), 4);
  const first = (shapes[0] as TracedShape).fill;
  assert.equal(first.kind, 'linear');
  for (const shape of shapes) assert.deepEqual(shape.fill, first);
  // Down the whole picture, within the grain of the ramp.
  for (const y of [2.5, 30.5, 60.5, 93.5]) assert.ok(Math.abs(greyAt(first, 48, y) - (60 + y - 0.5)) <= 2, `at y ${y}: ${greyAt(first, 48, y)} for ${60 + y - 0.5}`);
});

test('shadeLargeShapes: bands either side of an edge in the picture keep their own gradients, even a few levels apart', async () => {
  for (const step of [30, 10]) {
    const upper = rectangle(0, 0, SIZE, SIZE, { r: 84, g: 84, b: 84 });
    const lower = rectangle(0, SIZE / 2, SIZE, SIZE, { r: 132 + step, g: 132 + step, b: 132 + step });
    assert.equal(await shadeLargeShapes([upper, lower], steppedRamp(step), SIZE, SIZE), 2);
    assert.notDeepEqual(upper.fill, lower.fill, `step ${step}`);
    // The step stays where the picture has it.
    const above = greyAt(upper.fill, 48, SIZE / 2 - 0.5);
    const below = greyAt(lower.fill, 48, SIZE / 2 + 0.5);
    assert.ok(below - above >= step - 3, `step ${step}: ${above} above, ${below} below`);
  }
});

test('sameColourAreas: candidates of one flat colour whose visible pixels touch are one area; others, or apart, are not', () => {
  const grey = { r: 100, g: 100, b: 100 };
  const shapes = [rectangle(0, 0, 10, 10, grey), rectangle(10, 0, 20, 10, grey), rectangle(20, 0, 30, 10, { r: 101, g: 100, b: 100 }), rectangle(40, 0, 50, 10, grey)];
  const owner = visibleShapes(shapes, 50, 10);
  const { groupOf, count } = sameColourAreas(owner, 50, 10, shapes, Int32Array.from([0, 1, 2, 3]), 4);
  assert.equal(count, 3);
  assert.equal(groupOf[0], groupOf[1]);
  assert.notEqual(groupOf[1], groupOf[2]);
  assert.notEqual(groupOf[0], groupOf[3]);
});
