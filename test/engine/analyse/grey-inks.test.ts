import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { levelledTones, neutralLevelsOf, NO_LEVEL } from '../../../src/engine/analyse/grey-inks.ts';
import { separateInk } from '../../../src/engine/analyse/ink.ts';
import { srgbToOklab } from '../../../src/engine/check/oklab.ts';
import { convertImage } from '../../../src/engine/convert.ts';
import { DEFAULT_PARAMS } from '../../../src/engine/params.ts';
import { handwritingPath, renderSvg } from '../fixtures.ts';

const LIMITS = { maxInputPixels: 100_000_000 };
const WIDTH = 640;
const HEIGHT = 320;
const BLACK = '#141414';
const GREY = '#8a8a8a';
/** The rows of each kind of writing: black lines, then grey ones (a code listing's comments, a byline). */
const BLACK_ROWS: [number, number] = [10, 150];
const GREY_ROWS: [number, number] = [170, 310];

/** A digital page: black writing over grey writing, as anti-aliased strokes on white. */
function pageSvg(grey: string): string {
  const lines = (rows: [number, number], seed: number, colour: string, width: number) =>
    `<path d="${handwritingPath({ x: 40, y: rows[0], width: 560, height: rows[1] - rows[0] }, seed, 34)}" fill="none" stroke="${colour}" stroke-width="${width}" stroke-linecap="round"/>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}"><rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>` +
    lines(BLACK_ROWS, 11, BLACK, 2) +
    lines(GREY_ROWS, 12, grey, 1.6) +
    '</svg>'
  );
}

async function page(grey: string): Promise<{ png: Buffer; rgba: Buffer }> {
  const { rgba } = await renderSvg(pageSvg(grey));
  return { rgba, png: await sharp(rgba, { raw: { width: WIDTH, height: HEIGHT, channels: 4 } }).png().toBuffer() };
}

function oklabOf(hex: string): Float32Array {
  const value = parseInt(hex.slice(1), 16);
  const out = new Float32Array(3);
  srgbToOklab(value >> 16, (value >> 8) & 255, value & 255, out, 0);
  return out;
}

/** The mean rendered colour, as Oklab, over the source pixels within 24 levels of `hex` in `rows`. */
function renderedOver(source: Buffer, rendered: Buffer, hex: string, rows: [number, number]): { lab: Float32Array; count: number } {
  const value = parseInt(hex.slice(1), 16);
  const want = [value >> 16, (value >> 8) & 255, value & 255];
  const sums = [0, 0, 0];
  let count = 0;
  for (let y = rows[0]; y < rows[1]; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const i = (y * WIDTH + x) * 4;
      if (want.some((channel, c) => Math.abs((source[i + c] as number) - channel) > 24)) continue;
      for (let c = 0; c < 3; c++) sums[c] = (sums[c] as number) + (rendered[i + c] as number);
      count++;
    }
  }
  const lab = new Float32Array(3);
  srgbToOklab(Math.round((sums[0] as number) / count), Math.round((sums[1] as number) / count), Math.round((sums[2] as number) / count), lab, 0);
  return { lab, count };
}

const distance = (a: Float32Array, b: Float32Array) => Math.hypot((a[0] as number) - (b[0] as number), (a[1] as number) - (b[1] as number), (a[2] as number) - (b[2] as number));

