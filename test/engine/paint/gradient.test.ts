// Each region's paint, on regions drawn here: flat regions keep their mean colour, ramps become
// linear gradients along the ramp, round falls radial ones, noise stays flat, stops are as few
// as the profile needs, and partial alpha becomes the paint's opacity.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collectPixels, fitPaints, fitRegion, paintColours, paintError, paintOpacity, samplePixels, straightColour, type RegionPaint } from '../../../src/engine/paint/gradient.ts';
import type { GradientStop, Paint } from '../../../src/engine/geometry.ts';
import { randomSequence, segmentationOf, type RgbaColour } from '../fixtures.ts';

const WHITE: RgbaColour = [255, 255, 255, 255];
const SIZE = 48;

/** The straight colour and opacity a gradient shows at a point, as SVG draws it (padded beyond its end stops). */
function gradientAt(paint: Exclude<Paint, { kind: 'flat' }>, x: number, y: number): RgbaColour {
  let t: number;
  if (paint.kind === 'linear') {
    const dx = paint.x2 - paint.x1;
    const dy = paint.y2 - paint.y1;
    t = ((x - paint.x1) * dx + (y - paint.y1) * dy) / (dx * dx + dy * dy);
  } else {
    t = Math.hypot(x - paint.cx, y - paint.cy) / paint.r;
  }
  const stops = paint.stops;
  const first = stops[0] as GradientStop;
  const last = stops[stops.length - 1] as GradientStop;
  const channels = (stop: GradientStop): RgbaColour => [stop.color.r, stop.color.g, stop.color.b, stop.opacity * 255];
  if (t <= first.offset) return channels(first);
  if (t >= last.offset) return channels(last);
  let k = 0;
  while ((stops[k + 1] as GradientStop).offset < t) k++;
  const a = channels(stops[k] as GradientStop);
  const b = channels(stops[k + 1] as GradientStop);
  const f = (t - (stops[k] as GradientStop).offset) / ((stops[k + 1] as GradientStop).offset - (stops[k] as GradientStop).offset);
  return [0, 1, 2, 3].map((c) => (a[c] as number) + f * ((b[c] as number) - (a[c] as number))) as RgbaColour;
}

/**
 * The largest difference between a gradient and the colour drawn, over a region's pixel centres:
 * its interior pixels, or all of them. Edge pixels are not sampled (in an image they blend with
 * the neighbour), so there the gradient only continues its outermost stops.
 */
function worstMiss(paint: RegionPaint, inside: (x: number, y: number) => boolean, colour: (x: number, y: number) => RgbaColour, options: { factor?: number; edges?: boolean } = {}): number {
  const { factor = 1, edges = false } = options;
  assert.notEqual(paint.fill.kind, 'flat');
  const fill = paint.fill as Exclude<Paint, { kind: 'flat' }>;
  let worst = 0;
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      if (!inside(x, y)) continue;
      if (!edges && !(inside(x - 1, y) && inside(x + 1, y) && inside(x, y - 1) && inside(x, y + 1))) continue;
      const shown = gradientAt(fill, (x + 0.5) * factor, (y + 0.5) * factor);
      const expected = colour(x, y);
      for (let c = 0; c < 4; c++) worst = Math.max(worst, Math.abs((shown[c] as number) - (expected[c] as number)));
    }
  }
  return worst;
}

/** Region 0 where `inside`, coloured by `colour`; region 1, white, around it. */
function oneRegion(inside: (x: number, y: number) => boolean, colour: (x: number, y: number) => RgbaColour) {
  return segmentationOf(SIZE, SIZE, (x, y) => (inside(x, y) ? [0, colour(x, y)] : [1, WHITE]));
}

const square = (x: number, y: number) => x >= 4 && x < 44 && y >= 6 && y < 38;

