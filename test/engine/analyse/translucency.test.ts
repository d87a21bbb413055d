// Artwork translucent as a whole (an overlay, a wallpaper meant to lie over a desktop colour): its
// alpha is stretched for tracing and the drawing given back its opacity once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { convertImage } from '../../../src/engine/convert.ts';
import { DEFAULT_PARAMS } from '../../../src/engine/params.ts';
import { stretchAlpha, translucentOpacity, TRANSLUCENT_BELOW } from '../../../src/engine/analyse/translucency.ts';
import { greyscalePhoto, randomSequence, renderSvg } from '../fixtures.ts';

const LIMITS = { maxInputPixels: 100_000_000 };

/** Vertical grey stripes 6–20 px wide, darker towards the sides, every pixel at `alpha`. */
function stripes(width: number, height: number, alpha: number): Buffer {
  const random = randomSequence(7);
  const rgba = Buffer.alloc(width * height * 4);
  let x = 0;
  while (x < width) {
    const stripe = 6 + Math.floor(random() * 15);
    const grey = 70 + Math.floor(random() * 100);
    for (let sx = x; sx < Math.min(width, x + stripe); sx++) {
      const shade = Math.round(grey * (1 - 0.4 * Math.abs(sx / width - 0.5)));
      for (let y = 0; y < height; y++) rgba.set([shade, shade, shade, alpha], (y * width + sx) * 4);
    }
    x += stripe;
  }
  return rgba;
}

/** White ellipses at a third of alpha with soft rims, on transparency: light artwork that is all translucent. */
async function faintEllipses(width: number, height: number): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <ellipse cx="90" cy="100" rx="60" ry="40" fill="#ffffff" fill-opacity="0.35"/>
    <ellipse cx="220" cy="90" rx="50" ry="70" fill="#f4f8ff" fill-opacity="0.3"/>
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

function rgbaImage(rgba: Buffer, width: number, height: number) {
  return { rgba, width, height };
}

/** Mean over pixels of |a − b| for the colour composited over `background` (0–255), and of alpha. */
function difference(a: Buffer, b: Buffer, background: number): { colour: number; alpha: number } {
  let colour = 0;
  let alpha = 0;
  for (let i = 0; i < a.length; i += 4) {
    const alphaA = (a[i + 3] as number) / 255;
    const alphaB = (b[i + 3] as number) / 255;
    for (let c = 0; c < 3; c++) {
      const overA = (a[i + c] as number) * alphaA + background * (1 - alphaA);
      const overB = (b[i + c] as number) * alphaB + background * (1 - alphaB);
      colour += Math.abs(overA - overB) / 3;
    }
    alpha += Math.abs(alphaA - alphaB) * 255;
  }
  return { colour: colour / (a.length / 4), alpha: alpha / (a.length / 4) };
}

test('translucentOpacity: the alpha of artwork translucent as a whole; none for opaque artwork or an empty canvas', () => {
  const overlay = stripes(200, 100, 140);
  assert.equal(translucentOpacity(rgbaImage(overlay, 200, 100)), Math.round((140 / 255) * 1000) / 1000);
  // One opaque stripe in a hundred is within the quantile; more makes the artwork opaque.
  const someOpaque = Buffer.from(overlay);
  for (let i = 3; i < someOpaque.length; i += 4 * 20) someOpaque[i] = 255;
  assert.equal(translucentOpacity(rgbaImage(someOpaque, 200, 100)), undefined);
  const opaque = stripes(200, 100, 255);
  assert.equal(translucentOpacity(rgbaImage(opaque, 200, 100)), undefined);
  assert.equal(translucentOpacity(rgbaImage(Buffer.alloc(200 * 100 * 4), 200, 100)), undefined);
  assert.ok(TRANSLUCENT_BELOW < 1);
});

/** The stripes at `alpha` with an opaque title: a white bar over the middle (about 8 % of the picture). */
function overlayWithTitle(width: number, height: number, alpha: number): Buffer {
  const rgba = stripes(width, height, alpha);
  for (let y = Math.round(height * 0.4); y < Math.round(height * 0.56); y++) {
    for (let x = Math.round(width * 0.25); x < Math.round(width * 0.75); x++) rgba.set([250, 240, 245, 255], (y * width + x) * 4);
  }
  return rgba;
}

test('translucentOpacity: an overlay with opaque details is translucent at its commonest alpha, if the details lose little by it', () => {
  // A pause screen at 223 with an opaque title: the title drawn at 0.875 loses an eighth of its opacity.
  assert.equal(translucentOpacity(rgbaImage(overlayWithTitle(200, 100, 223), 200, 100)), Math.round((223 / 255) * 1000) / 1000);
  // At 140, the title would be drawn at 0.55: opaque artwork on a translucent plate stays as it is.
  assert.equal(translucentOpacity(rgbaImage(overlayWithTitle(200, 100, 140), 200, 100)), undefined);
  // Opaque artwork with a soft shadow at 80 over most of the canvas: its few opaque pixels would be drawn faint.
  const shadow = stripes(200, 100, 80);
  for (let i = 3; i < shadow.length; i += 4 * 40) shadow[i] = 255;
  assert.equal(translucentOpacity(rgbaImage(shadow, 200, 100)), undefined);
});

