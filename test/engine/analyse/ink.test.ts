import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { convertImage } from '../../../src/engine/convert.ts';
import { binariseInk, darkenThinLines, otsuOfHistogram, separateInk, sharpenHatching } from '../../../src/engine/analyse/ink.ts';
import { DEFAULT_PARAMS, type TraceParams } from '../../../src/engine/params.ts';
import { handwrittenLetter, handwritingPath, inkOnTransparency, letterOnMount, renderSvg } from '../fixtures.ts';

const LIMITS = { maxInputPixels: 100_000_000 };

function params(overrides: Partial<TraceParams> = {}): TraceParams {
  return { ...DEFAULT_PARAMS, ...overrides };
}

/** The distinct #rrggbb fills of an SVG document, as RGB. */
function fills(svg: string): { r: number; g: number; b: number }[] {
  return [...new Set([...svg.matchAll(/fill="#([0-9a-f]{6})"/g)].map((match) => match[1] as string))].map((hex) => {
    const value = parseInt(hex, 16);
    return { r: value >> 16, g: (value >> 8) & 255, b: value & 255 };
  });
}

function luma(colour: { r: number; g: number; b: number }): number {
  return 0.299 * colour.r + 0.587 * colour.g + 0.114 * colour.b;
}

/** The rendered SVG's RGBA at (x, y), at the document's own size. */
function renderedPixel(pixels: Buffer, width: number, x: number, y: number): number[] {
  const i = (y * width + x) * 4;
  return [pixels[i] as number, pixels[i + 1] as number, pixels[i + 2] as number, pixels[i + 3] as number];
}

test('Otsu’s threshold falls midway between two levels with nothing between them', () => {
  const twoLevels = new Float64Array(256);
  twoLevels[0] = 500;
  twoLevels[255] = 9500;
  assert.equal(otsuOfHistogram(twoLevels), 127.5);
  const spread = new Float64Array(256);
  for (let t = 20; t < 60; t++) spread[t] = 10;
  for (let t = 180; t < 240; t++) spread[t] = 30;
  const threshold = otsuOfHistogram(spread);
  assert.ok(threshold > 60 && threshold < 180, `threshold ${threshold} separates the two groups`);
});

test('a 1-bit image upscaled while thresholding keeps every stroke at its width', () => {
  // A one-pixel vertical line and a 2 × 2 dot on white, as ink 0 / paper 255.
  const width = 8;
  const height = 6;
  const plane = new Uint8Array(width * height).fill(255);
  for (let y = 0; y < height; y++) plane[y * width + 2] = 0;
  for (const [x, y] of [[5, 2], [6, 2], [5, 3], [6, 3]] as const) plane[y * width + x] = 0;
  const histogram = new Float64Array(256);
  for (const value of plane) histogram[value] = (histogram[value] as number) + 1;
  const doubled = binariseInk(plane, width, height, 2, otsuOfHistogram(histogram));
  const ink = (x: number, y: number) => doubled[(y * width * 2 + x) * 4] === 0;
  for (let y = 0; y < height * 2; y++) {
    for (let x = 0; x < width * 2; x++) {
      assert.equal(ink(x, y), plane[(y >> 1) * width + (x >> 1)] === 0, `pixel (${x}, ${y}) of the doubled image`);
    }
  }
});

/** An opaque grey RGBA page (`luma` per pixel), with a solid black bar at x 2–7 so there is ink to find. */
function greyPage(width: number, height: number, luma: (x: number, y: number) => number): Buffer {
  const rgba = Buffer.alloc(width * height * 4);
  for (let y = 0, i = 0; y < height; y++) {
    for (let x = 0; x < width; x++, i += 4) {
      const value = x >= 2 && x < 8 ? 0 : Math.max(0, Math.min(255, Math.round(luma(x, y))));
      rgba.fill(value, i, i + 3);
      rgba[i + 3] = 255;
    }
  }
  return rgba;
}

/** Ink sub-pixels of one output row between two source columns (inclusive start, exclusive end). */
function inkRun(binary: Buffer, width: number, factor: number, row: number, from: number, to: number): number {
  let count = 0;
  for (let x = from * factor; x < to * factor; x++) if (binary[(row * width * factor + x) * 4] === 0) count++;
  return count;
}