test('a flat region gets a flat paint of its mean colour, mild noise included; so does the ground around it', () => {
  const random = randomSequence(11);
  const noisy = (): RgbaColour => [200 + Math.round((random() - 0.5) * 6), 40 + Math.round((random() - 0.5) * 6), 60, 255];
  const segmentation = oneRegion(square, noisy);
  const [region, ground] = fitPaints(segmentation, 1) as [RegionPaint, RegionPaint];
  assert.equal(region.fill.kind, 'flat');
  assert.equal(region.opacity, 1);
  const { color } = region.fill as Extract<Paint, { kind: 'flat' }>;
  assert.ok(Math.abs(color.r - 200) <= 1 && Math.abs(color.g - 40) <= 1 && color.b === 60, JSON.stringify(color));
  assert.deepEqual(ground, { fill: { kind: 'flat', color: { r: 255, g: 255, b: 255 } }, opacity: 1 });
});

test('a horizontal ramp gets a linear gradient across it with its end colours, in the coordinates of the traced grid', () => {
  const ramp = (x: number): RgbaColour => [40 + 5 * (x - 4), 80, 220 - 4 * (x - 4), 255];
  for (const factor of [1, 3]) {
    const [paint] = fitPaints(oneRegion(square, ramp), factor) as [RegionPaint];
    assert.equal(paint.fill.kind, 'linear', `factor ${factor}`);
    const fill = paint.fill as Extract<Paint, { kind: 'linear' }>;
    // Along x, over the square's width (40 pixels), from left to right or the other way round.
    assert.ok(Math.abs(fill.y2 - fill.y1) < 0.5 * factor, `vertical extent ${fill.y2 - fill.y1}`);
    assert.ok(Math.abs(Math.abs(fill.x2 - fill.x1) - 39 * factor) <= 1.5 * factor, `horizontal extent ${fill.x2 - fill.x1}`);
    // The colours at the square's outermost interior columns (5 and 42), and at its edge
    // columns, which take the nearest interior colour: one pixel's step of the ramp off.
    const near = (x: number, expected: RgbaColour, within: number) => {
      const shown = gradientAt(fill, (x + 0.5) * factor, 20 * factor);
      assert.ok(Math.abs(shown[0] - expected[0]) <= within && Math.abs(shown[2] - expected[2]) <= within, `factor ${factor}, column ${x}: ${shown.map(Math.round)}`);
    };
    near(5, ramp(5), 3);
    near(42, ramp(42), 3);
    near(4, ramp(4), 5 + 3);
    near(43, ramp(43), 5 + 3);
    assert.ok(worstMiss(paint, square, ramp, { factor }) <= 3, `worst miss ${worstMiss(paint, square, ramp, { factor })}`);
    assert.equal(paint.opacity, 1);
  }
});

test('a diagonal ramp gets a gradient along its direction', () => {
  const angle = (30 * Math.PI) / 180;
  const ramp = (x: number, y: number): RgbaColour => {
    const t = (x - 4) * Math.cos(angle) + (y - 6) * Math.sin(angle);
    return [30 + 4 * t, 200 - 3 * t, 100, 255];
  };
  const [paint] = fitPaints(oneRegion(square, ramp), 1) as [RegionPaint];
  assert.equal(paint.fill.kind, 'linear');
  const fill = paint.fill as Extract<Paint, { kind: 'linear' }>;
  const direction = Math.atan2(fill.y2 - fill.y1, fill.x2 - fill.x1);
  // The axis, whichever way it runs.
  const off = Math.abs(((direction - angle + Math.PI * 2.5) % Math.PI) - Math.PI / 2);
  assert.ok(off < (2 * Math.PI) / 180, `direction ${((direction * 180) / Math.PI).toFixed(1)}°`);
  assert.ok(worstMiss(paint, square, ramp) <= 3, `worst miss ${worstMiss(paint, square, ramp)}`);
});