test('a digital page in black and grey has two levels, each piece in its own', async () => {
  const { rgba } = await page(GREY);
  const separation = separateInk(rgba, WIDTH, HEIGHT);
  const levels = neutralLevelsOf(rgba, WIDTH, HEIGHT, separation.normalised);
  assert.ok(levels, 'levels found');
  assert.equal(levels.tones.length, 2);
  const [black, grey] = levels.colours;
  assert.ok(black && black.r < 50, `black level ${JSON.stringify(black)}`);
  assert.ok(grey && Math.abs(grey.r - 0x8a) < 24, `grey level ${JSON.stringify(grey)}`);
  // Every stroke pixel of the black writing is in the black level, of the grey writing in the grey.
  const tally = (rows: [number, number]) => {
    const counts = [0, 0, 0];
    for (let p = rows[0] * WIDTH; p < rows[1] * WIDTH; p++) {
      if ((separation.normalised[p] as number) >= 200) continue;
      const level = levels.levelOf[p] as number;
      counts[level === NO_LEVEL ? 2 : level] = (counts[level === NO_LEVEL ? 2 : level] as number) + 1;
    }
    return counts;
  };
  const [blackInBlack = 0, greyInBlack = 0] = tally(BLACK_ROWS);
  const [blackInGrey = 0, greyInGrey = 0] = tally(GREY_ROWS);
  assert.ok(greyInBlack <= 0.02 * blackInBlack, `black writing in the grey level: ${greyInBlack} of ${blackInBlack}`);
  assert.ok(blackInGrey <= 0.02 * greyInGrey, `grey writing in the black level: ${blackInGrey} of ${greyInGrey}`);
  // The grey level is darkened so that its halfway falls on the threshold; black is left as it was.
  const levelled = levelledTones(separation.normalised, levels, separation.threshold);
  let darker = 0;
  for (let p = 0; p < levelled.length; p++) {
    if (levels.levelOf[p] === 0) assert.equal(levelled[p], separation.normalised[p]);
    if (levels.levelOf[p] === 1 && (levelled[p] as number) < (separation.normalised[p] as number)) darker++;
  }
  assert.ok(darker > 0, 'grey strokes darkened');
});

test('one level is no levels: black writing alone, and grey writing alone', async () => {
  for (const grey of [BLACK, GREY]) {
    const { rgba } = await page(grey);
    // Grey alone: the black lines drawn grey too.
    const only = grey === GREY ? (await renderSvg(pageSvg(GREY).replace(`stroke="${BLACK}"`, `stroke="${GREY}"`))).rgba : rgba;
    assert.equal(neutralLevelsOf(only, WIDTH, HEIGHT, separateInk(only, WIDTH, HEIGHT).normalised), undefined, `writing in ${grey} alone`);
  }
});

test('grey writing beside black is traced grey, the black black', async () => {
  const { rgba, png } = await page(GREY);
  const result = await convertImage({ image: png, params: { ...DEFAULT_PARAMS, mode: 'sketch' } }, LIMITS);
  const rendered = (await renderSvg(result.svg.replace(/width="[^"]*" height="[^"]*"/, `width="${WIDTH}" height="${HEIGHT}"`))).rgba;
  const black = renderedOver(rgba, rendered, BLACK, BLACK_ROWS);
  const grey = renderedOver(rgba, rendered, GREY, GREY_ROWS);
  assert.ok(black.count > 500 && grey.count > 500, `pixels measured: ${black.count}, ${grey.count}`);
  // Before, both were painted in the one neutral ink, their mean (a dark grey): grey 0.2 away from its own.
  assert.ok(distance(black.lab, oklabOf(BLACK)) < 0.08, `black drawn ${Array.from(black.lab).map((v) => v.toFixed(3))}`);
  assert.ok(distance(grey.lab, oklabOf(GREY)) < 0.08, `grey drawn ${Array.from(grey.lab).map((v) => v.toFixed(3))}`);
  assert.equal(result.check.attempts.length, 1, 'black and grey alone ask no retrace as artwork');
});

/**
 * Rows of glyphs: rings (wide, reaching their ink's full tone) with a bar one pixel wide beside
 * each, centred on a pixel edge so that it covers two columns by half (a 13 px l or i, never
 * darker than half its ink).
 */