test('fail-safe: a photograph overlaid at 87 % with an opaque title comes back translucent, its shapes not compounded to opaque', async () => {
  const width = 320;
  const height = 240;
  const source = Buffer.from((await sharp(await greyscalePhoto(width, height, 5)).ensureAlpha().raw().toBuffer()));
  for (let i = 3; i < source.length; i += 4) source[i] = 223;
  for (let y = 96; y < 130; y++) for (let x = 80; x < 240; x++) source.set([250, 240, 245, 255], (y * width + x) * 4);
  const image = await sharp(source, { raw: { width, height, channels: 4 } }).png().toBuffer();
  // Traced as a photograph: its stacked shapes are what compounded (the artwork path's regions do not overlap).
  const result = await convertImage({ image, params: { ...DEFAULT_PARAMS, mode: 'photo' } }, LIMITS);
  assert.match(result.svg, /<g opacity="0\.875">/);
  const drawn = await renderSvg(result.svg);
  for (const background of [0, 255]) {
    const { colour, alpha } = difference(source, drawn.rgba, background);
    // The title alone, 7 % of the picture drawn at the overlay's opacity, is off: by 32 of alpha.
    // Each stacked shape at its own opacity, the photograph came out opaque: 30 off.
    assert.ok(alpha < 4, `mean alpha off by ${alpha.toFixed(1)}`);
    assert.ok(colour < 6, `over ${background}: mean colour off by ${colour.toFixed(1)}`);
  }
  assert.ok(result.fidelity > 0.8, `fidelity ${result.fidelity}`);
});

test('stretchAlpha: alpha divided by the opacity, at most opaque; colours untouched', () => {
  const rgba = Buffer.from([10, 20, 30, 0, 10, 20, 30, 70, 10, 20, 30, 140, 10, 20, 30, 200]);
  const stretched = stretchAlpha(rgbaImage(rgba, 4, 1), 0.549);
  assert.deepEqual([...stretched.rgba].filter((_, i) => i % 4 === 3), [0, 128, 255, 255]);
  assert.deepEqual([...stretched.rgba].filter((_, i) => i % 4 !== 3), [...rgba].filter((_, i) => i % 4 !== 3));
  assert.equal(rgba[7], 70, 'the source is not changed');
});

test('fail-safe: a translucent overlay comes back translucent, over any ground, not as opaque bands', async () => {
  const width = 320;
  const height = 200;
  const source = stripes(width, height, 140);
  const image = await sharp(source, { raw: { width, height, channels: 4 } }).png().toBuffer();
  const result = await convertImage({ image, params: DEFAULT_PARAMS }, LIMITS);
  assert.match(result.svg, /<g opacity="0\.549">/);
  const drawn = await renderSvg(result.svg);
  assert.equal(drawn.width, width);
  // Opaque, the stripes would be 0.45 of alpha off and, over black, 50 levels too light.
  for (const background of [0, 255]) {
    const { colour, alpha } = difference(source, drawn.rgba, background);
    assert.ok(alpha < 4, `mean alpha off by ${alpha.toFixed(1)}`);
    assert.ok(colour < 6, `over ${background}: mean colour off by ${colour.toFixed(1)}`);
  }
  assert.ok(result.fidelity > 0.8, `fidelity ${result.fidelity}`);
});

test('fail-safe: light artwork all under half alpha is traced, not dropped as transparent', async () => {
  const image = await faintEllipses(320, 200);
  const { data } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
  let visible = 0;
  for (let i = 3; i < data.length; i += 4) if ((data[i] as number) >= 64) visible++;
  assert.ok(visible > 0.2 * 320 * 200, 'the ellipses cover a fifth of the image');
  assert.ok(Math.max(...[...data].filter((_, i) => i % 4 === 3)) < 128, 'every pixel under half alpha');
  const result = await convertImage({ image, params: DEFAULT_PARAMS }, LIMITS);
  const drawn = await renderSvg(result.svg);
  let kept = 0;
  for (let i = 3; i < data.length; i += 4) if ((data[i] as number) >= 64 && (drawn.rgba[i] as number) >= 48) kept++;
  assert.ok(kept >= 0.95 * visible, `${kept} of ${visible} visible pixels drawn`);
  const { alpha } = difference(data, drawn.rgba, 0);
  assert.ok(alpha < 4, `mean alpha off by ${alpha.toFixed(1)}`);
});

test('a test key\'s watermark over translucent artwork keeps its full strength', async () => {
  const image = await sharp(stripes(320, 200, 140), { raw: { width: 320, height: 200, channels: 4 } }).png().toBuffer();
  const result = await convertImage({ image, params: DEFAULT_PARAMS, watermark: true }, LIMITS);
  assert.doesNotMatch(result.svg, /<g opacity=/, 'the drawing\'s opacity moved onto its shapes');
  assert.match(result.svg, /fill-opacity="0\.549"/);
});

test('translucentOpacity: alpha that fades across the picture is the picture, not a layer\'s opacity', () => {
  // A white wave fading from clear to 0.6 alpha: stretched, its top would pass for opaque.
  const width = 200;
  const height = 100;
  const rgba = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) rgba.set([255, 255, 255, Math.round((153 * x) / width)], (y * width + x) * 4);
  assert.equal(translucentOpacity(rgbaImage(rgba, width, height)), undefined);
});
