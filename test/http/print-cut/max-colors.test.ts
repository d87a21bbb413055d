// `maxColors` over real HTTP on a logo, an illustration and a photo, for several values: at most
// that many distinct fills, no gradients, no partial opacity; a logo's own colours survive (each
// of its main colours, found here from its pixels, has a fill within a just-noticeable
// difference); a photo's and an illustration's rendering comes closer to the source with every
// colour allowed more.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { converter } from 'culori';
import sharp from 'sharp';
import { Resvg } from '@resvg/resvg-js';
import { corpusFile } from '../../helpers/http.ts';
import { svgPaints } from '../../helpers/readers.ts';
import { startPrintCutService, type PrintCutService } from './files.ts';

const toOklab = converter('oklab');
type Lab = [number, number, number];

function labOf(r: number, g: number, b: number): Lab {
  const c = toOklab({ mode: 'rgb', r: r / 255, g: g / 255, b: b / 255 });
  return [c.l, c.a, c.b];
}

function hexLab(hex: string): Lab {
  const v = parseInt(hex.slice(1), 16);
  return labOf(v >> 16, (v >> 8) & 0xff, v & 0xff);
}

function distance(a: Lab, b: Lab): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

/** A logo's main colours, from its opaque pixels: the most frequent, then each next most frequent at least `apart` from those taken. */
async function mainColours(file: string, count: number, apart = 0.1): Promise<Lab[]> {
  const { data } = await sharp(corpusFile(file)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const counts = new Map<number, number>();
  for (let i = 0; i < data.length; i += 4) {
    if ((data[i + 3] as number) < 255) continue;
    const key = ((data[i] as number) << 16) | ((data[i + 1] as number) << 8) | (data[i + 2] as number);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const taken: Lab[] = [];
  for (const [key] of [...counts].sort((a, b) => b[1] - a[1])) {
    const lab = labOf(key >> 16, (key >> 8) & 0xff, key & 0xff);
    if (taken.every((other) => distance(other, lab) >= apart)) taken.push(lab);
    if (taken.length === count) break;
  }
  return taken;
}

/** Mean Oklab distance per pixel between the SVG rendered and the source, both on white. */
async function meanError(svg: string, file: string): Promise<number> {
  const source = await sharp(corpusFile(file)).flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = source.info;
  const rendered = await sharp(new Resvg(svg, { background: 'white', fitTo: { mode: 'width', value: width } }).render().asPng())
    .removeAlpha()
    .raw()
    .toBuffer();
  let total = 0;
  let n = 0;
  // Every 3rd pixel each way: the mean settles long before.
  for (let y = 0; y < height; y += 3) {
    for (let x = 0; x < width; x += 3) {
      const i = (y * width + x) * 3;
      const a = source.data;
      total += distance(labOf(a[i] as number, a[i + 1] as number, a[i + 2] as number), labOf(rendered[i] as number, rendered[i + 1] as number, rendered[i + 2] as number));
      n++;
    }
  }
  return total / n;
}

describe('maxColors', () => {
  let api: PrintCutService;
  before(async () => {
    api = await startPrintCutService('max-colors@example.com');
  });
  after(async () => api.close());

  async function fillsOf(file: string, maxColors: number): Promise<{ svg: string; colours: Set<string> }> {
    const { svg } = await api.json(file, { maxColors });
    const paints = svgPaints(svg);
    assert.ok(paints.colours.size >= 1 && paints.colours.size <= maxColors, `${file}, maxColors ${maxColors}: ${paints.colours.size} fills`);
    assert.equal(paints.gradients, 0, 'no gradients');
    assert.equal(paints.partialOpacity, 0, 'no partial opacity');
    return { svg, colours: paints.colours };
  }

  for (const [file, colours] of [
    ['logo/flat_shapes_transparency_300.png', 4],
    ['logo/visioncortex_icon_400.png', 3],
  ] as const) {
    it(`${file}: at most N fills for N = 1, 2, ${colours}, 8, 16, and its ${colours} colours survive`, async (t) => {
      const main = await mainColours(file, colours);
      for (const n of [1, 2, colours, 8, 16]) {
        const result = await fillsOf(file, n);
        if (n < colours) continue;
        const fills = [...result.colours].map(hexLab);
        const misses = main.map((lab) => Math.min(...fills.map((fill) => distance(fill, lab))));
        t.diagnostic(`maxColors ${n}: ${[...result.colours].join(' ')}; main colours within ${misses.map((m) => m.toFixed(4)).join(', ')}`);
        // 0.02 in Oklab is about a just-noticeable difference.
        for (const miss of misses) assert.ok(miss <= 0.02, `a main colour is ${miss.toFixed(3)} from every fill`);
        // A logo of `colours` colours asked for more gets no near-duplicates of them.
        assert.ok(result.colours.size <= colours + 1, `${result.colours.size} fills for a ${colours}-colour logo`);
      }
    });
  }

  for (const file of ['illustration/vtracer_gum_tree_vector.jpg', 'photo/kodim23.png']) {
    it(`${file}: at most N fills for N = 1, 2, 4, 8, 16, each N at least as close to the source as the one before`, async (t) => {
      const errors: number[] = [];
      for (const n of [1, 2, 4, 8, 16]) {
        const { svg, colours } = await fillsOf(file, n);
        errors.push(await meanError(svg, file));
        t.diagnostic(`maxColors ${n}: ${colours.size} fills, mean Oklab error ${errors[errors.length - 1]?.toFixed(4)}`);
      }
      // An illustration of eight colours asked for sixteen gets its eight: no worse, no better.
      for (let i = 1; i < errors.length; i++) assert.ok((errors[i] as number) <= (errors[i - 1] as number) + 0.002, `error ${errors.join(', ')}`);
      assert.ok((errors[2] as number) < (errors[0] as number) / 2, `four colours halve the error of one: ${errors.join(', ')}`);
      assert.ok((errors[errors.length - 1] as number) < 0.06, `16 colours: mean error ${errors[errors.length - 1]}`);
    });
  }
});
