// Translucency under half alpha: a translucent ground or panel drawn flat is traced and painted at
// its own opacity; anti-aliased rims against transparency are not translucency.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { convertImage } from '../../../src/engine/convert.ts';
import { DEFAULT_PARAMS } from '../../../src/engine/params.ts';
import { flatTranslucency } from '../../../src/engine/paint/opacity.ts';
import { renderSvg } from '../fixtures.ts';

/** A map of opaque countries on a sea at 35 % alpha, 1000 × 700: larger than the artwork path's segmentation grid. */
function mapOnTranslucentSea(): string {
  const countries = [
    ['#e31a1c', 'M120 80 L420 60 L460 260 L200 300 Z'],
    ['#1f78b4', 'M460 60 L760 90 L720 320 L470 270 Z'],
    ['#33a02c', 'M200 310 L470 280 L520 560 L240 600 Z'],
    ['#ff7f00', 'M530 330 L730 330 L800 560 L540 580 Z'],
  ];
  const paths = countries.map(([fill, d]) => `<path fill="${fill}" d="${d}"/>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="700"><rect x="20" y="20" width="960" height="660" fill="#80b1ff" fill-opacity="0.345"/>${paths}</svg>`;
}

test('a translucent ground under half alpha is traced at its own opacity, not keyed out', async () => {
  const { rgba, width, height } = await renderSvg(mapOnTranslucentSea());
  const found = flatTranslucency({ rgba, width, height });
  assert.ok(found, 'the sea is flat translucency');
  const sea = ((300 * width + 900) * 4) as number;
  assert.equal(found.traced.rgba[sea + 3], 255, 'traced opaque');
  assert.equal(found.opacity.rgba[sea + 3], rgba[sea + 3], 'its opacity kept for the paint');
  const image = await sharp(rgba, { raw: { width, height, channels: 4 } }).png().toBuffer();
  const result = await convertImage({ image, params: DEFAULT_PARAMS }, { maxInputPixels: 100_000_000 });
  assert.equal(result.chosen.mode, 'logo');
  const opacities = [...result.svg.matchAll(/fill-opacity="([0-9.]+)"/g)].map((m) => Number(m[1]));
  assert.ok(opacities.some((o) => Math.abs(o - 0.345) < 0.03), `the sea's opacity: ${opacities.join(', ')}`);
  assert.ok(result.fidelity > 0.9, `fidelity ${result.fidelity}`);
});

test('anti-aliased rims against transparency and a few translucent pixels are not translucency', async () => {
  // A disc: its rim is partly transparent, a pixel wide, its alpha changing across it.
  const disc = await renderSvg('<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400"><circle cx="200" cy="200" r="150" fill="#224488"/></svg>');
  assert.equal(flatTranslucency(disc), undefined);
  // A small translucent patch, under 1 % of the image.
  const patch = await renderSvg('<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400"><rect x="10" y="10" width="30" height="30" fill="#000" fill-opacity="0.3"/><circle cx="200" cy="200" r="150" fill="#224488"/></svg>');
  assert.equal(flatTranslucency(patch), undefined);
});
