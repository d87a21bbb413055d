import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { convertImage, firstDecode, statisticsOf } from '../../../src/engine/convert.ts';
import { doubtfulAlternative, RULES } from '../../../src/engine/analyse/classify.ts';
import { colouredInkShare, separateInk } from '../../../src/engine/analyse/ink.ts';
import { digitalPaperOf, paperTonesOf } from '../../../src/engine/analyse/paper-tones.ts';
import { srgbToOklab } from '../../../src/engine/check/oklab.ts';
import { DEFAULT_PARAMS } from '../../../src/engine/params.ts';
import { handwritingPath, randomSequence, renderSvg } from '../fixtures.ts';

const LIMITS = { maxInputPixels: 100_000_000 };
const WIDTH = 640;
const HEIGHT = 480;
/** A tinted box, as a code listing's, in the lower half of the page. */
const BOX = { x: 40, y: 250, width: 560, height: 170 };
const INKS = { black: '#141414', red: '#e0301e', blue: '#1e5ad2', green: '#1e9628' } as const;

/** A digital page: black writing, a red line and a green line on white, blue writing in a lavender box. */
function pageSvg(colours: boolean): string {
  const line = (y: number, seed: number, colour: string) =>
    `<path d="${handwritingPath({ x: 50, y, width: 540, height: 44 }, seed, 32)}" fill="none" stroke="${colour}" stroke-width="2.4" stroke-linecap="round"/>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}"><rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>` +
    (colours ? `<rect x="${BOX.x}" y="${BOX.y}" width="${BOX.width}" height="${BOX.height}" fill="#e2e2fa"/>` : '') +
    line(20, 1, INKS.black) +
    line(70, 2, colours ? INKS.red : INKS.black) +
    line(120, 3, INKS.black) +
    line(170, 4, colours ? INKS.green : INKS.black) +
    line(BOX.y + 20, 5, colours ? INKS.blue : INKS.black) +
    line(BOX.y + 80, 6, colours ? INKS.blue : INKS.black) +
    '</svg>'
  );
}

async function page(colours: boolean): Promise<{ png: Buffer; rgba: Buffer }> {
  const { rgba } = await renderSvg(pageSvg(colours));
  const png = await sharp(rgba, { raw: { width: WIDTH, height: HEIGHT, channels: 4 } }).png().toBuffer();
  return { png, rgba };
}

function oklab(r: number, g: number, b: number): Float32Array {
  const out = new Float32Array(3);
  srgbToOklab(Math.round(r), Math.round(g), Math.round(b), out, 0);
  return out;
}

function distance(a: Float32Array, b: Float32Array): number {
  return Math.hypot((a[0] as number) - (b[0] as number), (a[1] as number) - (b[1] as number), (a[2] as number) - (b[2] as number));
}

/** The mean rendered colour over the source pixels of one ink (within 40 levels of it in every channel). */
function meanOverInk(source: Buffer, rendered: Buffer, hex: string, rows: [number, number]): { r: number; g: number; b: number; count: number } {
  const ink = parseInt(hex.slice(1), 16);
  const want = [ink >> 16, (ink >> 8) & 255, ink & 255];
  let r = 0;
  let g = 0;
  let b = 0;
  let count = 0;
  for (let y = rows[0]; y < rows[1]; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const i = (y * WIDTH + x) * 4;
      if (want.some((value, c) => Math.abs((source[i + c] as number) - value) > 40)) continue;
      r += rendered[i] as number;
      g += rendered[i + 1] as number;
      b += rendered[i + 2] as number;
      count++;
    }
  }
  return { r: r / count, g: g / count, b: b / count, count };
}

