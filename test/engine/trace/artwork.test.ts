// The artwork path on drawn fixtures whose truth is known: gradients come back as gradients and
// flat colours as flat ones, edges land where the anti-aliasing puts them, thin lines and gaps
// survive, straight edges stay straight and corners stay corners.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { convertImage } from '../../../src/engine/convert.ts';
import { artworkGrid, labelColours, SECOND_OPINION_SEGMENT_PIXELS, SEGMENT_PIXELS, traceLabels } from '../../../src/engine/trace/artwork.ts';
import { regionMapTracerConfig } from '../../../src/engine/trace/vtracer.ts';
import type { RegionPaint } from '../../../src/engine/paint/gradient.ts';
import { segmentationOf } from '../fixtures.ts';
import { DEFAULT_PARAMS } from '../../../src/engine/params.ts';

const LIMITS = { maxInputPixels: 100_000_000, kind: 'logo' as const };

/** An RGBA image drawn by a coverage function: (x, y) of the pixel's centre → [r, g, b, a] or null, supersampled 8×8. */
async function drawn(width: number, height: number, paint: (x: number, y: number) => [number, number, number, number] | null): Promise<Buffer> {
  const rgba = Buffer.alloc(width * height * 4);
  const samples = 8;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const sum = [0, 0, 0, 0];
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const colour = paint(x + (sx + 0.5) / samples, y + (sy + 0.5) / samples);
          if (!colour) continue;
          const a = colour[3] / 255;
          for (let c = 0; c < 3; c++) sum[c] = (sum[c] as number) + (colour[c] as number) * a;
          sum[3] = (sum[3] as number) + a;
        }
      }
      const coverage = (sum[3] as number) / (samples * samples);
      const i = (y * width + x) * 4;
      if (coverage > 0) for (let c = 0; c < 3; c++) rgba[i + c] = Math.round((sum[c] as number) / (sum[3] as number));
      rgba[i + 3] = Math.round(coverage * 255);
    }
  }
  return sharp(rgba, { raw: { width, height, channels: 4 } }).png().toBuffer();
}

async function traced(image: Buffer) {
  return convertImage({ image, params: { ...DEFAULT_PARAMS } }, LIMITS);
}

function render(svg: string, width: number, background = '#ffffff'): { pixels: Buffer; width: number; height: number } {
  const rendered = new Resvg(svg, { fitTo: { mode: 'width', value: width }, background }).render();
  return { pixels: rendered.pixels, width: rendered.width, height: rendered.height };
}

function luma(pixels: Buffer, width: number, x: number, y: number): number {
  const i = (y * width + x) * 4;
  return 0.299 * (pixels[i] as number) + 0.587 * (pixels[i + 1] as number) + 0.114 * (pixels[i + 2] as number);
}

test('a smooth ramp is filled with a linear gradient, a flat patch beside it with one colour', async () => {
  const image = await drawn(128, 96, (x, y) => {
    if (x >= 8 && x < 72 && y >= 8 && y < 88) return [40 + Math.round(((x - 8) / 64) * 200), 80, 200 - Math.round(((x - 8) / 64) * 150), 255];
    if (x >= 84 && x < 120 && y >= 20 && y < 76) return [230, 120, 20, 255];
    return null;
  });
  const { svg } = await traced(image);
  const gradients = [...svg.matchAll(/<linearGradient id="(g\d+)"[^>]*x1="([\d.]+)"[^>]*x2="([\d.]+)"/g)];
  assert.equal(gradients.length, 1, svg);
  const [, , x1, x2] = gradients[0] as RegExpMatchArray;
  assert.ok(Math.abs(Number(x2) - Number(x1)) > 50, 'the gradient runs across the ramp, left to right');
  assert.match(svg, /fill="#e67814"/, 'the flat patch keeps its exact colour');
  // The picture is the ramp: no bands (each column's colour follows the ramp within a few levels).
  const { pixels, width } = render(svg, 128);
  for (let x = 12; x < 68; x += 4) {
    const expected = 40 + ((x + 0.5 - 8) / 64) * 200;
    assert.ok(Math.abs((pixels[(48 * width + x) * 4] as number) - expected) <= 6, `red at column ${x}`);
  }
});

