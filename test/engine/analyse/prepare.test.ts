import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { countBoundaries, countRegions, DENSE_ARTWORK_GROWTH, fitToPixels, mergeSpecks, prepareForTracer, prepareWithinBudget, splitTranslucentPixels, WORKING_PIXELS } from '../../../src/engine/analyse/prepare.ts';
import { croppedSvg, renderSvg as renderOnClear } from '../../../src/engine/check/render.ts';
import { convertImage } from '../../../src/engine/convert.ts';
import { DEFAULT_PARAMS } from '../../../src/engine/params.ts';
import { renderSvg, ssimOf } from '../../helpers/renderers.ts';
import { corpusImage } from '../corpus.ts';

/** An RGBA image from rows of letters, one colour per letter. */
function image(rows: string[]): { rgba: Buffer; width: number; height: number } {
  const width = rows[0]?.length ?? 0;
  const rgba = Buffer.alloc(width * rows.length * 4);
  rows.forEach((row, y) => {
    for (let x = 0; x < width; x++) rgba.writeUInt32LE((row.charCodeAt(x) | 0xff000000) >>> 0, (y * width + x) * 4);
  });
  return { rgba, width, height: rows.length };
}

test('countRegions counts 4-connected areas of one colour', () => {
  const picture = image(['aab', 'bab', 'bba']);
  // a: the top-left L of three pixels, and the lone corner; b: the right column, and the lower-left L.
  assert.equal(countRegions(picture.rgba, picture.width, picture.height), 4);
  const flat = image(['aaa', 'aaa']);
  assert.equal(countRegions(flat.rgba, flat.width, flat.height), 1);
  const diagonal = image(['ab', 'ba']);
  assert.equal(countRegions(diagonal.rgba, diagonal.width, diagonal.height), 4, 'diagonal neighbours are not connected');
});

test('countBoundaries counts pixels whose right or lower neighbour differs', () => {
  const picture = image(['aab', 'aab', 'ccc']);
  // Inner pixels (2×2 block): (0,0) same right and below; (1,0) right differs; (0,1) below differs; (1,1) both differ.
  assert.equal(countBoundaries(picture.rgba, picture.width, picture.height), 3);
});

/** The image back as rows of letters. */
function rows(rgba: Buffer, width: number): string[] {
  const letters: string[] = [];
  for (let i = 0; i < rgba.length; i += 4) letters.push(String.fromCharCode(rgba.readUInt32LE(i) & 0xff));
  return Array.from({ length: letters.length / width }, (_, y) => letters.slice(y * width, (y + 1) * width).join(''));
}

test('pixel art: translucent pixels get tracer colours of their own, one per colour and alpha, apart from every opaque colour', async () => {
  // Black opaque, black at two alphas, clear, and a faint red under a sixteenth (rounding noise).
  const rgba = Buffer.from([0, 0, 0, 255, 0, 0, 0, 96, 0, 0, 0, 96, 0, 0, 0, 200, 9, 9, 9, 0, 255, 0, 0, 14]);
  const prepared = await prepareForTracer({ rgba, width: 6, height: 1 }, 'pixelart', 6);
  const key = (i: number) => ((prepared.rgba[i * 4] as number) << 16) | ((prepared.rgba[i * 4 + 1] as number) << 8) | (prepared.rgba[i * 4 + 2] as number);
  assert.deepEqual([...prepared.rgba.filter((_, i) => i % 4 === 3)], [255, 255, 255, 255, 0, 0], 'every drawn pixel opaque for the tracer, clear and faint ones keyed out');
  assert.equal(key(0), 0, 'opaque pixels keep their colour');
  assert.equal(key(1), key(2), 'one colour and alpha, one tracer colour');
  assert.equal(new Set([key(0), key(1), key(3)]).size, 3);
  assert.deepEqual(prepared.translucent?.get(key(1)), { color: { r: 0, g: 0, b: 0 }, opacity: 96 / 255 });
  assert.deepEqual(prepared.translucent?.get(key(3)), { color: { r: 0, g: 0, b: 0 }, opacity: 200 / 255 });
  const layers = splitTranslucentPixels(prepared.rgba, prepared.translucent ?? new Map());
  assert.deepEqual([...layers.opaque.filter((_, i) => i % 4 === 3)], [255, 0, 0, 0, 0, 0]);
  // The translucent layer keys nothing out: the other pixels are in a ground colour far from its own.
  assert.deepEqual([...layers.translucent.filter((_, i) => i % 4 === 3)], [255, 255, 255, 255, 255, 255]);
  const layerKey = (i: number) => ((layers.translucent[i * 4] as number) << 16) | ((layers.translucent[i * 4 + 1] as number) << 8) | (layers.translucent[i * 4 + 2] as number);
  assert.deepEqual([0, 4, 5].map(layerKey), [layers.ground, layers.ground, layers.ground]);
  assert.deepEqual([1, 2, 3].map(layerKey), [key(1), key(2), key(3)]);
  assert.equal(layers.ground, 0xffffff, 'white is the farthest from the near-black keys');
  // Without translucent pixels the image is only keyed, as before.
  const opaque = await prepareForTracer({ rgba: Buffer.from([1, 2, 3, 255, 4, 5, 6, 0]), width: 2, height: 1 }, 'pixelart', 6);
  assert.equal(opaque.translucent, undefined);
  assert.deepEqual([...opaque.rgba], [1, 2, 3, 255, 0, 0, 0, 0]);
});