function glyphRowsSvg(rows: { top: number; colour: string }[]): string {
  const glyphs = rows.map(({ top, colour }) => {
    let row = '';
    for (let x = 40; x < WIDTH - 40; x += 24) {
      row += `<circle cx="${x + 6}" cy="${top + 7}" r="5" fill="none" stroke="${colour}" stroke-width="2.5"/>`;
      row += `<rect x="${x + 15.5}" y="${top}" width="1" height="14" fill="${colour}"/>`;
    }
    return row;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}"><rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>${glyphs.join('')}</svg>`;
}

test('a thin glyph takes the level of the wider glyphs beside it, not of its own grey darkest pixel', async () => {
  const blackTops = [20, 60, 100, 140];
  const greyTops = [180, 220, 260];
  const { rgba } = await renderSvg(glyphRowsSvg([...blackTops.map((top) => ({ top, colour: BLACK })), ...greyTops.map((top) => ({ top, colour: GREY }))]));
  const separation = separateInk(rgba, WIDTH, HEIGHT);
  const levels = neutralLevelsOf(rgba, WIDTH, HEIGHT, separation.normalised);
  assert.ok(levels, 'levels found');
  assert.equal(levels.tones.length, 2);
  // The bars' pixels, by the level they are given: a black bar is at most half black, as grey as the grey rings.
  const bars = (tops: number[]) => {
    const counts = new Map<number, number>();
    let darkest = 255;
    for (const top of tops) {
      for (let x = 40; x < WIDTH - 40; x += 24) {
        for (let y = top + 2; y < top + 12; y++) {
          for (const column of [x + 15, x + 16]) {
            const p = y * WIDTH + column;
            darkest = Math.min(darkest, separation.normalised[p] as number);
            counts.set(levels.levelOf[p] as number, (counts.get(levels.levelOf[p] as number) ?? 0) + 1);
          }
        }
      }
    }
    return { counts, darkest };
  };
  const black = bars(blackTops);
  const grey = bars(greyTops);
  assert.ok(Math.abs(black.darkest - (levels.tones[1] as number)) < Math.abs(black.darkest - (levels.tones[0] as number)), `a black bar's darkest tone ${black.darkest} is nearer the grey level's (${levels.tones.map(Math.round)})`);
  assert.deepEqual([...black.counts.keys()], [0], `black bars' levels ${JSON.stringify([...black.counts])}`);
  assert.deepEqual([...grey.counts.keys()], [1], `grey bars' levels ${JSON.stringify([...grey.counts])}`);
  // The grey bars are darkened with their level's other strokes, so the page's threshold keeps them.
  const levelled = levelledTones(separation.normalised, levels, separation.threshold);
  const barPixel = (greyTops[0] as number) * WIDTH + WIDTH * 6 + 55;
  assert.ok((levelled[barPixel] as number) < separation.threshold, `a grey bar's pixel ${separation.normalised[barPixel]} → ${levelled[barPixel]}, threshold ${separation.threshold}`);
});

test('a light rule beside grey writing is no letter of it: it keeps its own tone', async () => {
  // The grey rows of glyphs, and a light grey vertical rule a pixel wide down their right side.
  const greyTops = [180, 220, 260];
  const rows = glyphRowsSvg([20, 60, 100, 140].map((top) => ({ top, colour: BLACK })).concat(greyTops.map((top) => ({ top, colour: GREY }))));
  const svg = rows.replace('</svg>', `<rect x="${WIDTH - 24}" y="170" width="1" height="120" fill="#c0c0c0"/></svg>`);
  const { rgba } = await renderSvg(svg);
  const separation = separateInk(rgba, WIDTH, HEIGHT);
  const levels = neutralLevelsOf(rgba, WIDTH, HEIGHT, separation.normalised);
  assert.ok(levels, 'levels found');
  const levelled = levelledTones(separation.normalised, levels, separation.threshold);
  const rulePixel = 230 * WIDTH + WIDTH - 24;
  assert.ok((separation.normalised[rulePixel] as number) < 235, 'the rule is ink');
  assert.equal(levelled[rulePixel], separation.normalised[rulePixel], 'the rule is not darkened as grey writing');
});