test('ink in several colours keeps each colour, and a page in one ink is painted in one', async () => {
  const coloured = await page(true);
  const result = await convertImage({ image: coloured.png, params: { ...DEFAULT_PARAMS, mode: 'sketch' } }, LIMITS);
  const rendered = await renderSvg(result.svg.replace(/width="[^"]*" height="[^"]*"/, `width="${WIDTH}" height="${HEIGHT}"`));
  const lines: [keyof typeof INKS, [number, number]][] = [
    ['black', [20, 64]],
    ['red', [70, 114]],
    ['green', [170, 214]],
    ['blue', [BOX.y + 20, BOX.y + 124]],
  ];
  for (const [name, rows] of lines) {
    const hex = INKS[name];
    const ink = parseInt(hex.slice(1), 16);
    const drawn = meanOverInk(coloured.rgba, rendered.rgba, hex, rows);
    assert.ok(drawn.count > 300, `${name}: ${drawn.count} pixels of the source in that ink`);
    // Before, every stroke took the one ink's colour: red and green came back dark grey.
    const off = distance(oklab(drawn.r, drawn.g, drawn.b), oklab(ink >> 16, (ink >> 8) & 255, ink & 255));
    assert.ok(off < 0.08, `${name} strokes drawn ${Math.round(drawn.r)},${Math.round(drawn.g)},${Math.round(drawn.b)}: Oklab ${off.toFixed(3)} from ${hex}`);
  }
  // The box is drawn in its tint between the lines of writing, and the page around it stays white.
  const at = (x: number, y: number) => [...rendered.rgba.subarray((y * WIDTH + x) * 4, (y * WIDTH + x) * 4 + 3)];
  for (const [x, y] of [[BOX.x + 6, BOX.y + 6], [BOX.x + BOX.width - 8, BOX.y + BOX.height - 8], [BOX.x + 300, BOX.y + 150]] as const) {
    const drawn = at(x, y);
    const tint = [0xe2, 0xe2, 0xfa];
    assert.ok(drawn.every((value, c) => Math.abs(value - (tint[c] as number)) <= 3), `box at (${x}, ${y}): ${drawn}`);
  }
  assert.deepEqual(at(10, 10), [255, 255, 255]);
  assert.deepEqual(at(20, HEIGHT - 20), [255, 255, 255]);

  const plain = await page(false);
  const single = await convertImage({ image: plain.png, params: { ...DEFAULT_PARAMS, mode: 'sketch' } }, LIMITS);
  const fills = new Set([...single.svg.matchAll(/fill="(#[0-9a-f]{6})"/g)].map((match) => match[1]));
  assert.equal(fills.size, 2, `paper and one ink: ${[...fills].join(' ')}`);
});

test('coloured ink and digital paper are told from a scan: grain, stains and tinted paper are neither', async () => {
  const coloured = await page(true);
  const separation = separateInk(coloured.rgba, WIDTH, HEIGHT);
  assert.ok(colouredInkShare(coloured.rgba, WIDTH, HEIGHT, separation.paper) > 0.005);
  assert.deepEqual(digitalPaperOf(coloured.rgba), { r: 255, g: 255, b: 255 });

  // The same page as a scan: yellowed paper with grain, the ink greyed; no colour, no exact paper.
  const random = randomSequence(7);
  const scan = Buffer.from((await page(false)).rgba);
  for (let i = 0; i < scan.length; i += 4) {
    const grain = (random() - 0.5) * 10;
    const tint = [0.97, 0.93, 0.8];
    for (let c = 0; c < 3; c++) scan[i + c] = Math.max(0, Math.min(255, Math.round((scan[i + c] as number) * (tint[c] as number) + grain)));
  }
  const scanned = separateInk(scan, WIDTH, HEIGHT);
  assert.equal(colouredInkShare(scan, WIDTH, HEIGHT, scanned.paper), 0);
  assert.equal(digitalPaperOf(scan), undefined);
});

test('a page’s tint is found under its ink, with the ink taken out', async () => {
  const coloured = await page(true);
  const separation = separateInk(coloured.rgba, WIDTH, HEIGHT, 'colour');
  const ink = new Uint8Array(WIDTH * HEIGHT);
  for (let p = 0; p < ink.length; p++) if ((separation.normalised[p] as number) < separation.threshold) ink[p] = 1;
  const tones = paperTonesOf(coloured.rgba, WIDTH, HEIGHT, ink, { r: 255, g: 255, b: 255 });
  assert.equal(tones.length, 1, `one tone: ${JSON.stringify(tones.map((tone) => tone.colour))}`);
  const tone = tones[0]!;
  assert.ok(Math.abs(tone.colour.r - 0xe2) <= 2 && Math.abs(tone.colour.b - 0xfa) <= 2, `the box's tint: ${JSON.stringify(tone.colour)}`);
  // Its mask is the box, ink lines within it included.
  let inBox = 0;
  let outside = 0;
  for (let y = 0; y < tone.maskHeight; y++) {
    for (let x = 0; x < tone.maskWidth; x++) {
      if (tone.mask[(y * tone.maskWidth + x) * 4] !== 0) continue;
      const px = x * tone.pixelsPerMaskPixel;
      const py = y * tone.pixelsPerMaskPixel;
      if (px >= BOX.x && px < BOX.x + BOX.width && py >= BOX.y && py < BOX.y + BOX.height) inBox++;
      else outside++;
    }
  }
  assert.ok(inBox >= 0.99 * BOX.width * BOX.height, `${inBox} of the box's ${BOX.width * BOX.height} pixels`);
  assert.ok(outside <= 0.002 * WIDTH * HEIGHT, `${outside} pixels outside the box`);
});