test('a round blob lit from its centre is filled with a radial gradient', async () => {
  const image = await drawn(96, 96, (x, y) => {
    const r = Math.hypot(x - 48, y - 48);
    if (r > 40) return null;
    const t = r / 40;
    return [Math.round(250 - 150 * t), Math.round(220 - 170 * t), 60, 255];
  });
  const { svg } = await traced(image);
  assert.match(svg, /<radialGradient id="g0"[^>]*cx="4[6-9](\.\d+)?" cy="4[6-9](\.\d+)?"/, svg.slice(0, 600));
  assert.match(svg, /fill="url\(#g0\)"/);
});

test('gradients render the same in resvg and in Chromium', async (t) => {
  const { chromiumSkip, launchBrowser } = await import('../../helpers/browser.ts');
  const skip = chromiumSkip();
  if (skip) {
    t.skip(skip);
    return;
  }
  const image = await drawn(96, 96, (x, y) => {
    const r = Math.hypot(x - 40, y - 40);
    if (x > 8 && x < 88 && y > 8 && y < 88 && r > 30) return [20, Math.round(60 + 2 * y), 160, 255];
    if (r <= 30) return [Math.round(255 - 4 * r), 200, 40, 255];
    return null;
  });
  const { svg } = await traced(image);
  assert.match(svg, /Gradient id="g\d+"/);
  const size = 288;
  const fromResvg = render(svg, size);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    const sized = svg.replace(/ width="\d+" height="\d+"/, ` width="${size}" height="${size}"`);
    await page.setContent(`<html><body style="margin:0;background:#fff">${sized}</body></html>`);
    const shot = await page.screenshot({ clip: { x: 0, y: 0, width: size, height: size } });
    const fromChromium = await sharp(shot).ensureAlpha().raw().toBuffer();
    let difference = 0;
    for (let i = 0; i < fromChromium.length; i += 4) {
      for (let c = 0; c < 3; c++) difference += Math.abs((fromChromium[i + c] as number) - (fromResvg.pixels[i + c] as number));
    }
    const mean = difference / ((fromChromium.length / 4) * 3);
    assert.ok(mean < 2, `mean difference ${mean.toFixed(2)} levels`);
  } finally {
    await browser.close();
  }
});

test('edges land at the sub-pixel position the anti-aliasing gives', async () => {
  // A bar whose left edge is at x = 10.3 and right edge at 30.7, over 16 px: traced and shown at 10×.
  const image = await drawn(40, 16, (x) => (x >= 10.3 && x < 30.7 ? [20, 20, 20, 255] : [250, 250, 250, 255]));
  const { svg } = await traced(image);
  const { pixels, width } = render(svg, 400);
  const row = 80;
  const crossing = (from: number, to: number) => {
    for (let x = from; x !== to; x += Math.sign(to - from)) if (luma(pixels, width, x, row) < 135) return x;
    return -1;
  };
  const left = crossing(0, 399) / 10;
  const right = (crossing(399, 0) + 1) / 10;
  assert.ok(Math.abs(left - 10.3) <= 0.15, `left edge at ${left}`);
  assert.ok(Math.abs(right - 30.7) <= 0.15, `right edge at ${right}`);
});

test('a line and a gap one pixel wide survive', async () => {
  const image = await drawn(64, 48, (x, y) => {
    if (y >= 8 && y < 40 && x >= 10 && x < 11) return [10, 10, 10, 255]; // a dark line 1 px wide
    if (y >= 8 && y < 40 && ((x >= 30 && x < 44) || (x >= 45 && x < 58))) return [200, 30, 30, 255]; // two blocks 1 px apart
    return [250, 250, 250, 255];
  });
  const { svg } = await traced(image);
  const { pixels, width } = render(svg, 512);
  const scale = 8;
  for (const y of [12, 24, 36]) {
    assert.ok(luma(pixels, width, Math.round(10.5 * scale), y * scale) < 100, `the line at row ${y}`);
    assert.ok(luma(pixels, width, Math.round(44.5 * scale), y * scale) > 180, `the gap at row ${y}`);
    assert.ok(luma(pixels, width, Math.round(37 * scale), y * scale) < 120, `the block at row ${y}`);
  }
});