test('a disc that falls off from a centre gets a radial gradient about that centre', () => {
  const [cx, cy] = [24.3, 22.7];
  const disc = (x: number, y: number) => Math.hypot(x + 0.5 - cx, y + 0.5 - cy) < 18;
  // Flat for 3 pixels round the centre, then falling 7 and 8 levels a pixel.
  const fall = (x: number, y: number): RgbaColour => {
    const d = Math.max(3, Math.hypot(x + 0.5 - cx, y + 0.5 - cy));
    return [271 - 7 * d, 244 - 8 * d, 60, 255];
  };
  const [paint] = fitPaints(oneRegion(disc, fall), 2) as [RegionPaint];
  assert.equal(paint.fill.kind, 'radial');
  const fill = paint.fill as Extract<Paint, { kind: 'radial' }>;
  assert.ok(Math.hypot(fill.cx / 2 - cx, fill.cy / 2 - cy) < 0.5, `centre (${fill.cx / 2}, ${fill.cy / 2})`);
  assert.ok(Math.abs(fill.r / 2 - 18) < 1.5, `radius ${fill.r / 2}`);
  assert.ok(worstMiss(paint, disc, fall, { factor: 2 }) <= 5, `worst miss ${worstMiss(paint, disc, fall, { factor: 2 })}`);
  // The rim, not sampled, continues the last stop: within one pixel's fall (8 levels) and a bit.
  assert.ok(worstMiss(paint, disc, fall, { factor: 2, edges: true }) <= 8 + 3, `worst miss on the rim ${worstMiss(paint, disc, fall, { factor: 2, edges: true })}`);
});

test('a glow round a centre outside the region (a ring, not half way to its centre) gets a radial gradient about that centre', () => {
  // A planet's glow: a band 12 pixels wide round a centre below the grid, brightest at the planet.
  const [cx, cy] = [24.3, 70.2];
  const [inner, outer] = [40, 52];
  const ring = (x: number, y: number) => {
    const d = Math.hypot(x + 0.5 - cx, y + 0.5 - cy);
    return x >= 0 && y >= 0 && x < SIZE && y < SIZE && d >= inner && d < outer;
  };
  const glow = (x: number, y: number): RgbaColour => {
    const d = Math.hypot(x + 0.5 - cx, y + 0.5 - cy);
    return [36, 100 - 2.5 * (d - inner), 200 - 7 * (d - inner), 255];
  };
  const [paint] = fitPaints(oneRegion(ring, glow), 1) as [RegionPaint];
  assert.equal(paint.fill.kind, 'radial');
  const fill = paint.fill as Extract<Paint, { kind: 'radial' }>;
  assert.ok(Math.hypot(fill.cx - cx, fill.cy - cy) < 3, `centre (${fill.cx}, ${fill.cy})`);
  assert.ok(worstMiss(paint, ring, glow) <= 6, `worst miss ${worstMiss(paint, ring, glow)}`);
});

test('noise does not become a gradient: it stays flat in its mean colour', () => {
  const random = randomSequence(5);
  const noise = (): RgbaColour => [128 + (random() - 0.5) * 80, 90 + (random() - 0.5) * 80, 60 + (random() - 0.5) * 80, 255];
  const [paint] = fitPaints(oneRegion(square, noise), 1) as [RegionPaint];
  assert.equal(paint.fill.kind, 'flat');
  const { color } = paint.fill as Extract<Paint, { kind: 'flat' }>;
  assert.ok(Math.abs(color.r - 128) <= 3 && Math.abs(color.g - 90) <= 3 && Math.abs(color.b - 60) <= 3, JSON.stringify(color));
});

