// Light drawn in alpha (a glow, a flash, sparks): traced in alpha bands, each painted at the
// opacity that stacks to the band's alpha (paint/alpha-bands.ts), when the self-check finds the
// binary-alpha trace lost it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { convertImage } from '../../../src/engine/convert.ts';
import { DEFAULT_PARAMS } from '../../../src/engine/params.ts';
import { alphaBands, alphaCarriesPicture } from '../../../src/engine/paint/alpha-bands.ts';
import { randomSequence, renderSvg } from '../fixtures.ts';

const LIMITS = { maxInputPixels: 100_000_000 };

/**
 * Light drawn in alpha as a stamp draws fireworks: grainy light fading from half alpha at the
 * centre to nothing, crossed by wavy streaks of bright light, on transparency.
 */
function glow(width: number, height: number): { rgba: Buffer; width: number; height: number } {
  const random = randomSequence(3);
  const rgba = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const distance = Math.hypot(x - width / 2, y - height / 2) / (width / 2);
      let alpha = Math.max(0, 0.55 * (1 - distance)) * (0.4 + 1.2 * random());
      for (let k = 0; k < 6; k++) {
        const streak = 30 + k * 28 + 8 * Math.sin(x / 12 + k);
        if (Math.abs(y - streak) < 1.5 && x > 20 && x < width - 20) alpha = Math.max(alpha, 0.9);
      }
      rgba.set([230, 255, 200, Math.min(255, Math.round(alpha * 255))], (y * width + x) * 4);
    }
  }
  return { rgba, width, height };
}

async function pngOf(image: { rgba: Buffer; width: number; height: number }): Promise<Buffer> {
  return sharp(image.rgba, { raw: { width: image.width, height: image.height, channels: 4 } }).png().toBuffer();
}

async function rgbaOf(png: Buffer): Promise<{ rgba: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { rgba: data, width: info.width, height: info.height };
}

/** Mean |alpha a − alpha b| over the pixels, 0–255. */
function alphaDifference(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 3; i < a.length; i += 4) sum += Math.abs((a[i] as number) - (b[i] as number));
  return sum / (a.length / 4);
}

test('alphaCarriesPicture: a glow fading across the picture, not an opaque shape with anti-aliased edges', async () => {
  assert.equal(alphaCarriesPicture(glow(160, 160)), true);
  const disk = await sharp(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="160" height="160"><circle cx="80" cy="80" r="60" fill="#36c"/></svg>')).png().toBuffer();
  assert.equal(alphaCarriesPicture(await rgbaOf(disk)), false);
  assert.equal(alphaCarriesPicture({ rgba: Buffer.alloc(16 * 16 * 4), width: 16, height: 16 }), false);
});

test('alphaBands: the bands stacked at their opacities give each pixel its alpha within a band', async () => {
  const image = glow(160, 160);
  const bands = alphaBands(image);
  assert.ok(bands.length >= 4, `bands: ${bands.length}`);
  let worst = 0;
  let sum = 0;
  let visible = 0;
  for (let i = 3; i < image.rgba.length; i += 4) {
    let through = 1;
    for (const band of bands) if ((band.layer.rgba[i] as number) === 255) through *= 1 - band.opacity;
    const stacked = (1 - through) * 255;
    const own = image.rgba[i] as number;
    if (own < 6) {
      assert.equal(stacked, 0, 'an invisible pixel is in no band');
      continue;
    }
    visible++;
    sum += Math.abs(stacked - own);
    worst = Math.max(worst, Math.abs(stacked - own));
  }
  // The widest band spans 56 levels; its mean sits inside it.
  assert.ok(worst < 56, `worst ${worst}`);
  assert.ok(sum / visible < 12, `mean ${sum / visible}`);
  for (const band of bands) assert.ok(band.opacity > 0 && band.opacity <= 1, `opacity ${band.opacity}`);
});

test('convertImage: light drawn in alpha comes back translucent, traced in bands, where the binary alpha lost it', async () => {
  const source = glow(200, 200);
  const png = await pngOf(source);
  const params = { ...DEFAULT_PARAMS };
  const checked = await convertImage({ image: png, params }, { ...LIMITS, untimed: true });
  const unchecked = await convertImage({ image: png, params }, { ...LIMITS, noRetrace: true });
  assert.ok(checked.check.signatures.some((s) => s === 'coverage' || s === 'faint'), `signatures: ${checked.check.signatures.join(', ')}`);
  assert.equal(checked.check.retraced, true);
  const checkedAlpha = alphaDifference(source.rgba, (await renderSvg(checked.svg)).rgba);
  const uncheckedAlpha = alphaDifference(source.rgba, (await renderSvg(unchecked.svg)).rgba);
  assert.ok(checkedAlpha < uncheckedAlpha * 0.7, `alpha difference ${checkedAlpha.toFixed(1)} against ${uncheckedAlpha.toFixed(1)} untraced again`);
  assert.ok(checkedAlpha < 12, `alpha difference ${checkedAlpha.toFixed(1)}`);
  assert.ok(checked.fidelity > unchecked.fidelity + 0.1, `fidelity ${checked.fidelity} against ${unchecked.fidelity}`);
});
