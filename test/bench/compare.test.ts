// The bench's measures: Oklab against Ottosson's published values, and the worst region catching
// a lost feature that the mean SSIM barely sees.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareImages, worstWindow, type RgbaImage } from '../../bench/compare.ts';
import { croppedSvg } from '../../bench/crops.ts';
import { renderSvg } from '../../bench/measure.ts';
import { srgbToOklab } from '../../bench/oklab.ts';

const near = (actual: number, expected: number, tolerance: number, what: string): void =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} is not ${expected} ± ${tolerance}`);

test('Oklab of white, black and the sRGB primaries matches Ottosson’s published values', () => {
  const cases: [number[], number[]][] = [
    [[255, 255, 255], [1, 0, 0]],
    [[0, 0, 0], [0, 0, 0]],
    [[255, 0, 0], [0.627955, 0.224863, 0.125846]],
    [[0, 255, 0], [0.86644, -0.233888, 0.179498]],
    [[0, 0, 255], [0.452014, -0.032457, -0.311528]],
  ];
  for (const [rgb, lab] of cases) {
    const [l, a, b] = srgbToOklab(rgb[0] as number, rgb[1] as number, rgb[2] as number);
    near(l, lab[0] as number, 1e-4, `L of ${rgb.join(',')}`);
    near(a, lab[1] as number, 1e-4, `a of ${rgb.join(',')}`);
    near(b, lab[2] as number, 1e-4, `b of ${rgb.join(',')}`);
  }
});

/** An orange face with two dark eyes on transparency, drawn by resvg at 512 px. */
function face(eyes: number): RgbaImage {
  const eye = (cx: number): string => `<circle cx="${cx}" cy="200" r="14" fill="#2b2b2b"/>`;
  const svg = [
    '<svg xmlns="http://www.w3.org/2000/svg" width="512" height="512">',
    '<circle cx="256" cy="256" r="200" fill="#f28c28"/>',
    eyes > 0 ? eye(196) : '',
    eyes > 1 ? eye(316) : '',
    '</svg>',
  ].join('');
  return renderSvg(svg, 512);
}

test('a lost eye: the mean SSIM stays high, the worst region does not', () => {
  const reference = face(2);
  const same = compareImages(reference, face(2));
  assert.equal(same.worstDe, 0);
  near(same.ssim, 1, 1e-9, 'SSIM of identical images');
  assert.equal(same.coverage, 0);

  const oneEye = compareImages(reference, face(1));
  assert.ok(oneEye.ssim > 0.97, `mean SSIM ${oneEye.ssim} barely moves`);
  assert.ok(oneEye.worstDe > 15, `worst ΔE ${oneEye.worstDe} flags the lost eye`);
  assert.ok(oneEye.meanDe < 1.5, `mean ΔE ${oneEye.meanDe} hides it`);
  // The worst window covers the missing eye at (316, 200).
  const at = oneEye.worstAt;
  assert.ok(at.x <= 316 && 316 < at.x + at.width && at.y <= 200 && 200 < at.y + at.height, JSON.stringify(at));
});

test('coverage is the candidate’s opaque share minus the reference’s', () => {
  const reference = face(2);
  const empty: RgbaImage = { data: new Uint8Array(512 * 512 * 4), width: 512, height: 512, premultiplied: true };
  const lost = compareImages(reference, empty);
  near(lost.coverage, -(Math.PI * 200 * 200) / (512 * 512), 0.005, 'coverage of an empty result');
  assert.ok(lost.worstDe > 50, `worst ΔE ${lost.worstDe} of a vanished shape`);
});

test('worstWindow finds the extreme window and where it is', () => {
  const values = new Float64Array(64 * 64);
  for (let y = 40; y < 48; y++) for (let x = 8; x < 16; x++) values[y * 64 + x] = 1;
  const worst = worstWindow(values, 64, 64, 8);
  assert.equal(worst.value, 1);
  assert.deepEqual(worst.at, { x: 8, y: 40, width: 8, height: 8 });
  assert.equal(worstWindow(values, 64, 64, 8, true).value, 0);
});

test('croppedSvg draws only the crop, at 100 %, with or without a viewBox', () => {
  const withViewBox = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 50 50" width="100" height="100"><rect x="25" y="25" width="5" height="5" fill="#000"/></svg>';
  const withoutViewBox = '<svg xmlns="http://www.w3.org/2000/svg" width="50" height="50"><rect x="25" y="25" width="5" height="5" fill="#000"/></svg>';
  for (const svg of [withViewBox, withoutViewBox]) {
    // Both draw a 100 px image; the square is at 50–60 px.
    const inside = renderSvg(croppedSvg(svg, 100, 100, { left: 50, top: 50, width: 10, height: 10 }), 10);
    assert.equal(inside.width, 10);
    assert.ok([...inside.data].filter((_, i) => i % 4 === 3).every((alpha) => alpha === 255), 'the crop is the square');
    const outside = renderSvg(croppedSvg(svg, 100, 100, { left: 0, top: 0, width: 10, height: 10 }), 10);
    assert.ok([...outside.data].every((value) => value === 0), 'nothing outside the square');
  }
});
