// Pass 1 on label maps drawn here: a sliver whose colour lies between its two sides' colours is
// the anti-aliasing of their edge, and its pixels join the side they are closer to; a sliver of
// another colour, a sliver between sides too alike to have an edge, and a translucent frame of
// another hue than its shape all stay.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dissolveMixtures } from '../../../src/engine/segment/mixtures.ts';
import type { Segmentation } from '../../../src/engine/segment/segment.ts';
import { segmentationOf, type RgbaColour } from '../fixtures.ts';

const RED: RgbaColour = [220, 60, 40, 255];
const BLUE: RgbaColour = [40, 90, 200, 255];
const CLEAR: RgbaColour = [0, 0, 0, 0];

function mix(a: RgbaColour, b: RgbaColour, t: number): RgbaColour {
  return [0, 1, 2, 3].map((c) => (a[c] as number) + t * ((b[c] as number) - (a[c] as number))) as RgbaColour;
}

function dissolve(segmentation: Segmentation): Int32Array {
  const { labels, count, sums, premultiplied, width, height, frame } = segmentation;
  return dissolveMixtures(labels, count, sums, premultiplied, width, height, frame);
}

/** One row of the label map (they are all alike in these vertical stripes). */
function row(labels: Int32Array, width: number): number[] {
  return [...labels.subarray(0, width)];
}

/** Red columns 0–9 (region 0), then the slivers given (regions 2, 3, …), then blue (region 1). */
function stripes(slivers: RgbaColour[]): Segmentation {
  return segmentationOf(24, 8, (x) => {
    if (x < 10) return [0, RED];
    const sliver = x - 10;
    return sliver < slivers.length ? [2 + sliver, slivers[sliver] as RgbaColour] : [1, BLUE];
  });
}

test('a one-pixel sliver between red and blue joins the side whose colour it is closer to', () => {
  for (const [blueness, side] of [[0.3, 0], [0.7, 1]] as const) {
    const labels = dissolve(stripes([mix(RED, BLUE, blueness)]));
    assert.deepEqual(row(labels, 24), [...Array(10).fill(0), side, ...Array(13).fill(1)], `${blueness * 100} % blue`);
  }
});

test('a ramp of two slivers splits between them: each pixel goes to the nearer side', () => {
  const labels = dissolve(stripes([mix(RED, BLUE, 0.25), mix(RED, BLUE, 0.75)]));
  assert.deepEqual(row(labels, 24), [...Array(11).fill(0), ...Array(13).fill(1)]);
});

test('slivers that are not a mixture of their sides stay: another colour, or sides too alike to have an edge', () => {
  const green = stripes([[40, 200, 60, 255]]);
  assert.equal(dissolve(green), green.labels, 'a green line between red and blue is a line');
  // Greys 100 and 106: a contrast of 18 over RGB, under the 24 an edge needs.
  const alike = segmentationOf(24, 8, (x) => (x < 10 ? [0, [100, 100, 100, 255]] : x === 10 ? [2, [103, 103, 103, 255]] : [1, [106, 106, 106, 255]]));
  assert.equal(dissolve(alike), alike.labels);
});

test('against transparency, a translucent rim a quarter opaque or more in another hue is a frame; fainter, it is coverage', () => {
  // A blue square (region 1) on transparency (region 0), with a one-pixel rim (region 2) round it
  // in a greyer blue: 60 from the square's hue (over 36), lying on the way from clear to the square.
  const rim = (alpha: number) =>
    segmentationOf(24, 24, (x, y) => {
      if (x >= 7 && x < 17 && y >= 7 && y < 17) return [1, BLUE];
      if (x >= 6 && x < 18 && y >= 6 && y < 18) return [2, [60, 90, 160, alpha]];
      return [0, CLEAR];
    });
  const frame = rim(128);
  assert.equal(dissolve(frame), frame.labels, 'half opaque: a frame');
  // An eighth opaque, the same rim is the square's anti-aliasing: each pixel goes to the nearer side, here transparency.
  const faint = rim(32);
  const labels = dissolve(faint);
  assert.notEqual(labels, faint.labels);
  for (let i = 0; i < labels.length; i++) assert.equal(labels[i], faint.labels[i] === 2 ? 0 : faint.labels[i], `pixel ${i}`);
});

test('the grey rim of a dark dot a few pixels across joins the dot or the ground, and a lighter dot’s rim stays', () => {
  // A dog emoji's eye at 32 px: a dark core of four pixels (region 1) on cream (region 0), with
  // four single rim pixels (regions 2–5) part dark and part cream. The core is thin and under the
  // 8 pixels any other side must have; as the darkest thing around, it is still a side.
  const CREAM: RgbaColour = [255, 234, 200, 255];
  const DARK: RgbaColour = [47, 47, 47, 255];
  const rims: Record<string, [number, number]> = { '9,9': [2, 0.7], '12,10': [3, 0.35], '9,11': [4, 0.75], '12,11': [5, 0.3] };
  const dot = (core: RgbaColour) =>
    segmentationOf(24, 24, (x, y) => {
      if ((x === 10 || x === 11) && (y === 10 || y === 11)) return [1, core];
      const rim = rims[`${x},${y}`];
      if (rim) return [rim[0], mix(core, CREAM, rim[1])];
      return [0, CREAM];
    });
  const eye = dot(DARK);
  const labels = dissolve(eye);
  // Each rim pixel goes to the side it is closer to: mostly dark to the eye, mostly cream to the face.
  assert.equal(labels[9 * 24 + 9], 0, 'a rim pixel 70 % cream');
  assert.equal(labels[10 * 24 + 12], 1, 'a rim pixel 35 % cream');
  assert.equal(labels[11 * 24 + 9], 0, 'a rim pixel 75 % cream');
  assert.equal(labels[11 * 24 + 12], 1, 'a rim pixel 30 % cream');
  // A light dot on a dark ground is a highlight, whose rim is kept as its glow.
  const DUSK: RgbaColour = [40, 40, 60, 255];
  const glint = segmentationOf(24, 24, (x, y) => {
    if ((x === 10 || x === 11) && (y === 10 || y === 11)) return [1, CREAM];
    const rim = rims[`${x},${y}`];
    if (rim) return [rim[0], mix(CREAM, DUSK, rim[1])];
    return [0, DUSK];
  });
  assert.equal(dissolve(glint), glint.labels);
});
