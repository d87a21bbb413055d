import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { convertImage } from '../../src/engine/convert.ts';
import { DEFAULT_PARAMS, type TraceParams } from '../../src/engine/params.ts';
import { flat, PathCommand, type PathGeometry, type TracedShape } from '../../src/engine/geometry.ts';
import { removeNarrowFeatures } from '../../src/engine/write/min-feature.ts';
import { countNodes } from '../../src/engine/write/svg.ts';
import { EngineError } from '../../src/engine/types.ts';
import { corpusImage } from './corpus.ts';
import { greyscalePhoto, nightSky } from './fixtures.ts';

const LIMITS = { maxInputPixels: 100_000_000 };

function params(overrides: Partial<TraceParams> = {}): TraceParams {
  return { ...DEFAULT_PARAMS, ...overrides };
}

async function assertInvalidImage(image: Buffer): Promise<void> {
  await assert.rejects(convertImage({ image, params: params() }, LIMITS), (error: unknown) => {
    assert.ok(error instanceof EngineError);
    assert.equal(error.kind, 'invalid_image');
    assert.ok(error.message.length > 0);
    return true;
  });
}

for (const [file, width, height] of [
  ['logo/flag_br_noto.png', 720, 504],
  ['illustration/vtracer_cityscape_sunset.jpg', 1400, 980],
  ['clipart/baby_tux_fizyplankton.webp', 386, 395],
] as const) {
  test(`converts ${file} with viewBox at the original size and a matching node count`, async () => {
    const result = await convertImage({ image: corpusImage(file), params: params() }, LIMITS);
    assert.equal(result.width, width);
    assert.equal(result.height, height);
    assert.match(result.svg, new RegExp(`viewBox="0 0 ${width} ${height}" width="${width}" height="${height}"`));
    assert.ok(result.nodeCount > 0);
    assert.equal(result.nodeCount, countNodes(result.svg));
    assert.ok(Number.isInteger(result.processingTimeMs));
    assert.doesNotMatch(result.svg, /<script|\bon[a-z]+=|href|<!--|transform=/i);
    // Every fill is a colour or one of the document's own gradients.
    assert.doesNotMatch(result.svg, /fill="(?!#[0-9a-f]{6}"|url\(#g\d+\)")/);
    for (const [, id] of result.svg.matchAll(/fill="url\(#(g\d+)\)"/g)) assert.match(result.svg, new RegExp(`<(linear|radial)Gradient id="${id}"`));
  });
}

test('a large image is traced at reduced size and written at its original size', async () => {
  // Time on the CPU, not on the clock, which on a shared machine also counts other work: about
  // 3.7 s measured, where tracing all 38.6 million pixels would take several times that.
  const image = corpusImage('clipart/pdv_aliens_cartoon_7500x5145.png');
  const cpu = process.cpuUsage();
  const result = await convertImage({ image, params: params() }, LIMITS);
  const used = process.cpuUsage(cpu);
  assert.match(result.svg, /viewBox="0 0 7500 5145"/);
  const cpuMs = (used.user + used.system) / 1000;
  assert.ok(cpuMs < 8000, `${Math.round(cpuMs)} ms of CPU`);
});

test('corrupt bytes with a PNG signature are invalid_image', async () => {
  const bytes = Buffer.concat([corpusImage('logo/flag_br_noto.png').subarray(0, 8), Buffer.alloc(500, 7)]);
  await assertInvalidImage(bytes);
});

test('truncated PNG, JPEG and WebP are invalid_image', async () => {
  for (const file of ['logo/flag_br_noto.png', 'illustration/vtracer_cityscape_sunset.jpg', 'clipart/baby_tux_fizyplankton.webp']) {
    const bytes = corpusImage(file);
    await assertInvalidImage(bytes.subarray(0, Math.floor(bytes.length * 0.6)));
  }
});

test('empty and unsupported bytes are invalid_image', async () => {
  await assertInvalidImage(Buffer.alloc(0));
  await assertInvalidImage(Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'));
});

test('an image over the pixel limit is refused from its header', async () => {
  const image = corpusImage('photo/espinasse_portrait_6035x8212_gray.jpg');
  await assert.rejects(convertImage({ image, params: params() }, { maxInputPixels: 10_000_000 }), (error: unknown) => {
    assert.ok(error instanceof EngineError);
    assert.equal(error.kind, 'invalid_image');
    assert.match(error.message, /limit/);
    return true;
  });
});

test('EXIF orientation is applied: width and height are those of the upright image', async () => {
  const upright = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#336699' } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .toBuffer();
  const result = await convertImage({ image: upright, params: params() }, LIMITS);
  assert.equal(result.width, 20);
  assert.equal(result.height, 40);
  assert.match(result.svg, /viewBox="0 0 20 40"/);
});

test('transparent areas stay unpainted', async () => {
  const file = 'logo/flat_shapes_transparency_300.png';
  const { data: source } = await sharp(corpusImage(file)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  assert.equal(source[3], 0, 'the fixture has a transparent top-left corner');
  const result = await convertImage({ image: corpusImage(file), params: params() }, LIMITS);
  const rendered = new Resvg(result.svg).render();
  assert.equal(rendered.width, 300);
  const pixels = rendered.pixels;
  assert.equal(pixels[3], 0, 'top-left corner is transparent');
  // and the opaque middle of the yellow shape is painted
  const { data: middle } = await sharp(corpusImage(file)).ensureAlpha().extract({ left: 40, top: 60, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true });
  assert.equal(middle[3], 255);
  assert.equal(pixels[(60 * 300 + 40) * 4 + 3], 255);
});

test('auto picks pixel-exact tracing for pixel art and line art tracing for a drawing', async () => {
  const pixelArt = await convertImage({ image: corpusImage('pixelart/kenney_tiny_dungeon_tilemap.png'), params: params() }, LIMITS);
  assert.deepEqual(pixelArt.chosen, { mode: 'pixelart', curveMode: 'none' });
  const drawing = await convertImage({ image: corpusImage('sketch/vtracer_k1_drawing.jpg'), params: params() }, LIMITS);
  assert.equal(drawing.chosen.mode, 'sketch');
  // The pencil drawing's ink is near-black, on near-white paper.
  assert.match(drawing.svg, /fill="#0[0-9a-f]0[0-9a-f]0[0-9a-f]"/);
  assert.match(drawing.svg, /<path d="M0 0H3000V1200H0z" fill="#f[0-9a-f]f[0-9a-f]f[0-9a-f]"\/>/);
});

for (const [kx, ky] of [
  [6, 6],
  [5, 6],
] as const) {
  test(`pixel art enlarged ${kx} × ${ky} to 1–2 MP is traced and checked on its own grid: every block exact${kx === ky ? ', every vertex on a block edge' : ''}`, async () => {
    // Decoded whole (under the decode's 2 MP), it was reduced to the pixel-art budget of 1 MP with
    // Lanczos, which blurred the blocks into anti-aliasing before the pixel-exact trace.
    const source = corpusImage('pixelart/kenney_tiny_dungeon_tilemap.png');
    const { data: original, info } = await sharp(source).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const { width, height } = info;
    // Enlarged block by block (sharp's nearest kernel, given unequal factors, does not repeat every pixel alike).
    const blocks = Buffer.alloc(width * kx * height * ky * 4);
    for (let y = 0; y < height * ky; y++) {
      for (let x = 0; x < width * kx; x++) original.copy(blocks, (y * width * kx + x) * 4, (Math.floor(y / ky) * width + Math.floor(x / kx)) * 4, (Math.floor(y / ky) * width + Math.floor(x / kx)) * 4 + 4);
    }
    const enlarged = await sharp(blocks, { raw: { width: width * kx, height: height * ky, channels: 4 } }).png().toBuffer();
    assert.ok(width * height * kx * ky > 1_000_000, 'larger than the pixel-art working budget');
    const result = await convertImage({ image: enlarged, params: params() }, LIMITS);
    assert.deepEqual(result.chosen, { mode: 'pixelart', curveMode: 'none' });
    if (kx === ky) {
      const numbers = [...result.svg.matchAll(/ d="([^"]*)"/g)].flatMap((match) => (match[1] as string).match(/-?\d*\.?\d+/g) ?? []).map(Number);
      assert.ok(numbers.length > 1000);
      assert.deepEqual(numbers.filter((value) => value % kx !== 0).slice(0, 5), [], 'every coordinate lies on the blocks\' edges');
    }
    const drawn = new Resvg(result.svg, { fitTo: { mode: 'width', value: width * kx } }).render();
    assert.equal(drawn.height, height * ky);
    const pixels = drawn.pixels;
    let wrong = 0;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const o = (y * width + x) * 4;
        if ((original[o + 3] as number) !== 255) continue;
        const r = ((y * ky + Math.floor(ky / 2)) * width * kx + x * kx + Math.floor(kx / 2)) * 4;
        if ([0, 1, 2].some((c) => Math.abs((pixels[r + c] as number) - (original[o + c] as number)) > 1)) wrong++;
      }
    }
    assert.equal(wrong, 0, 'every opaque block drawn in its own colour');
    // Compared at its own grid, where the source is exact, the check says so (reduced to 0.25 MP
    // with Lanczos, the blocks' edges rang and the 6 × 6 trace scored 0.923; the 5 × 6 one, rendered
    // fitted to the width against its own grid, 0.726).
    assert.ok(result.fidelity >= 0.99, `fidelity ${result.fidelity}`);
  });
}

test('explicit mode and curveMode are honoured', async () => {
  const result = await convertImage(
    { image: corpusImage('logo/flag_br_noto.png'), params: params({ mode: 'photo', curveMode: 'polygon' }) },
    LIMITS,
  );
  assert.deepEqual(result.chosen, { mode: 'photo', curveMode: 'polygon' });
  // polygon mode writes no curve commands
  assert.doesNotMatch(result.svg, /d="[^"]*c/);
});

test('a photo traced coarser than its output is drawn with round outlines, without seams; polygons when asked for', async () => {
  // 2.4 MP, traced at about 0.44 MP: each working pixel is 2.3 pixels of the output.
  const photo = await greyscalePhoto(1800, 1350, 5);
  const result = await convertImage({ image: photo, params: params() }, LIMITS);
  assert.deepEqual(result.chosen, { mode: 'photo', curveMode: 'spline' });
  const data = [...result.svg.matchAll(/ d="([^"]*)"/g)].map((match) => match[1]).join(' ');
  const quadratics = (data.match(/q/g) ?? []).length;
  assert.ok(quadratics > 100, `rounded corners are quadratics (${quadratics} runs of them)`);
  const onBlack = new Resvg(result.svg, { fitTo: { mode: 'width', value: 900 }, background: '#000000' }).render().pixels;
  const onWhite = new Resvg(result.svg, { fitTo: { mode: 'width', value: 900 }, background: '#ffffff' }).render().pixels;
  let leaking = 0;
  for (let i = 0; i < onBlack.length; i += 4) if (Math.abs((onBlack[i] as number) - (onWhite[i] as number)) > 8) leaking++;
  assert.equal(leaking, 0, `background shows through in ${leaking} pixels`);
  const asked = await convertImage({ image: photo, params: params({ curveMode: 'polygon' }) }, LIMITS);
  assert.deepEqual(asked.chosen, { mode: 'photo', curveMode: 'polygon' });
  assert.doesNotMatch(asked.svg, /d="[^"]*[cq]/);
});