test('mergeSpecks gives specks the nearest colour around them and keeps larger areas', () => {
  // 'b' (98) is a lone pixel between 'a' (97) and 'z' (122): it joins 'a'. The 'yy' pair joins
  // its neighbour 'z' at speck size 2 and stays at 1; the 3-pixel 'ccc' always stays.
  const { rgba, width, height } = image(['aaaazzzz', 'aabazzyy', 'aaaazzzz', 'cccazzzz']);
  assert.deepEqual(rows(mergeSpecks(rgba, width, height, 1), width), ['aaaazzzz', 'aaaazzyy', 'aaaazzzz', 'cccazzzz']);
  assert.deepEqual(rows(mergeSpecks(rgba, width, height, 2), width), ['aaaazzzz', 'aaaazzzz', 'aaaazzzz', 'cccazzzz']);
  assert.equal(countRegions(mergeSpecks(rgba, width, height, 2), width, height), 3);
});

test('dense artwork is traced at twice the pixels its budget allows, and a map keeps its buildings at 100 %', async () => {
  // The 4.6 MP corpus map (OpenStreetMap, see SOURCES.md): within the logo budget alone it was
  // traced at 0.30 MP, and at 100 % every building stepped by 4 px (centre crop SSIM 0.62).
  const map = corpusImage('edge/palette_zune_2048x2253.png');
  const { data, info } = await sharp(map).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const working = await fitToPixels({ rgba: data, width: info.width, height: info.height }, WORKING_PIXELS.logo);
  const prepared = await prepareWithinBudget(working, 'logo', DEFAULT_PARAMS.colorPrecision, 1);
  assert.equal(prepared.dense, true);
  const tracedPixels = prepared.width * prepared.height;
  // Its budget alone allows 0.30 MP (boundaries bind: 0.5 MP of it holds 277 000).
  assert.ok(Math.abs(tracedPixels - 0.3e6 * DENSE_ARTWORK_GROWTH) < 0.05e6, `traced at ${(tracedPixels / 1e6).toFixed(2)} MP`);

  const result = await convertImage({ image: map, params: DEFAULT_PARAMS }, { maxInputPixels: 100_000_000 });
  assert.equal(result.chosen.mode, 'logo');
  const crop = { left: 768, top: 870, width: 512, height: 512 };
  const original = await sharp(map).extract(crop).png().toBuffer();
  const traced = renderSvg(croppedSvg(result.svg, info.width, info.height, crop));
  const similarity = await ssimOf(traced, original, crop.width, crop.height);
  // Raw VTracer's trace of the map shrunk to 1.5 MP, drawn at full size: 0.686 (bench/crops.ts).
  assert.ok(similarity > 0.67, `centre crop at 100 %: SSIM ${similarity.toFixed(3)}`);
});

test('the map saved as JPEG, a photograph only by elimination, keeps its detail as artwork does', async () => {
  // bench:robust's copy: flattened on white, JPEG quality 70. Its noise takes the map's equal
  // neighbours, and no rule names it artwork; traced within the photo budget alone (0.30 MP), its
  // centre crop at 100 % scored 0.582, against 0.677 for raw VTracer's trace of the copy shrunk to 1.5 MP.
  const jpeg = await sharp(corpusImage('edge/palette_zune_2048x2253.png')).flatten({ background: '#ffffff' }).jpeg({ quality: 70 }).toBuffer();
  const result = await convertImage({ image: jpeg, params: DEFAULT_PARAMS }, { maxInputPixels: 100_000_000 });
  assert.equal(result.chosen.mode, 'photo');
  const crop = { left: 768, top: 870, width: 512, height: 512 };
  const original = await sharp(jpeg).extract(crop).png().toBuffer();
  const traced = renderSvg(croppedSvg(result.svg, 2048, 2253, crop));
  const similarity = await ssimOf(traced, original, crop.width, crop.height);
  assert.ok(similarity > 0.627, `centre crop at 100 %: SSIM ${similarity.toFixed(3)} (no more than 0.05 below VTracer's 0.677)`);
});

test('pixel art: translucent pixels nested in other translucent pixels keep their own opacity — the stacked trace is cut apart, so none shows through another', async () => {
  // A 48 px sprite of opaque pixels beside a glass pane: a blue rim at half alpha round a green
  // middle at 0.63, each drawn flat. The tracer stacks the rim's shape under the middle.
  const side = 48;
  const rgba = Buffer.alloc(side * side * 4);
  const set = (x: number, y: number, colour: readonly number[]) => rgba.set(colour, (y * side + x) * 4);
  const palette = [[34, 32, 52, 255], [172, 50, 50, 255], [251, 242, 54, 255]] as const;
  for (let y = 4; y < 20; y++) for (let x = 4; x < 20; x++) set(x, y, palette[(x * 7 + y * 3) % 3] as readonly number[]);
  for (let y = 24; y < 44; y++) for (let x = 24; x < 44; x++) set(x, y, x < 28 || x >= 40 || y < 28 || y >= 40 ? [40, 80, 220, 128] : [40, 200, 80, 160]);
  const png = await sharp(rgba, { raw: { width: side, height: side, channels: 4 } }).png().toBuffer();
  const result = await convertImage({ image: png, params: DEFAULT_PARAMS }, { maxInputPixels: 100_000_000 });
  assert.equal(result.chosen.mode, 'pixelart');
  const data = renderOnClear(result.svg, side, side);
  const alphaAt = (x: number, y: number) => data[(y * side + x) * 4 + 3] as number;
  for (const [x, y] of [[34, 34], [30, 37], [37, 30]] as const) assert.ok(Math.abs(alphaAt(x, y) - 160) <= 6, `middle at (${x}, ${y}): alpha ${alphaAt(x, y)}, drawn 160`);
  for (const [x, y] of [[25, 25], [42, 34]] as const) assert.ok(Math.abs(alphaAt(x, y) - 128) <= 6, `rim at (${x}, ${y}): alpha ${alphaAt(x, y)}, drawn 128`);
});