test('stops are as few as the profile needs: two for a straight ramp, three for a ramp with a kink, at most eight', () => {
  const straight = (x: number): RgbaColour => [20 + 3 * (x - 4), 100, 100, 255];
  const [linear] = fitPaints(oneRegion(square, straight), 1) as [RegionPaint];
  assert.equal((linear.fill as Extract<Paint, { kind: 'linear' }>).stops.length, 2);
  // Up 3 levels a pixel to the middle, then flat.
  const kinked = (x: number): RgbaColour => [20 + 3 * Math.min(x - 4, 20), 100, 100, 255];
  const [kink] = fitPaints(oneRegion(square, kinked), 1) as [RegionPaint];
  const stops = (kink.fill as Extract<Paint, { kind: 'linear' }>).stops;
  assert.equal(stops.length, 3, JSON.stringify(stops));
  // The middle stop at the kink: column 24's centre, 20 of the 39 pixels from the first centre.
  assert.ok(Math.abs((stops[1] as GradientStop).offset - 20 / 39) < 0.04, `kink at ${(stops[1] as GradientStop).offset}`);
  assert.ok(worstMiss(kink, square, kinked) <= 4, `worst miss ${worstMiss(kink, square, kinked)}`);
  // A wave has more turns than eight stops can follow: it gets eight.
  const wave = (x: number): RgbaColour => [128 + 100 * Math.sin((x - 4) / 2), 100, 100, 255];
  const [waved] = fitPaints(oneRegion(square, wave), 1) as [RegionPaint];
  assert.equal(waved.fill.kind, 'linear');
  assert.equal((waved.fill as Extract<Paint, { kind: 'linear' }>).stops.length, 8);
});

test('maxStops raises the eight: a wave gets as many stops as allowed, and fits closer', () => {
  const wave = (x: number): RgbaColour => [128 + 100 * Math.sin((x - 4) / 2), 100, 100, 255];
  const [pixels] = collectPixels(oneRegion(square, wave));
  const rule = { flatTolerance: 0, gain: 1, minRange: 0 };
  const eight = fitRegion(pixels!, 1, rule);
  const sixteen = fitRegion(pixels!, 1, { ...rule, maxStops: 16 });
  assert.equal((sixteen.paint.fill as Extract<Paint, { kind: 'linear' }>).stops.length, 16);
  assert.ok(sixteen.error < eight.error * 0.7, `${sixteen.error} against ${eight.error}`);
});

test('paintColours draws a paint as SVG does, and paintError on a region is the error its fit reports', () => {
  const ramp = (x: number, y: number): RgbaColour => [20 + 3 * (x - 4), 200 - 2 * (y - 4), 100, 255];
  const [pixels] = collectPixels(oneRegion(square, ramp));
  const fit = fitRegion(pixels!, 2);
  assert.equal(fit.paint.fill.kind, 'linear');
  const fill = fit.paint.fill as Extract<Paint, { kind: 'linear' }>;
  // At a few pixels, in the grid traced (twice the pixels), the colour gradientAt computes.
  const positions = Float64Array.from([4.5, 4.5, 20.5, 11.5, 43.5, 43.5, 0.5, 47.5]);
  const colours = paintColours(fill, positions, 4, 2);
  for (let k = 0; k < 4; k++) {
    const expected = gradientAt(fill, (positions[k * 2] as number) * 2, (positions[k * 2 + 1] as number) * 2);
    for (let c = 0; c < 4; c++) assert.ok(Math.abs((colours[k * 4 + c] as number) - (expected[c] as number)) < 1e-6, `point ${k} channel ${c}`);
  }
  assert.ok(Math.abs(paintError(fill, pixels!, 2) - fit.error) < 0.05, `${paintError(fill, pixels!, 2)} against ${fit.error}`);
});

test('samplePixels: at most the number asked for, each region in proportion to the pixels it stands for', () => {
  const [pixels] = collectPixels(oneRegion(square, () => [100, 100, 100, 255]));
  const whole = pixels!.count;
  const one = samplePixels([{ pixels: pixels!, weight: whole }], 100);
  assert.equal(one.count, 100);
  // Spread over the region, not its first rows.
  assert.ok((one.positions[one.count * 2 - 1] as number) > 30, `last sample at y ${one.positions[one.count * 2 - 1]}`);
  // Two regions, one standing for three times the pixels of the other.
  const two = samplePixels([{ pixels: pixels!, weight: 3 * whole }, { pixels: one, weight: whole }], 80);
  assert.equal(two.count, 80);
  // Fewer pixels than asked: all of them.
  assert.equal(samplePixels([{ pixels: one, weight: 100 }], 1000).count, 100);
});

