import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { convertImage } from '../../../src/engine/convert.ts';
import { DEFAULT_PARAMS } from '../../../src/engine/params.ts';
import { ColorMode, type Config } from '@neplex/vectorizer';
import { flat } from '../../../src/engine/geometry.ts';
import { paperIslandsOf, traceInkAgain } from '../../../src/engine/trace/line-art.ts';
import { parseTracerSvg } from '../../../src/engine/trace/tracer-output.ts';
import { buildTracerConfig, runTracer } from '../../../src/engine/trace/vtracer.ts';
import { writeSvgDocument } from '../../../src/engine/write/svg.ts';
import { corpusImage } from '../corpus.ts';

const LIMITS = { maxInputPixels: 100_000_000 };

/** Of the source's ink pixels (luma < 128), the share whose ink/paper the rendered SVG gets wrong, counted over the whole page. */
async function wrongInkShare(source: Buffer, svg: string): Promise<number> {
  const { data, info } = await sharp(source).greyscale().raw().toBuffer({ resolveWithObject: true });
  const rendered = new Resvg(svg, { fitTo: { mode: 'width', value: info.width }, background: 'white' }).render().pixels;
  let ink = 0;
  let wrong = 0;
  for (let i = 0; i < info.width * info.height; i++) {
    const isInk = (data[i] as number) < 128;
    if (isInk) ink++;
    if (isInk !== (rendered[i * 4 + 1] as number) < 128) wrong++;
  }
  return wrong / ink;
}

test('ink on its own pixel grid keeps its ragged edge: the 11.5 MP typed page (1-bit) is followed pixel for pixel', async () => {
  // Traced at its own size (too large to upscale), VTracer's staircase removal cut off the
  // one-pixel bumps of the type and got 9.9 % of the ink wrong; fitted from the exact outlines, 7.5 %.
  const source = corpusImage('document/typewriter_text_4000x2864_1bit.png');
  const result = await convertImage({ image: source, params: { ...DEFAULT_PARAMS } }, LIMITS);
  assert.equal(result.chosen.mode, 'sketch');
  assert.equal(result.chosen.curveMode, 'spline');
  assert.match(result.svg, /c-?[.\d]/, 'outlines are curves, not pixel steps');
  const share = await wrongInkShare(source, result.svg);
  assert.ok(share < 0.085, `ink pixels wrong: ${(share * 100).toFixed(2)} %`);
});

test('ink whose pixels touch only at corners (diagonal hatching a pixel wide) is traced, not refused', async () => {
  // VTracer's binary mode fails outright on this page of 1-pixel diagonal lines; the engine joins
  // the corner contacts and traces again (line-art.ts, joinDiagonalInk).
  const size = 1000;
  const pixels = Buffer.alloc(size * size * 3, 255);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) if ((((x - y) % 7) + 7) % 7 === 0) pixels.fill(0, (y * size + x) * 3, (y * size + x) * 3 + 3);
  }
  const image = await sharp(pixels, { raw: { width: size, height: size, channels: 3 } }).png().toBuffer();
  const result = await convertImage({ image, params: { ...DEFAULT_PARAMS, mode: 'sketch' } }, LIMITS);
  assert.equal(result.chosen.mode, 'sketch');
  const rendered = new Resvg(result.svg, { fitTo: { mode: 'width', value: size }, background: 'white' }).render().pixels;
  let dark = 0;
  for (let i = 0; i < size * size; i++) if ((rendered[i * 4 + 1] as number) < 128) dark++;
  // A seventh of the page is ink; joining the corners adds at most as much again.
  assert.ok(dark > size * size * 0.1 && dark < size * size * 0.35, `ink share ${(dark / (size * size)).toFixed(3)}`);
});

test('where the binary mode fails even with its corners joined, the colour mode draws the ink, its holes painted as paper', async () => {
  // A ring with a dot in its hole, and a bar, black on white, as binariseInk writes them.
  const size = 64;
  const rgba = Buffer.alloc(size * size * 4, 255);
  const inkAt = (x: number, y: number): boolean => {
    const r = Math.hypot(x + 0.5 - 24, y + 0.5 - 24);
    return (r >= 10 && r <= 16) || r <= 4 || (x >= 46 && x < 52 && y >= 8 && y < 56);
  };
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) if (inkAt(x, y)) rgba.fill(0, (y * size + x) * 4, (y * size + x) * 4 + 3);
  const config = buildTracerConfig(DEFAULT_PARAMS, { kind: 'sketch', curveMode: 'spline', workingScale: 1 });
  const modes: ColorMode[] = [];
  const binaryFails = (image: Buffer, width: number, height: number, used: Config): Promise<string> => {
    modes.push(used.colorMode as ColorMode);
    return used.colorMode === ColorMode.Binary ? Promise.reject(new Error('Unknown error occurred')) : runTracer(image, width, height, used);
  };
  const traced = await traceInkAgain(rgba, size, size, config, binaryFails);
  assert.deepEqual(modes, [ColorMode.Binary, ColorMode.Color], 'the joined ink in binary mode first, then the colour mode');
  assert.equal(traced.inColour, true);
  const shapes = parseTracerSvg(traced.svg);
  const islands = paperIslandsOf(shapes);
  assert.ok(islands.size > 0, 'the ring’s hole is among the shapes');
  for (const shape of shapes) shape.fill = flat(islands.has(shape) ? { r: 255, g: 255, b: 255 } : { r: 0, g: 0, b: 0 });
  const { svg } = writeSvgDocument({ width: size, height: size, scaleX: 1, scaleY: 1, background: { r: 255, g: 255, b: 255 }, shapes }, 2);
  const rendered = new Resvg(svg, { fitTo: { mode: 'width', value: size }, background: 'white' }).render().pixels;
  let wrong = 0;
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) if (((rendered[(y * size + x) * 4 + 1] as number) < 128) !== inkAt(x, y)) wrong++;
  // Outlines fitted to curves differ from the pixels along the edges only.
  assert.ok(wrong < size * size * 0.03, `${wrong} pixels wrong`);
  for (const [x, y, ink] of [[24, 24, true], [24, 16, false], [24, 11, true], [40, 40, false], [48, 30, true]] as const) {
    assert.equal((rendered[(y * size + x) * 4 + 1] as number) < 128, ink, `(${x}, ${y}) ${ink ? 'ink' : 'paper'}`);
  }
});