test('lines thinner than a pixel keep their weight when the ink is upscaled, and paper grain stays paper', () => {
  const width = 48;
  const height = 24;
  const factor = 4;
  // Vertical lines covering 0.4 of a pixel (x 16), 0.3 (x 24), and 0.4 split over two pixels (x 32–33).
  const coverage: Record<number, number> = { 16: 0.4, 24: 0.3, 32: 0.2, 33: 0.2 };
  const page = greyPage(width, height, (x) => 255 * (1 - (coverage[x] ?? 0)));
  const separation = separateInk(page, width, height);
  const row = (height / 2) * factor;
  const plain = binariseInk(separation.normalised, width, height, factor, separation.threshold);
  // Thresholded as they are, all three vanish.
  for (const [from, to] of [[12, 20], [20, 28], [28, 38]] as const) assert.equal(inkRun(plain, width, factor, row, from, to), 0);
  const kept = binariseInk(darkenThinLines(separation, width, height), width, height, factor, separation.threshold);
  // Each is drawn about as wide as the ink it holds: c × 4 sub-pixels (1.6, 1.2 and 1.6), give or take one.
  for (const [from, to, wanted] of [[12, 20, 1.6], [20, 28, 1.2], [28, 38, 1.6]] as const) {
    const drawn = inkRun(kept, width, factor, row, from, to);
    assert.ok(Math.abs(drawn - wanted) <= 1, `line at ${from}–${to}: ${drawn} ink sub-pixels, ${wanted} wanted`);
  }
  // The solid bar is untouched.
  assert.equal(inkRun(kept, width, factor, row, 3, 7), 4 * factor);

  // Paper with grain of ±10 levels (a fixed pseudo-random pattern) and no line: nothing becomes ink.
  const grain = (x: number, y: number) => 245 + 10 * Math.sin(x * 12.9898 + y * 78.233) * Math.cos(x * 4.1 - y * 7.7);
  const grainy = greyPage(width, height, grain);
  const grainySeparation = separateInk(grainy, width, height);
  const darkened = binariseInk(darkenThinLines(grainySeparation, width, height), width, height, factor, grainySeparation.threshold);
  for (let y = 0; y < height * factor; y++) assert.equal(inkRun(darkened, width, factor, y, 10, width), 0, `output row ${y}`);
});

test('under light that falls to 45 % in one corner, ink is found there and the paper stays paper', async () => {
  const width = 640;
  const height = 420;
  const seed = 21;
  const image = await handwrittenLetter({ width, height, paper: [240, 232, 210], ink: [30, 30, 60], darkestLight: 0.45, seed });
  const { data } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const separation = separateInk(data, width, height);
  // Where the strokes are, from the same drawing rendered alone.
  const { rgba: strokes } = await renderSvg(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      `<path d="${handwritingPath({ x: 20, y: 10, width: width - 40, height: height - 20 }, seed)}" fill="none" stroke="#000" stroke-width="2.6" stroke-linecap="round"/></svg>`,
  );
  let strokePixels = 0;
  let strokeFound = 0;
  let paperPixels = 0;
  let paperKept = 0;
  // The darkest quarter: the right half of the lower half.
  for (let y = height / 2; y < height; y++) {
    for (let x = width / 2; x < width; x++) {
      const coverage = strokes[(y * width + x) * 4 + 3] as number;
      const isInk = (separation.normalised[y * width + x] as number) < separation.threshold;
      if (coverage > 240) {
        strokePixels++;
        if (isInk) strokeFound++;
      } else if (coverage === 0) {
        paperPixels++;
        if (!isInk) paperKept++;
      }
    }
  }
  assert.ok(strokePixels > 500, 'the corner holds strokes');
  assert.ok(strokeFound / strokePixels > 0.95, `${strokeFound} of ${strokePixels} stroke pixels found as ink`);
  assert.ok(paperKept / paperPixels > 0.99, `${paperKept} of ${paperPixels} paper pixels kept as paper`);
});