test('a frame a pixel wide along a silhouette stays a frame, in its own colour', async () => {
  // A light card with a grey border on transparency, the border straddling pixels (as a 48-unit
  // icon drawn at 128 px puts it): its pixels are partly transparent grey, not the card's colour.
  const image = await drawn(64, 64, (x, y) => {
    if (x < 8.4 || x > 55.6 || y < 8.4 || y > 55.6) return null;
    if (x < 9.6 || x > 54.4 || y < 9.6 || y > 54.4) return [150, 150, 150, 255];
    return [240, 240, 240, 255];
  });
  const { svg } = await traced(image);
  const scale = 8;
  // On black, so the border is told from the transparency around it as well as from the card.
  const { pixels, width } = render(svg, 64 * scale, '#000000');
  for (const at of [20, 32, 44]) {
    for (const [x, y, side] of [[9, at, 'left'], [at, 9, 'top'], [55, at, 'right'], [at, 55, 'bottom']] as const) {
      const value = luma(pixels, width, Math.round(x * scale), Math.round(y * scale));
      assert.ok(value > 110 && value < 190, `the ${side} border at ${at}: luma ${value.toFixed(0)}`);
    }
    assert.ok(luma(pixels, width, 32 * scale, at * scale) > 225, `the card at ${at}`);
  }
});

test('a faint dark fringe left by resampling is not drawn as a line', async () => {
  // A grey card whose silhouette carries a halo an eighth opaque and much darker than the card.
  const rgba = Buffer.alloc(48 * 48 * 4);
  for (let y = 7; y < 41; y++) {
    for (let x = 7; x < 41; x++) {
      const i = (y * 48 + x) * 4;
      const fringe = x === 7 || x === 40 || y === 7 || y === 40;
      rgba.fill(fringe ? 32 : 128, i, i + 3);
      rgba[i + 3] = fringe ? 32 : 255;
    }
  }
  const { svg } = await traced(await sharp(rgba, { raw: { width: 48, height: 48, channels: 4 } }).png().toBuffer());
  const scale = 8;
  const { pixels, width } = render(svg, 48 * scale);
  for (const at of [16, 24, 32]) {
    for (const [x, y, side] of [[7.5, at, 'left'], [at, 7.5, 'top'], [40.5, at, 'right'], [at, 40.5, 'bottom']] as const) {
      const value = luma(pixels, width, Math.round(x * scale), Math.round(y * scale));
      assert.ok(value > 110, `the ${side} edge at ${at}: luma ${value.toFixed(0)}`);
    }
  }
});

test('translucent regions lie side by side: a translucent disc inside a translucent square does not show the square through it', async () => {
  // A blue square at half opacity holding a red disc at half opacity, on transparency (a glass
  // highlight on a shadow). Stacked, the square's shape would run under the disc: purple, and
  // three quarters opaque there.
  const image = await drawn(64, 64, (x, y) => {
    if (Math.hypot(x - 32, y - 32) < 12) return [220, 30, 30, 128];
    return x > 8 && x < 56 && y > 8 && y < 56 ? [30, 30, 220, 128] : null;
  });
  const { svg } = await traced(image);
  const { pixels, width } = render(svg, 64 * 4, 'rgba(0, 0, 0, 0)');
  const at = (x: number, y: number) => {
    // resvg's pixels are premultiplied: straight colour is colour ÷ alpha.
    const i = (y * 4 * width + x * 4) * 4;
    const a = pixels[i + 3] as number;
    const straight = (c: number) => (a === 0 ? 0 : ((pixels[i + c] as number) * 255) / a);
    return { r: straight(0), b: straight(2), a };
  };
  for (const [x, y] of [[32, 32], [28, 34], [36, 30]] as const) {
    const disc = at(x, y);
    assert.ok(Math.abs(disc.a - 128) <= 24, `disc at ${x},${y}: alpha ${disc.a}`);
    assert.ok(disc.b < 80 && disc.r > 120, `disc at ${x},${y}: red ${disc.r.toFixed(0)}, blue ${disc.b.toFixed(0)}`);
  }
  const square = at(14, 14);
  assert.ok(Math.abs(square.a - 128) <= 24 && square.b > 120, `square: alpha ${square.a}, blue ${square.b.toFixed(0)}`);
});

