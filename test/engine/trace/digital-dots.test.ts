import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { convertImage } from '../../../src/engine/convert.ts';
import { automaticSpeckle } from '../../../src/engine/trace/vtracer.ts';
import { DEFAULT_PARAMS } from '../../../src/engine/params.ts';
import { handwritingPath, renderSvg } from '../fixtures.ts';

const LIMITS = { maxInputPixels: 100_000_000 };
const WIDTH = 320;
const HEIGHT = 200;
/** Dots about a pixel across, as a letter i's at 13 px, below a line of writing. */
const DOTS = Array.from({ length: 12 }, (_, k) => ({ x: 30.5 + k * 22, y: 150.5 + (k % 3) * 12 }));

test("a digital page's automatic speck filter is half a scan's", () => {
  assert.equal(automaticSpeckle('sketch', 1), 2);
  assert.equal(automaticSpeckle('sketch', 1, true), 2, 'at its own size the filter is the same');
  assert.equal(automaticSpeckle('sketch', 4), 6);
  assert.equal(automaticSpeckle('sketch', 4, true), 3);
});

test('a digital page traced upscaled keeps its dots', async () => {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}"><rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>` +
    `<path d="${handwritingPath({ x: 20, y: 10, width: 280, height: 120 }, 21, 30)}" fill="none" stroke="#111" stroke-width="1.4" stroke-linecap="round"/>` +
    DOTS.map((dot) => `<circle cx="${dot.x}" cy="${dot.y}" r="0.6" fill="#111"/>`).join('') +
    '</svg>';
  const { rgba } = await renderSvg(svg);
  const png = await sharp(rgba, { raw: { width: WIDTH, height: HEIGHT, channels: 4 } }).png().toBuffer();
  const result = await convertImage({ image: png, params: { ...DEFAULT_PARAMS, mode: 'sketch' } }, LIMITS);
  const rendered = (await renderSvg(result.svg.replace(/width="[^"]*" height="[^"]*"/, `width="${WIDTH}" height="${HEIGHT}"`))).rgba;
  // The darkest pixel within a pixel of each dot's centre: ink where the dot is drawn.
  const darkest = (image: Buffer, dot: { x: number; y: number }) => {
    let least = 255;
    for (let y = Math.floor(dot.y) - 1; y <= Math.floor(dot.y) + 1; y++) {
      for (let x = Math.floor(dot.x) - 1; x <= Math.floor(dot.x) + 1; x++) least = Math.min(least, image[(y * WIDTH + x) * 4] as number);
    }
    return least;
  };
  for (const dot of DOTS) assert.ok(darkest(rgba, dot) < 128, `the source draws the dot at ${dot.x}, ${dot.y}`);
  const kept = DOTS.filter((dot) => darkest(rendered, dot) < 128).length;
  // With a scan's filter (a source pixel and a half across) none was kept.
  assert.ok(kept >= DOTS.length - 1, `dots kept: ${kept} of ${DOTS.length}`);
});