test('a large photograph keeps its stars at 100 %: points of light finer than its traced grid are drawn as dots', async () => {
  // 3.8 MP, traced at about 0.58 MP: a star a pixel or two across is a fifth of a working pixel.
  const { jpeg, stars } = await nightSky(2400, 1600, 11, 40);
  // Asked for as a photograph, the path under test (auto takes the sky for one too: shading without edges).
  const result = await convertImage({ image: jpeg, params: params({ mode: 'photo' }) }, LIMITS);
  const drawn = new Resvg(result.svg, { fitTo: { mode: 'width', value: 2400 } }).render();
  const pixels = drawn.pixels;
  const luma = (x: number, y: number) => {
    const i = (y * 2400 + x) * 4;
    return 0.2126 * (pixels[i] as number) + 0.7152 * (pixels[i + 1] as number) + 0.0722 * (pixels[i + 2] as number);
  };
  let kept = 0;
  for (const star of stars) {
    // The brightest drawn pixel within two pixels of the star, against the sky six pixels away.
    let brightest = 0;
    for (let y = Math.floor(star.y) - 2; y <= star.y + 2; y++) for (let x = Math.floor(star.x) - 2; x <= star.x + 2; x++) brightest = Math.max(brightest, luma(x, y));
    const sky = luma(Math.floor(star.x) + 6, Math.floor(star.y));
    if (brightest - sky >= star.peak / 3) kept++;
  }
  assert.ok(kept >= stars.length - 2, `${kept} of ${stars.length} stars drawn at least a third as bright as they are`);
  // Polygons asked for: the stars too are drawn without a curve.
  const polygons = await convertImage({ image: jpeg, params: params({ mode: 'photo', curveMode: 'polygon' }) }, LIMITS);
  assert.equal(polygons.chosen.curveMode, 'polygon');
  assert.doesNotMatch(polygons.svg, /d="[^"]*[cqsaCQSA]/);
  assert.ok(polygons.svg.length > result.svg.length / 4);
});