test('translucent regions too many to trace alone are cut apart: none shows another through itself', async () => {
  // A faint ground over the whole image under concentric translucent rings of alternating hues
  // (an icon inside a glow): their boxes add up to more than the budget for tracing each alone,
  // so they are traced together. Stacked, each ring's shape would run under the rings inside it
  // and the ground under all of them: darker, more opaque, the hues mixed.
  const hues: [number, number, number][] = [[220, 40, 40], [40, 60, 220], [40, 180, 60], [230, 200, 30]];
  const ringOf = (x: number, y: number) => Math.floor(Math.hypot(x - 48, y - 48) / 4);
  const image = await drawn(96, 96, (x, y) => {
    const ring = ringOf(x, y);
    if (ring < 11) return [...(hues[ring % hues.length] as [number, number, number]), 150];
    return [255, 180, 180, 50];
  });
  // The first trace itself, not a retrace the check might choose.
  const { svg } = await convertImage({ image, params: { ...DEFAULT_PARAMS } }, { ...LIMITS, noRetrace: true });
  const { pixels, width } = render(svg, 96 * 4, 'rgba(0, 0, 0, 0)');
  const at = (x: number, y: number) => {
    const i = (Math.round(y * 4) * width + Math.round(x * 4)) * 4;
    const a = pixels[i + 3] as number;
    const straight = (c: number) => (a === 0 ? 0 : ((pixels[i + c] as number) * 255) / a);
    return { rgb: [straight(0), straight(1), straight(2)], a };
  };
  for (let ring = 1; ring < 11; ring++) {
    // The middle of each ring, on its right: the ring's own hue at its own opacity.
    const drawnAt = at(48 + ring * 4 + 2, 48);
    const hue = hues[ring % hues.length] as [number, number, number];
    assert.ok(Math.abs(drawnAt.a - 150) <= 24, `ring ${ring}: alpha ${drawnAt.a}`);
    const off = Math.max(...hue.map((c, i) => Math.abs(c - (drawnAt.rgb[i] as number))));
    assert.ok(off <= 40, `ring ${ring}: ${drawnAt.rgb.map((c) => c.toFixed(0)).join(', ')} for ${hue.join(', ')}`);
  }
  const ground = at(4, 4);
  assert.ok(Math.abs(ground.a - 50) <= 16, `ground: alpha ${ground.a}`);
});

test('regions of one colour are told apart by colours beside their own: a second white stays near white', () => {
  // Black, then three white stripes and two of a full blue: every region gets its own colour,
  // each channel within a few levels of its mean (counting up through the word carried a second
  // white over into black, and a second full blue into green).
  const colours: [number, number, number, number][] = [[0, 0, 0, 255], [255, 255, 255, 255], [255, 255, 255, 255], [255, 255, 255, 255], [20, 40, 255, 255], [20, 40, 255, 255]];
  const segmentation = segmentationOf(12, 6, (x, y) => [y, colours[y] as [number, number, number, number]]);
  const words = labelColours(segmentation);
  assert.equal(new Set(words).size, words.length, 'one colour per region');
  words.forEach((word, region) => {
    const mean = colours[region] as [number, number, number, number];
    const off = Math.max(Math.abs((word >> 16) - mean[0]), Math.abs(((word >> 8) & 0xff) - mean[1]), Math.abs((word & 0xff) - mean[2]));
    assert.ok(off <= 2, `region ${region}: ${word.toString(16).padStart(6, '0')} for ${mean.slice(0, 3).join(', ')}`);
  });
});

test('a small flag keeps both white stripes in its black frame', async () => {
  // 29 × 20 in a black frame a pixel wide: red and white at the top, then green, white, green,
  // white, green. The second white stripe, which touches the frame, took black's colour and
  // vanished into it.
  const rows = ['red', 'red', 'red', 'white', 'white', 'green', 'green', 'green', 'white', 'white', 'green', 'green', 'green', 'white', 'white', 'green', 'green', 'green'];
  const paint: Record<string, [number, number, number, number]> = { red: [230, 30, 40, 255], white: [255, 255, 255, 255], green: [0, 136, 0, 255] };
  const image = await drawn(29, 20, (x, y) => {
    if (x < 1 || x >= 28 || y < 1 || y >= 19) return [0, 0, 0, 255];
    return paint[rows[Math.floor(y) - 1] as string] as [number, number, number, number];
  });
  const { svg } = await convertImage({ image, params: { ...DEFAULT_PARAMS } }, { ...LIMITS, noRetrace: true });
  const { pixels, width } = render(svg, 29 * 8);
  for (const row of [4.5, 9.5, 14.5]) assert.ok(luma(pixels, width, 14 * 8, Math.round(row * 8)) > 220, `the white stripe at row ${row}: luma ${luma(pixels, width, 14 * 8, Math.round(row * 8)).toFixed(0)}`);
});