test('ink on tinted paper is painted in the ink’s colour on a background of the paper’s colour', async () => {
  const paper = [236, 222, 186] as const;
  const ink = [70, 40, 20] as const;
  const image = await handwrittenLetter({ width: 640, height: 420, paper: [...paper], ink: [...ink], darkestLight: 1, seed: 3 });
  const result = await convertImage({ image, params: params({ mode: 'sketch' }) }, LIMITS);
  const background = /<path d="M0 0H640V420H0z" fill="#([0-9a-f]{6})"\/>/.exec(result.svg);
  assert.ok(background, 'the paper is one background shape over the whole image');
  const colours = fills(result.svg);
  assert.equal(colours.length, 2, 'paper and ink, nothing else');
  const [paperFill, inkFill] = [...colours].sort((a, b) => luma(b) - luma(a)) as [typeof colours[0], typeof colours[0]];
  for (const [fill, expected, tolerance] of [
    [paperFill, paper, 10],
    [inkFill, ink, 25],
  ] as const) {
    assert.ok(Math.abs(fill.r - expected[0]) <= tolerance && Math.abs(fill.g - expected[1]) <= tolerance && Math.abs(fill.b - expected[2]) <= tolerance,
      `fill ${JSON.stringify(fill)} near ${expected.join(',')}`);
  }
});

test('line art on transparency has no background shape, and its ink keeps its colour', async () => {
  const image = await inkOnTransparency(300, 160, 4);
  const result = await convertImage({ image, params: params({ mode: 'sketch' }) }, LIMITS);
  assert.doesNotMatch(result.svg, /<path d="M0 0H300V160H0z"/);
  const colours = fills(result.svg);
  assert.equal(colours.length, 1);
  assert.ok(luma(colours[0] as { r: number; g: number; b: number }) < 40, 'the ink is the drawing’s near-black');
  const rendered = new Resvg(result.svg).render().pixels;
  assert.equal(renderedPixel(rendered, 300, 0, 0)[3], 0, 'a corner without ink stays transparent');
});

test('a sheet on a mount is painted as a second paper tone, under the ink', async () => {
  const { image, sheet } = await letterOnMount(9);
  const result = await convertImage({ image, params: params({ mode: 'sketch' }) }, LIMITS);
  const colours = fills(result.svg).map(luma).sort((a, b) => a - b);
  assert.equal(colours.length, 3, 'ink, sheet and mount');
  const [inkLuma, sheetLuma, mountLuma] = colours as [number, number, number];
  assert.ok(inkLuma < 60 && Math.abs(sheetLuma - 112) < 15 && Math.abs(mountLuma - 196) < 15, `fills ${colours.map(Math.round).join(', ')}`);
  const rendered = new Resvg(result.svg).render();
  const pixels = rendered.pixels;
  const at = (x: number, y: number) => luma({ r: renderedPixel(pixels, rendered.width, x, y)[0] as number, g: renderedPixel(pixels, rendered.width, x, y)[1] as number, b: renderedPixel(pixels, rendered.width, x, y)[2] as number });
  assert.ok(Math.abs(at(40, 40) - mountLuma) < 2, 'the mount is the background');
  // Inside the sheet, away from its edge, the sheet's tone (between lines of writing).
  let sheetTone = 0;
  let samples = 0;
  for (let y = sheet.y + 20; y < sheet.y + sheet.height - 20; y += 7) {
    for (let x = sheet.x + 20; x < sheet.x + sheet.width - 20; x += 7) {
      samples++;
      if (Math.abs(at(x, y) - sheetLuma) < 2) sheetTone++;
    }
  }
  assert.ok(sheetTone / samples > 0.6, `${sheetTone} of ${samples} samples on the sheet show its tone`);
});

