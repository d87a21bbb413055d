// segmentArtwork on small drawn pictures whose truth is known: an anti-aliased edge between two
// colours splits where its coverage crosses one half, a gradient's quantisation bands are one
// region, an outline in pieces is one, specks go unless they stand out, transparency is -1, and
// a larger merge tolerance never keeps more regions apart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_SEGMENT_OPTIONS, segmentArtwork, type Segmentation } from '../../../src/engine/segment/segment.ts';
import { labelComponents, maxLabel } from '../../../src/engine/segment/components.ts';
import { meanOf, MOMENT_STRIDE, pixelCount } from '../../../src/engine/segment/moments.ts';
import { opaqueSilhouette } from '../../../src/engine/segment/silhouette.ts';
import { MERGE_TOLERANCE } from '../../../src/engine/trace/artwork.ts';
import { drawnRgba, posterised, type RgbaColour } from '../fixtures.ts';

const RED: RgbaColour = [220, 60, 40, 255];
const BLUE: RgbaColour = [40, 90, 200, 255];

function mix(a: RgbaColour, b: RgbaColour, t: number): RgbaColour {
  return [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2]), a[3] + t * (b[3] - a[3])];
}

function segmented(rgba: Buffer, width: number, height: number, step: number, options = DEFAULT_SEGMENT_OPTIONS): Segmentation {
  return segmentArtwork(rgba, posterised(rgba, step), width, height, options);
}

/** How many regions the palette's first partition has. */
function pieces(rgba: Buffer, width: number, height: number, step: number): number {
  return maxLabel(labelComponents(posterised(rgba, step), width, height)) + 1;
}

/** Regions that are painted (not transparent). */
function paintedRegions(segmentation: Segmentation): number {
  return new Set(segmentation.labels.filter((label) => label >= 0)).size;
}

test('a slanted anti-aliased edge between two colours: two regions, each edge pixel on the side that covers at least half of it', () => {
  const width = 32;
  const height = 24;
  const onRed = (x: number, y: number) => x < 9.2 + 0.55 * y;
  const rgba = drawnRgba(width, height, (x, y) => (onRed(x, y) ? RED : BLUE));
  const coverage = drawnRgba(width, height, (x, y) => (onRed(x, y) ? [255, 255, 255, 255] : null));
  for (const step of [4, 16, 32]) {
    // Every anti-aliased pixel is a sliver of its own colour in the first partition.
    assert.ok(pieces(rgba, width, height, step) > 12, `palette step ${step}: ${pieces(rgba, width, height, step)} pieces`);
    const { labels, count } = segmented(rgba, width, height, step);
    assert.equal(count, 2, `palette step ${step}`);
    const red = labels[0] as number;
    let edge = 0;
    for (let i = 0; i < width * height; i++) {
      const covered = (coverage[i * 4 + 3] as number) / 255;
      if (covered > 0 && covered < 1) edge++;
      assert.equal(labels[i] === red, covered >= 0.5, `palette step ${step}: pixel (${i % width}, ${Math.floor(i / width)}) is ${(covered * 100).toFixed(0)} % red`);
    }
    assert.ok(edge >= 24, `${edge} anti-aliased pixels`);
  }
});

test('a vertical edge, sharp or ramped over two pixels, splits halfway along the anti-aliasing', () => {
  const width = 24;
  // [the edge or the start of the ramp, the ramp's width (0: a sharp edge, anti-aliased by
  // coverage), the first column more than half blue].
  const cases: [number, number, number][] = [
    [10.3, 0, 10], // column 10 is 70 % blue
    [10.7, 0, 11], // column 10 is 30 % blue
    [10, 2, 11], // columns 10 and 11 are 25 % and 75 % blue
    [9, 2, 10],
  ];
  for (const [start, ramp, firstBlue] of cases) {
    const blueness = (x: number) => (ramp === 0 ? (x < start ? 0 : 1) : Math.max(0, Math.min(1, (x - start) / ramp)));
    const rgba = drawnRgba(width, 6, (x) => mix(RED, BLUE, blueness(x)));
    const { labels, count } = segmented(rgba, width, 6, 16);
    assert.equal(count, 2, `edge at ${start} over ${ramp}`);
    for (let y = 0; y < 6; y++) {
      for (let x = 0; x < width; x++) {
        assert.equal(labels[y * width + x] === labels[0], x < firstBlue, `edge at ${start} over ${ramp}: pixel (${x}, ${y})`);
      }
    }
  }
});