test('a region the tracer folds into its neighbour is still drawn: the grey bands of an Ionic capital stay grey', async () => {
  // Clip art on transparency: black outlines, light and mid-grey fills (test/engine/trace/fixtures).
  // The tracer's clustering merged the mid-grey volute bands into the black outlines and drew one
  // dark shape for both: two thirds of the grey came back nearly black.
  const image = readFileSync(new URL('./fixtures/ionic-capital.png', import.meta.url));
  const { svg } = await convertImage({ image, params: { ...DEFAULT_PARAMS } }, { ...LIMITS, noRetrace: true });
  const { pixels } = render(svg, 277);
  const { data } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  let grey = 0;
  let dark = 0;
  for (let i = 0; i < data.length; i += 4) {
    if ((data[i + 3] as number) < 255 || (data[i] as number) <= 100 || (data[i] as number) >= 140) continue;
    grey++;
    if ((pixels[i] as number) < 70) dark++;
  }
  assert.ok(grey > 3000, `mid-grey pixels in the source: ${grey}`);
  assert.ok(dark / grey < 0.05, `mid-grey pixels drawn dark: ${((100 * dark) / grey).toFixed(1)} %`);
});

test('regions the tracer joins into one shape each keep their own gradient: a button keeps its highlight strip', async () => {
  // A 400 × 50 game button (unseen set): a body lit top to bottom and a light strip across its
  // top, both of one mean colour. Their label colours were a level apart, the tracer drew one
  // shape for both with the body's gradient, and the strip was gone. Here the two regions are
  // given one colour, which is what the tracer's fold amounts to.
  const width = 60;
  const height = 30;
  const labels = new Int32Array(width * height);
  for (let y = 6; y < 11; y++) for (let x = 6; x < 54; x++) labels[y * width + x] = 1;
  const colours = Uint32Array.of(0xbdcadf, 0xbdcadf);
  const stop = (offset: number, r: number, g: number, b: number) => ({ offset, color: { r, g, b }, opacity: 1 });
  const paints: RegionPaint[] = [
    { fill: { kind: 'linear', x1: 0, y1: 0, x2: 0, y2: height, stops: [stop(0, 150, 170, 210), stop(1, 225, 230, 242)] }, opacity: 1 },
    { fill: { kind: 'linear', x1: 6, y1: 0, x2: 54, y2: 0, stops: [stop(0, 200, 210, 232), stop(1, 180, 195, 225)] }, opacity: 1 },
  ];
  const shapes = await traceLabels(labels, width, height, colours, paints, regionMapTracerConfig({ ...DEFAULT_PARAMS }, 'spline', 1));
  for (const [region, paint] of paints.entries()) assert.ok(shapes.some((shape) => shape.fill === paint.fill), `a shape painted with region ${region}'s gradient`);
});

test('a square stays a square (straight sides, sharp corners) and a disc stays round', async () => {
  const image = await drawn(96, 64, (x, y) => {
    if (x >= 8.4 && x < 40.4 && y >= 16.2 && y < 48.2) return [30, 90, 200, 255];
    if (Math.hypot(x - 68, y - 32) < 20) return [200, 60, 30, 255];
    return null;
  });
  const { svg } = await traced(image);
  const square = /<path d="([^"]+)" fill="#1e5ac8"\/>/.exec(svg)?.[1];
  assert.ok(square, svg);
  assert.doesNotMatch(square, /[cC]/, `the square's sides are straight: ${square}`);
  assert.ok((square.match(/[lhvLHV]/g) ?? []).length <= 4, `four sides: ${square}`);
  // Both shapes cover what they cover in the drawing, corners included.
  const { pixels, width } = render(svg, 960, '#ffffff');
  const inside = (x: number, y: number) => luma(pixels, width, Math.round(x * 10), Math.round(y * 10)) < 200;
  assert.ok(inside(8.7, 16.5) && inside(40.1, 16.5) && inside(8.7, 47.9) && inside(40.1, 47.9), 'the corners are filled');
  let wrong = 0;
  let total = 0;
  for (let y = 10.05; y < 54; y += 0.5) {
    for (let x = 46.05; x < 90; x += 0.5) {
      const r = Math.hypot(x - 68, y - 32);
      if (Math.abs(r - 20) < 0.3) continue;
      total++;
      if (inside(x, y) !== r < 20) wrong++;
    }
  }
  assert.ok(wrong / total < 0.01, `the disc differs from a circle at ${((wrong / total) * 100).toFixed(2)} % of the points`);
});