test('partial alpha becomes the paint\'s opacity, with the straight colour; a fade becomes stop opacities', () => {
  const [half] = fitPaints(oneRegion(square, () => [200, 100, 50, 128]), 1) as [RegionPaint];
  assert.equal(half.fill.kind, 'flat');
  // Premultiplied 8-bit colour loses a level: 200 × 128 / 255 = 100.4 → 100 → 199.
  const { color } = half.fill as Extract<Paint, { kind: 'flat' }>;
  assert.ok(Math.abs(color.r - 200) <= 1 && Math.abs(color.g - 100) <= 1 && Math.abs(color.b - 50) <= 1, JSON.stringify(color));
  assert.ok(Math.abs(half.opacity - 128 / 255) < 0.005, `opacity ${half.opacity}`);
  assert.equal(paintOpacity(half), half.opacity);
  // One colour fading from opaque at the left to a fifth at the right.
  const fade = (x: number): RgbaColour => [30, 90, 200, 255 - 5 * (x - 4)];
  const [faded] = fitPaints(oneRegion(square, fade), 1) as [RegionPaint];
  assert.equal(faded.fill.kind, 'linear');
  const stops = (faded.fill as Extract<Paint, { kind: 'linear' }>).stops;
  for (const stop of stops) {
    assert.ok(Math.abs(stop.color.r - 30) <= 2 && Math.abs(stop.color.g - 90) <= 2 && Math.abs(stop.color.b - 200) <= 2, `stop colour ${JSON.stringify(stop.color)}`);
  }
  const opacities = stops.map((stop) => stop.opacity);
  assert.ok(Math.abs(Math.max(...opacities) - 1) < 0.03 && Math.abs(Math.min(...opacities) - 60 / 255) < 0.03, `stop opacities ${opacities}`);
  assert.equal(faded.opacity, 1);
  assert.ok(Math.abs(paintOpacity(faded) - Math.min(...opacities)) < 1e-9);
  assert.ok(worstMiss(faded, square, fade) <= 4, `worst miss ${worstMiss(faded, square, fade)}`);
});

test('small regions stay flat, and pixels on a region\'s edge (blended with the neighbour) do not shift its colour', () => {
  // A ramp over 4 × 5 pixels: too few for a profile.
  const tiny = (x: number, y: number) => x >= 10 && x < 14 && y >= 10 && y < 15;
  const [small] = fitPaints(oneRegion(tiny, (x) => [20 + 40 * (x - 10), 100, 100, 255]), 1) as [RegionPaint];
  assert.deepEqual(small.fill, { kind: 'flat', color: { r: 80, g: 100, b: 100 } });
  // A red square whose outer ring of pixels is half blended with the white ground.
  const edged = (x: number, y: number): RgbaColour => (x === 4 || x === 43 || y === 6 || y === 37 ? [228, 128, 128, 255] : [200, 0, 0, 255]);
  const [red] = fitPaints(oneRegion(square, edged), 1) as [RegionPaint];
  assert.deepEqual(red.fill, { kind: 'flat', color: { r: 200, g: 0, b: 0 } });
});

test('straightColour divides alpha out and rounds to 8 bits', () => {
  assert.deepEqual(straightColour([100, 50, 25, 128]), { color: { r: 199, g: 100, b: 50 }, opacity: 128 / 255 });
  assert.deepEqual(straightColour([10, 20, 30, 255]), { color: { r: 10, g: 20, b: 30 }, opacity: 1 });
  assert.deepEqual(straightColour([0, 0, 0, 0]), { color: { r: 0, g: 0, b: 0 }, opacity: 0 });
});