test('no seams: an opaque image renders the same on black and on white', async () => {
  for (const file of ['logo/flag_br_noto.png', 'photo/kodim23.png', 'pixelart/vtracer_tank_unit_preview.png']) {
    const result = await convertImage({ image: corpusImage(file), params: params() }, LIMITS);
    const width = Math.min(600, result.width);
    const onBlack = new Resvg(result.svg, { fitTo: { mode: 'width', value: width }, background: '#000000' }).render().pixels;
    const onWhite = new Resvg(result.svg, { fitTo: { mode: 'width', value: width }, background: '#ffffff' }).render().pixels;
    let leaking = 0;
    for (let i = 0; i < onBlack.length; i += 4) if (Math.abs((onBlack[i] as number) - (onWhite[i] as number)) > 8) leaking++;
    assert.equal(leaking, 0, `${file}: background shows through in ${leaking} pixels`);
  }
});

test('inputEnhance gives a valid SVG for photos, line art and logos', async () => {
  for (const file of ['photo/kodim23.png', 'sketch/imagetracerjs_flower_lineart.png', 'clipart/kenney_animal_elephant.png']) {
    const plain = await convertImage({ image: corpusImage(file), params: params() }, LIMITS);
    const enhanced = await convertImage({ image: corpusImage(file), params: params({ inputEnhance: true }) }, LIMITS);
    assert.equal(enhanced.width, plain.width);
    assert.equal(enhanced.chosen.mode, plain.chosen.mode);
    assert.equal(enhanced.nodeCount, countNodes(enhanced.svg));
    assert.notEqual(enhanced.svg, plain.svg, `${file}: enhancement changed nothing`);
  }
});