test('artwork of up to 0.4 MP is segmented at its own pixels and traced twice as fine; a second opinion and larger artwork on reduced grids', () => {
  assert.deepEqual(artworkGrid(720, 474), { width: 720, height: 474, factor: 2, icon: false });
  assert.deepEqual(artworkGrid(512, 512), { width: 512, height: 512, factor: 2, icon: false });
  // Reduced grids hold the budget up to the rounding of their sides.
  const within = (grid: { width: number; height: number }, pixels: number) => grid.width * grid.height <= pixels * 1.01;
  const large = artworkGrid(1400, 980);
  assert.ok(within(large, SEGMENT_PIXELS) && large.width < 1400 && large.factor === 2, JSON.stringify(large));
  const second = artworkGrid(720, 474, SECOND_OPINION_SEGMENT_PIXELS);
  assert.ok(within(second, SECOND_OPINION_SEGMENT_PIXELS) && second.width < 720 && second.factor >= 2, JSON.stringify(second));
});

test('a line a pixel wide survives in artwork of 0.24 MP, segmented at its own pixels', async () => {
  // 600 × 400 with a shaded disc: segmented at its own size and traced only twice as fine, where
  // the line is a region 2 traced pixels wide.
  const width = 600;
  const drawing = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="400">
    <defs><radialGradient id="r"><stop offset="0" stop-color="#fd8"/><stop offset="1" stop-color="#c40"/></radialGradient></defs>
    <rect width="${width}" height="400" fill="#f4f4f4"/>
    <circle cx="420" cy="200" r="170" fill="url(#r)"/>
    <rect x="40" y="40" width="1" height="320" fill="#101010"/>
    <rect x="80" y="40" width="60" height="320" fill="#c02020"/>
    <rect x="141" y="40" width="60" height="320" fill="#c02020"/>
  </svg>`;
  const image = Buffer.from(new Resvg(drawing).render().asPng());
  const { svg } = await traced(image);
  const { pixels } = render(svg, width);
  for (const y of [60, 200, 340]) {
    assert.ok(luma(pixels, width, 40, y) < 160, `the line at row ${y}: ${luma(pixels, width, 40, y)}`);
    assert.ok(luma(pixels, width, 140, y) > 200, `the gap at row ${y}`);
    assert.ok(luma(pixels, width, 110, y) < 120, `the block at row ${y}`);
  }
});

test('an icon\'s outline and the highlight inside it, each a pixel wide, keep their place at 4×', async () => {
  // A 128 px icon drawn on the pixel grid, as icon sets are: a dark outline a pixel wide and a
  // light highlight a pixel wide inside it, around a dark fill. Traced for 512 px, the highlight
  // came out a quarter of a pixel low along the top and a quarter wider (the tracer's polygons
  // run a side through the notches at its corners, and pixels where three regions meet were
  // placed on the resampled image alone).
  const icon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 128 128" width="128" height="128">
    <rect x="12" y="12" width="104" height="104" rx="8" fill="#1d1e35"/>
    <rect x="12.5" y="12.5" width="103" height="103" rx="7.5" fill="none" stroke="#0a0c12" stroke-width="1"/>
    <rect x="13.5" y="13.5" width="101" height="101" rx="6.5" fill="none" stroke="#8a8ba8" stroke-width="1"/>
  </svg>`;
  const { svg } = await traced(Buffer.from(new Resvg(icon).render().asPng()));
  const { pixels, width } = render(svg, 512);
  const rows = (from: number, to: number, test: (value: number) => boolean): number[] => {
    const found: number[] = [];
    for (let y = from; y <= to; y++) if (test(luma(pixels, width, 256, y))) found.push(y);
    return found;
  };
  const highlight = (value: number) => value > 100 && value < 200;
  const outline = (value: number) => value < 22;
  // Rows 12 and 115 of the icon are its outline, 13 and 114 its highlight: 4 rows each at 512 px.
  assert.deepEqual(rows(40, 70, highlight), [52, 53, 54, 55], 'the highlight along the top');
  assert.deepEqual(rows(440, 470, highlight), [456, 457, 458, 459], 'the highlight along the bottom');
  const top = rows(40, 70, outline);
  const bottom = rows(440, 470, outline);
  assert.ok(top.every((y) => y >= 48 && y <= 51) && top.length >= 3, `the outline along the top: rows ${top.join(', ')}`);
  assert.ok(bottom.every((y) => y >= 460 && y <= 463) && bottom.length >= 3, `the outline along the bottom: rows ${bottom.join(', ')}`);
});