test('a linear gradient quantised into bands is one region; a hard edge beside it stays', () => {
  const width = 64;
  const height = 48;
  const ramp = (x: number): RgbaColour => [30 + (200 * x) / 64, 60 + (100 * x) / 64, 200 - (160 * x) / 64, 255];
  const rgba = drawnRgba(width, height, ramp);
  assert.ok(pieces(rgba, width, height, 8) >= 20, `${pieces(rgba, width, height, 8)} bands`);
  assert.equal(segmented(rgba, width, height, 8).count, 1);
  // The same ramp over the left two thirds, a flat orange right third: two regions, split at x = 40.
  const withPatch = drawnRgba(width, height, (x) => (x < 40 ? ramp(x) : [240, 150, 20, 255]));
  const { labels, count } = segmented(withPatch, width, height, 8);
  assert.equal(count, 2);
  for (let x = 0; x < width; x++) assert.equal(labels[20 * width + x] === labels[0], x < 40, `column ${x}`);
});

test('an anti-aliased outline a pixel wide, in pieces of different coverage, joins into one region', () => {
  const size = 40;
  // A dark ring one pixel wide on transparency: its pixels are partly transparent, in many
  // alpha levels, so the palette cuts it into pieces (as it is before silhouettes are made opaque).
  const onRing = (x: number, y: number) => Math.abs(Math.hypot(x - 20, y - 20) - 13) < 0.5;
  const rgba = drawnRgba(size, size, (x, y) => (onRing(x, y) ? [30, 30, 30, 255] : null));
  const before = pieces(rgba, size, size, 16);
  assert.ok(before >= 20, `${before} pieces`);
  for (const picture of [rgba, opaqueSilhouette(rgba, size, size)]) {
    const { labels } = segmented(picture, size, size, 16);
    const ring = new Set<number>();
    for (let i = 0; i < size * size; i++) if ((rgba[i * 4 + 3] as number) >= 64) ring.add(labels[i] as number);
    assert.equal(ring.size, 1, `ring labels ${[...ring]}`);
    assert.ok((ring.values().next().value as number) >= 0, 'the ring is painted');
    // Inside and outside the ring is transparency: the ring is the only painted region.
    assert.equal(paintedRegions(segmented(picture, size, size, 16)), 1);
  }
});

test('a speck of one or two pixels close in colour is absorbed; one that stands out (a pupil) stays', () => {
  const size = 24;
  const grey: RgbaColour = [120, 120, 120, 255];
  const withSpeck = (length: number, colour: RgbaColour, ground = grey) =>
    drawnRgba(size, size, (x, y) => (y >= 11 && y < 12 && x >= 11 && x < 11 + length ? colour : ground), 1);
  // 25 levels off in each channel: too far for the merges (a boundary of 8 pixel contacts is worth
  // less), close enough for the speck rule (within 24 RMS per channel over RGBA).
  const close: RgbaColour = [145, 95, 145, 255];
  for (const length of [1, 2]) {
    assert.equal(segmented(withSpeck(length, close), size, size, 1).count, 1, `a ${length}-pixel speck`);
    assert.equal(segmented(withSpeck(length, close), size, size, 1, { ...DEFAULT_SEGMENT_OPTIONS, speckPixels: 0 }).count, 2, `a ${length}-pixel speck, specks off`);
  }
  // Three pixels is not a speck at the default size.
  assert.equal(segmented(withSpeck(3, close), size, size, 1).count, 2);
  // 35 levels off stands out.
  assert.equal(segmented(withSpeck(1, [155, 85, 155, 255]), size, size, 1).count, 2);
  // A dark pupil two pixels large in a light face.
  const face: RgbaColour = [240, 200, 150, 255];
  const pupil = segmented(withSpeck(2, [20, 15, 10, 255], face), size, size, 1);
  assert.equal(pupil.count, 2);
  const region = pupil.labels[11 * size + 11] as number;
  assert.equal(pixelCount(pupil.sums, region * MOMENT_STRIDE), 2);
  assert.deepEqual(meanOf(pupil.sums, region * MOMENT_STRIDE), [20, 15, 10, 255]);
});