test('a partly transparent layer keeps its opacity, an opaque one stays opaque', async () => {
  const width = 200;
  const height = 200;
  const pixels = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      if (x >= 20 && x < 100 && y >= 20 && y < 100) pixels.set([220, 20, 20, 140], i);
      if (x >= 120 && x < 180 && y >= 120 && y < 180) pixels.set([20, 20, 220, 255], i);
    }
  }
  const image = await sharp(pixels, { raw: { width, height, channels: 4 } }).png().toBuffer();
  const result = await convertImage({ image, params: params() }, LIMITS);
  assert.match(result.svg, /fill="#d[cd]1414" fill-opacity="0\.5[45]\d?"/);
  assert.match(result.svg, /fill="#1414d[cd]"\/>/);
  const rendered = new Resvg(result.svg).render().pixels;
  assert.equal(rendered[(10 * width + 10) * 4 + 3], 0, 'the transparent background stays transparent');
});

/** Each subpath of an EPS file (absolute `x y m`, `l`, `c`, `h`), as a shape of its own. */
function epsSubpaths(eps: string): TracedShape[] {
  const shapes: TracedShape[] = [];
  let path: PathGeometry | undefined;
  const numbers: number[] = [];
  for (const token of eps.split(/\s+/)) {
    if (/^-?[\d.]+$/.test(token)) numbers.push(Number(token));
    else if (token === 'm') {
      path = { commands: [PathCommand.move], coords: numbers.splice(0) };
      shapes.push({ fill: flat({ r: 0, g: 0, b: 0 }), opacity: 1, paths: [path] });
    } else if (path && (token === 'l' || token === 'c')) {
      path.commands.push(token === 'l' ? PathCommand.line : PathCommand.cubic);
      path.coords.push(...numbers.splice(0));
    } else if (path && token === 'h') path.commands.push(PathCommand.close);
    else numbers.length = 0;
  }
  return shapes;
}

test('an icon comes back without slivers: no subpath is narrower than a fifth of a pixel', async () => {
  // The 32 px smiling emoji's cheek gradient was segmented with two triangles 0.15 px thick
  // beside it: invisible at 1×, a line across the cheek at 512 px.
  const image = await sharp(corpusImage('upscale/emoji32/emoji_u1f60a.png')).toBuffer();
  const result = await convertImage({ image, params: params(), format: 'eps' }, LIMITS);
  const shapes = epsSubpaths(Buffer.from(result.file ?? []).toString('latin1'));
  assert.ok(shapes.length > 5, `${shapes.length} subpaths`);
  const picture = { width: result.width, height: result.height, scaleX: 1, scaleY: 1, shapes };
  assert.equal(removeNarrowFeatures(picture, 0.2, 2, false).removed, 0);
  // The measure finds such a sliver: the triangle, added as a shape of its own.
  const sliver: TracedShape = { fill: flat({ r: 0, g: 0, b: 0 }), opacity: 1, paths: [{ commands: [0, 1, 1, 3], coords: [6, 21, 7.92, 21, 6, 21.15] }] };
  assert.equal(removeNarrowFeatures({ ...picture, shapes: [...shapes, sliver] }, 0.2, 2, false).removed, 1);
});