test('a page in several inks, taken for flat colour for its colour, is traced again as ink and kept', async () => {
  const coloured = await page(true);
  const result = await convertImage({ image: coloured.png, params: DEFAULT_PARAMS }, LIMITS);
  const attempts = result.check?.attempts ?? [];
  assert.deepEqual(attempts.map((attempt) => `${attempt.reason}:${attempt.kind}`), ['first:logo', 'doubt:sketch']);
  assert.equal(result.chosen.mode, 'sketch', `fidelity ${attempts.map((attempt) => attempt.fidelity).join(' vs ')}`);

  // Flat colour with more saturated colour than a page's few coloured words and lines (a coloured
  // logo on white: the corpus's and the tune part's 0.08 and more) gets no second opinion as ink.
  const { first } = await firstDecode(coloured.png, LIMITS.maxInputPixels);
  const stats = await statisticsOf(first);
  assert.ok(stats.ink, 'the page is measured as ink');
  assert.deepEqual(doubtfulAlternative('logo', stats, first), { kind: 'sketch', margin: RULES.inkInColours.minGain });
  const colourful = { ...stats, ink: { ...stats.ink, saturatedOffLineShare: 0.08 } };
  assert.equal(doubtfulAlternative('logo', colourful, first), undefined);
  const shaded = { ...stats, ink: { ...stats.ink, continuousToneShare: 0.01 } };
  assert.equal(doubtfulAlternative('logo', shaded, first), undefined);
});

test('strokes of two inks that cross keep each its ink: a red curve across black axes', async () => {
  // Black axes and writing, a red curve crossing the axes and a blue one crossing the red.
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}"><rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>` +
    `<path d="${handwritingPath({ x: 50, y: 20, width: 540, height: 90 }, 8, 32)}" fill="none" stroke="${INKS.black}" stroke-width="2.4" stroke-linecap="round"/>` +
    `<path d="M80 140V440H600" fill="none" stroke="${INKS.black}" stroke-width="3"/>` +
    `<path d="M60 420C200 400 300 180 620 160" fill="none" stroke="${INKS.red}" stroke-width="3"/>` +
    `<path d="M60 200C250 260 420 420 620 430" fill="none" stroke="${INKS.blue}" stroke-width="3"/></svg>`;
  const { rgba } = await renderSvg(svg);
  const png = await sharp(rgba, { raw: { width: WIDTH, height: HEIGHT, channels: 4 } }).png().toBuffer();
  const result = await convertImage({ image: png, params: { ...DEFAULT_PARAMS, mode: 'sketch' } }, LIMITS);
  const rendered = await renderSvg(result.svg.replace(/width="[^"]*" height="[^"]*"/, `width="${WIDTH}" height="${HEIGHT}"`));
  // Each ink over its own pixels, the crossings included: one piece of ink in one colour drew
  // the axes and both curves between their inks (before, the whole tangle was a brownish purple).
  for (const [name, rows] of [['black', [130, 450]], ['red', [150, 430]], ['blue', [190, 440]]] as const) {
    const hex = INKS[name];
    const ink = parseInt(hex.slice(1), 16);
    const drawn = meanOverInk(rgba, rendered.rgba, hex, [rows[0], rows[1]]);
    assert.ok(drawn.count > 300, `${name}: ${drawn.count} pixels`);
    const off = distance(oklab(drawn.r, drawn.g, drawn.b), oklab(ink >> 16, (ink >> 8) & 255, ink & 255));
    assert.ok(off < 0.1, `${name} strokes drawn ${Math.round(drawn.r)},${Math.round(drawn.g)},${Math.round(drawn.b)}: Oklab ${off.toFixed(3)} from ${hex}`);
  }
});