test('transparent pixels are labelled -1, soft translucency keeps a region, a haze under 8/255 does not', () => {
  const width = 40;
  const height = 24;
  const rgba = drawnRgba(width, height, (x, y) => {
    if (Math.hypot(x - 10, y - 12) < 7.4) return [200, 40, 60, 255]; // an anti-aliased disc
    if (x >= 20 && x < 30 && y >= 4 && y < 20) return [0, 0, 0, 60]; // a soft shadow
    if (x >= 32 && x < 38 && y >= 4 && y < 20) return [90, 90, 90, 5]; // a haze
    return null;
  });
  // As the engine does: the disc's rim made opaque first.
  const silhouette = opaqueSilhouette(rgba, width, height);
  const { labels, sums } = segmented(silhouette, width, height, 4);
  const disc = labels[12 * width + 10] as number;
  const shadow = labels[12 * width + 25] as number;
  assert.ok(disc >= 0 && shadow >= 0 && disc !== shadow);
  assert.ok(Math.abs((meanOf(sums, shadow * MOMENT_STRIDE)[3] as number) - 60) < 1, 'the shadow keeps its alpha');
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const alpha = silhouette[i * 4 + 3] as number;
      if (x >= 32 && x < 38 && y >= 4 && y < 20) assert.equal(labels[i], -1, `haze (${x}, ${y})`);
      else if (alpha === 0) assert.equal(labels[i], -1, `clear (${x}, ${y})`);
      else assert.ok(labels[i] === disc || labels[i] === shadow, `(${x}, ${y}) at alpha ${alpha} is painted`);
    }
  }
});

test('a larger merge tolerance never keeps more apart: the least contrast two flat halves need to stay apart grows with it', () => {
  const width = 40;
  const height = 20;
  const split = (step: number) => drawnRgba(width, height, (x) => (x < 20 ? [60, 100, 140, 255] : [60 + step, 100 + step, 140 - step, 255]), 1);
  const least: number[] = [];
  for (const tolerance of MERGE_TOLERANCE) {
    const options = { ...DEFAULT_SEGMENT_OPTIONS, mergeTolerance: tolerance };
    let step = 1;
    while (step < 115 && segmented(split(step), width, height, 1, options).count === 1) step++;
    least.push(step);
    // Past that step the halves stay apart (merging is monotonic in the contrast too).
    for (const more of [step + 5, step + 20]) if (more < 115) assert.equal(segmented(split(more), width, height, 1, options).count, 2, `tolerance ${tolerance}, step ${more}`);
  }
  for (let k = 1; k < least.length; k++) assert.ok((least[k] as number) > (least[k - 1] as number), `least contrasts ${least.join(', ')}`);
  // The default keeps apart what differs by a few levels per channel more than anti-aliasing noise, and the loosest still keeps a strong edge.
  assert.ok((least[1] as number) >= 8 && (least[1] as number) <= 24, `default tolerance: ${least[1]}`);
  assert.ok((least[least.length - 1] as number) < 115, `loosest tolerance: ${least[least.length - 1]}`);
});