test('line art traced upscaled keeps sub-pixel coordinates where pathPrecision would round to whole pixels', async () => {
  // 1200 px wide: pathPrecision 4 gives whole pixels; traced 2× (under 4 MP), it gets 0.1 px.
  const image = await handwrittenLetter({ width: 1200, height: 300, paper: [250, 250, 250], ink: [20, 20, 20], darkestLight: 1, seed: 5 });
  const result = await convertImage({ image, params: params({ mode: 'sketch' }) }, LIMITS);
  const data = [...result.svg.matchAll(/<path d="([^"]*)" fill/g)].map((match) => match[1] as string).slice(1).join('');
  assert.match(data, /\d\.\d/, 'coordinates with a decimal');
  assert.doesNotMatch(data, /\d\.\d\d/, 'one decimal, no more');
});

/** A 64 × 48 page on paper of 240: a solid bar (x 2–7), light hatching (x 12–29: rows of 150 and 225) and dense hatching (x 36–57: rows of 30 and 120), rows 8–39. */
function hatchedPage(): { rgba: Buffer; width: number; height: number } {
  const width = 64;
  const height = 48;
  const rgba = Buffer.alloc(width * height * 4);
  for (let y = 0, i = 0; y < height; y++) {
    for (let x = 0; x < width; x++, i += 4) {
      const rows = y >= 8 && y < 40;
      let value = 240;
      if (x >= 2 && x < 8) value = 0;
      else if (rows && x >= 12 && x < 30) value = y % 2 ? 150 : 225;
      else if (rows && x >= 36 && x < 58) value = y % 2 ? 30 : 120;
      rgba.fill(value, i, i + 3);
      rgba[i + 3] = 255;
    }
  }
  return { rgba, width, height };
}

test('hatching a pixel apart is split into its lines before the threshold: light hatching is not lost to the paper', async () => {
  const { rgba, width, height } = hatchedPage();
  const separation = separateInk(rgba, width, height);
  const plain = binariseInk(separation.normalised, width, height, 1, separation.threshold);
  const sharpened = await sharpenHatching(separation.normalised, rgba, width, height);
  const split = binariseInk(sharpened.levels, width, height, 1, sharpened.threshold);
  const inkAt = (binary: Buffer, x: number, y: number) => binary[(y * width + x) * 4] === 0;
  // Thresholded as it is, the light hatching is all paper (a person sees grey lines there).
  for (let y = 8; y < 40; y++) for (let x = 12; x < 30; x++) assert.equal(inkAt(plain, x, y), false, `plain (${x}, ${y})`);
  for (let y = 8; y < 40; y++) {
    for (let x = 12; x < 30; x++) assert.equal(inkAt(split, x, y), y % 2 === 1, `light hatching (${x}, ${y}): its lines ink, its gaps paper`);
    for (let x = 36; x < 58; x++) assert.equal(inkAt(split, x, y), y % 2 === 1, `dense hatching (${x}, ${y}): its gaps stay open`);
  }
  // The solid bar stays ink through and through, and the paper stays paper.
  for (let y = 0; y < height; y++) for (let x = 2; x < 8; x++) assert.ok(inkAt(split, x, y), `bar (${x}, ${y})`);
  for (const [x, y] of [[10, 20], [33, 20], [61, 20], [20, 3], [45, 44]] as const) assert.equal(inkAt(split, x, y), false, `paper (${x}, ${y})`);
});

test('a 1-bit page comes through the hatching step unchanged', async () => {
  const width = 40;
  const height = 30;
  const rgba = Buffer.alloc(width * height * 4, 255);
  // A one-pixel line, a checkerboard patch and a solid block.
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const ink = x === 5 || (x >= 12 && x < 20 && y >= 10 && y < 18 && (x + y) % 2 === 0) || (x >= 26 && x < 34 && y >= 6 && y < 24);
      if (ink) rgba.fill(0, (y * width + x) * 4, (y * width + x) * 4 + 3);
    }
  }
  const separation = separateInk(rgba, width, height);
  const sharpened = await sharpenHatching(separation.normalised, rgba, width, height);
  for (const factor of [1, 2, 4]) {
    const before = binariseInk(separation.normalised, width, height, factor, separation.threshold);
    const after = binariseInk(sharpened.levels, width, height, factor, sharpened.threshold);
    assert.ok(before.equals(after), `the ink at ${factor}× is the same`);
  }
});
