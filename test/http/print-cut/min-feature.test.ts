// `minFeature` over real HTTP on a drawing made for it: ink squares, a bar and a dot wider than
// the limit (kept), a dot, a sliver and a hole narrower (removed), a hole wider (kept). Rendered
// with and without the limit, the pictures differ only where the narrow features were: the dot
// and the sliver are paper, the small hole is ink; nothing else changes by a pixel. Cut-outs
// leave no gap where a piece went (it joins its neighbour). The report counts what went.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { overlapAndGaps } from '../../helpers/coverage.ts';
import { startPrintCutService, type PrintCutService } from './files.ts';

const WIDTH = 240;
const HEIGHT = 160;
/** At 254 dpi a millimetre is 10 pixels. */
const DPI = 254;

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

const INK: Box[] = [
  { x0: 10, y0: 10, x1: 70, y1: 70 }, // a square with a small hole
  { x0: 90, y0: 10, x1: 150, y1: 70 }, // a square with a large hole
  { x0: 170, y0: 20, x1: 174, y1: 24 }, // a dot 4 px across: narrower than 10
  { x0: 200, y0: 10, x1: 203, y1: 70 }, // a sliver 3 px wide
  { x0: 10, y0: 100, x1: 70, y1: 116 }, // a bar 16 px wide: kept
  { x0: 170, y0: 100, x1: 182, y1: 112 }, // a dot 12 px across: kept
];
const HOLES: Box[] = [
  { x0: 38, y0: 38, x1: 42, y1: 42 }, // 4 px: narrower than 10
  { x0: 110, y0: 30, x1: 130, y1: 50 }, // 20 px: kept
];
const NARROW = { paper: [INK[2], INK[3]] as Box[], ink: [HOLES[0]] as Box[] };

async function drawing(): Promise<Buffer> {
  const pixels = Buffer.alloc(WIDTH * HEIGHT * 3, 255);
  const fill = (box: Box, value: number) => {
    for (let y = box.y0; y < box.y1; y++) pixels.fill(value, (y * WIDTH + box.x0) * 3, (y * WIDTH + box.x1) * 3);
  };
  INK.forEach((box) => fill(box, 0));
  HOLES.forEach((box) => fill(box, 255));
  return sharp(pixels, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } }).png().toBuffer();
}

/** Luma of an SVG rendered at the drawing's size on a mid grey page (gaps would show it). */
function luma(svg: string): Uint8Array {
  const image = new Resvg(svg, { background: '#808080', fitTo: { mode: 'width', value: WIDTH } }).render();
  const pixels = image.pixels;
  const out = new Uint8Array(WIDTH * HEIGHT);
  for (let i = 0; i < out.length; i++) out[i] = Math.round(0.299 * (pixels[i * 4] as number) + 0.587 * (pixels[i * 4 + 1] as number) + 0.114 * (pixels[i * 4 + 2] as number));
  return out;
}

function inside(x: number, y: number, box: Box, margin: number): boolean {
  return x >= box.x0 - margin && x < box.x1 + margin && y >= box.y0 - margin && y < box.y1 + margin;
}

/** Pixels that differ by more than a level or two outside the narrow features, and the mean luma inside each. */
function compare(limited: Uint8Array, plain: Uint8Array): { changedElsewhere: number; paper: number[]; ink: number[] } {
  let changedElsewhere = 0;
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const i = y * WIDTH + x;
      if ([...NARROW.paper, ...NARROW.ink].some((box) => inside(x, y, box, 2))) continue;
      if (Math.abs((limited[i] as number) - (plain[i] as number)) > 2) changedElsewhere++;
    }
  }
  const mean = (box: Box) => {
    let sum = 0;
    let n = 0;
    for (let y = box.y0; y < box.y1; y++) for (let x = box.x0; x < box.x1; x++, n++) sum += limited[y * WIDTH + x] as number;
    return sum / n;
  };
  return { changedElsewhere, paper: NARROW.paper.map(mean), ink: NARROW.ink.map(mean) };
}

describe('minFeature', () => {
  let api: PrintCutService;
  let image: Buffer;
  before(async () => {
    api = await startPrintCutService('min-feature@example.com');
    image = await drawing();
  });
  after(async () => api.close());

  for (const stacking of ['stacked', 'cutouts'] as const) {
    it(`${stacking}: removes the dot, the sliver and the small hole, and nothing else`, async (t) => {
      const base = { unit: 'mm', dpi: DPI, stacking };
      const plain = await api.json(image, base);
      const limited = await api.json(image, { ...base, minFeature: 1 });
      const result = compare(luma(limited.svg), luma(plain.svg));
      t.diagnostic(`changed elsewhere ${result.changedElsewhere} px; narrow ink now ${result.paper.map((v) => v.toFixed(0))}; small hole now ${result.ink.map((v) => v.toFixed(0))}`);
      assert.equal(result.changedElsewhere, 0, 'no pixel changes outside the narrow features');
      for (const value of result.paper) assert.ok(value > 250, `a narrow piece is paper now (${value})`);
      for (const value of result.ink) assert.ok(value < 5, `the small hole is ink now (${value})`);
      const before = luma(plain.svg);
      for (const box of NARROW.paper) assert.ok((before[(box.y0 + 1) * WIDTH + box.x0 + 1] as number) < 50, 'without the limit, the narrow ink is there');

      type Report = { removed_below_min_feature: number; smallest_feature: number; overlaps: number };
      const report = limited.report as Report;
      assert.equal(report.removed_below_min_feature, 3);
      assert.ok(report.smallest_feature >= 1, `smallest feature ${report.smallest_feature} mm`);
      assert.ok((plain.report as Report).smallest_feature < 0.5, 'without the limit, the sliver is the smallest');
      assert.equal(report.overlaps, stacking === 'cutouts' ? 0 : 1);
      if (stacking === 'cutouts') {
        // A piece that went joined its neighbour: no gap, no overlap.
        const gaps = overlapAndGaps(limited.svg, WIDTH, HEIGHT);
        assert.ok(gaps.uncovered < 0.0005 && gaps.overlap < 0.0005, JSON.stringify(gaps));
      }
    });
  }

  it('is measured in the unit: 10 px, 1 mm and 0.04 in at 254 dpi remove the same, 0 removes nothing', async () => {
    // The drawing itself, less the root element (whose width and height are in the unit).
    const body = (svg: string) => svg.replace(/^<svg[^>]*>/, '');
    const reference = body((await api.json(image, { unit: 'mm', dpi: DPI, minFeature: 1 })).svg);
    assert.notEqual(reference, body((await api.json(image, { unit: 'mm', dpi: DPI })).svg), 'the limit changes the drawing');
    for (const params of [{ minFeature: 10 }, { unit: 'in', dpi: DPI, minFeature: 0.04 }]) {
      assert.equal(body((await api.json(image, params)).svg), reference, JSON.stringify(params));
    }
    const none = await api.json(image, { minFeature: 0 });
    const plain = await api.json(image, {});
    assert.equal(none.svg, plain.svg, 'minFeature 0 changes nothing');
  });

  it('refuses a negative or non-numeric minFeature with 400 naming the member', async () => {
    for (const value of [-0.1, '1', null, true, [1]]) {
      const res = await api.post(image, { minFeature: value });
      assert.equal(res.status, 400);
      assert.match(String(res.body.error), /params\.minFeature: must be a number of 0 or more/);
    }
  });
});
