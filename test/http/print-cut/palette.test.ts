// `palette` over real HTTP: every fill and stroke of every format (SVG, PDF, EPS, DXF, PNG) is a
// palette colour, read back by readers that are not the engine's; no gradients, no partial
// opacity; the nearest colour is the nearest in Oklab; areas that end up in one colour are one
// shape; bad palettes are refused with 400 naming the member.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { converter } from 'culori';
import sharp from 'sharp';
import { corpusFile } from '../../helpers/http.ts';
import { coverageOf, pathElements, polygonsOf } from '../../helpers/coverage.ts';
import { epsColours, pdfColours, pdfContent, pngInnerColours, readDxf, svgPaints } from '../../helpers/readers.ts';
import { startPrintCutService, type PrintCutService } from './files.ts';

const PALETTE = ['#1d3557', '#e63946', '#f1faee', '#a8dadc', '#457b9d'];
const IMAGES = [
  'logo/flat_shapes_transparency_300.png',
  'logo/visioncortex_icon_400.png',
  'photo/kodim23.png',
  'sketch/imagetracerjs_flower_lineart.png',
  'pixelart/vtracer_tank_unit_preview.png',
];

function within(colours: Iterable<string>, palette: readonly string[], what: string): void {
  const allowed = new Set(palette);
  for (const colour of colours) assert.ok(allowed.has(colour), `${what}: ${colour} is not in the palette ${palette.join(' ')}`);
}

/** 8-connected pieces of a coverage mask. */
function piecesOf(mask: Uint8Array, width: number, height: number): number {
  const seen = new Uint8Array(mask.length);
  let pieces = 0;
  for (let start = 0; start < mask.length; start++) {
    if (!mask[start] || seen[start]) continue;
    pieces++;
    const stack = [start];
    seen[start] = 1;
    while (stack.length > 0) {
      const p = stack.pop() as number;
      const x = p % width;
      const y = (p - x) / width;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          const q = ny * width + nx;
          if (nx >= 0 && ny >= 0 && nx < width && ny < height && mask[q] && !seen[q]) {
            seen[q] = 1;
            stack.push(q);
          }
        }
      }
    }
  }
  return pieces;
}

describe('palette', () => {
  let api: PrintCutService;
  before(async () => {
    api = await startPrintCutService('palette@example.com');
  });
  after(async () => api.close());

  for (const file of IMAGES) {
    it(`${file}: every fill of the SVG, PDF, EPS, DXF and PNG is a palette colour, solid`, async (t) => {
      const params = { palette: PALETTE };
      const { svg } = await api.json(file, params);
      const paints = svgPaints(svg);
      assert.ok(paints.colours.size > 0);
      within(paints.colours, PALETTE, 'SVG');
      assert.equal(paints.gradients, 0, 'no gradients');
      assert.equal(paints.partialOpacity, 0, 'no partial opacity');

      const pdf = await api.file('pdf', file, params);
      within(pdfColours(pdf), PALETTE, 'PDF');
      const content = pdfContent(pdf);
      assert.doesNotMatch(content, /\ssh\b|\/Pattern\s+cs/, 'no shadings in the PDF');
      assert.doesNotMatch(pdf.toString('latin1'), /\/ca 0\.|\/CA 0\./, 'no partial opacity in the PDF');

      const eps = (await api.file('eps', file, params)).toString('latin1');
      within(epsColours(eps), PALETTE, 'EPS');
      assert.doesNotMatch(eps, /makepattern|shfill/, 'no shadings in the EPS');

      const dxf = readDxf((await api.file('dxf', file, params)).toString('utf8'));
      const layers = new Set(dxf.entities.map((entity) => entity.layer));
      within([...layers].map((layer) => `#${layer.replace(/^COLOR_/, '').toLowerCase()}`), PALETTE, 'DXF layers');
      within(dxf.trueColours, PALETTE, 'DXF true colours');

      const png = await pngInnerColours(await api.file('png', file, params));
      within(png.colours.keys(), PALETTE, 'PNG inner pixels');
      assert.equal(png.translucentInner, 0, 'no partly transparent areas in the PNG');
      t.diagnostic(`${paints.colours.size} palette colours used: ${[...paints.colours].join(' ')}`);
    });
  }

  it('takes the nearest colour in Oklab, not in RGB', async () => {
    // The flat shapes' yellow (#fff214) against two candidates: the RGB-nearer is not the
    // perceptually nearer. The candidates are found here, with culori, not by the engine.
    const toOklab = converter('oklab');
    const lab = (hex: string) => {
      const c = toOklab(hex);
      return [c?.l ?? 0, c?.a ?? 0, c?.b ?? 0];
    };
    const rgb = (hex: string) => [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));
    const distance = (a: number[], b: number[]) => Math.hypot(...a.map((v, i) => v - (b[i] as number)));
    const yellow = '#fff214';
    const perceptual = '#00e0a0'; // a teal green, nearer in Oklab
    const numeric = '#c06020'; // a brown, nearer in RGB
    assert.ok(distance(rgb(numeric), rgb(yellow)) < distance(rgb(perceptual), rgb(yellow)), 'the brown is nearer in RGB');
    assert.ok(distance(lab(perceptual), lab(yellow)) < distance(lab(numeric), lab(yellow)), 'the teal is nearer in Oklab');
    const palette = ['#d70b0b', '#330bd7', perceptual, numeric];
    const { svg } = await api.json('logo/flat_shapes_transparency_300.png', { palette });
    const colours = svgPaints(svg).colours;
    assert.ok(colours.has(perceptual), `the yellow circle is teal: ${[...colours].join(' ')}`);
    // The circle's middle in the PNG (at 170, 130 in the source, yellow there): the teal, not the brown.
    const png = await api.file('png', 'logo/flat_shapes_transparency_300.png', { palette });
    const { data } = await sharp(png).extract({ left: 170, top: 130, width: 1, height: 1 }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const source = await sharp(corpusFile('logo/flat_shapes_transparency_300.png')).extract({ left: 170, top: 130, width: 1, height: 1 }).removeAlpha().raw().toBuffer();
    assert.deepEqual([...source], [255, 242, 20], 'the source is yellow there');
    assert.deepEqual([...data], [0x00, 0xe0, 0xa0]);
  });

  it('merges areas that end up in one colour into one shape', async () => {
    // Red and green overlap in the source; with green mapped to red they are one outline.
    const file = 'logo/flat_shapes_transparency_300.png';
    const plain = (await api.json(file, {})).svg;
    assert.ok(pathElements(plain).length >= 4, 'four shapes without a palette');
    const { svg } = await api.json(file, { palette: ['#ff0000', '#0000ff', '#ffffff'] });
    assert.deepEqual([...svgPaints(svg).colours].sort(), ['#0000ff', '#ff0000', '#ffffff']);
    assert.equal(pathElements(svg).filter((path) => path.fill === '#ff0000').length, 1, 'one red path');
    const red = pathElements(svg).find((path) => path.fill === '#ff0000') as { d: string };
    assert.equal(piecesOf(coverageOf(polygonsOf(red.d), 300, 300, 1), 300, 300), 1, 'one red piece: the red and the green shapes merged');
  });

  it('with centerline, strokes are drawn in the nearest palette colour', async () => {
    const { svg } = await api.json('sketch/imagetracerjs_flower_lineart.png', { centerline: true, palette: ['#ffffff', '#112233', '#cc0000'] });
    const strokes = [...svg.matchAll(/stroke="(#[0-9a-f]{6})"/g)].map((match) => match[1]);
    assert.ok(strokes.length > 0);
    assert.ok(strokes.every((colour) => colour === '#112233'), `strokes in ${[...new Set(strokes)].join(' ')}`);
  });

  it('with maxColors, uses at most that many of the palette colours', async () => {
    const { svg } = await api.json('photo/kodim23.png', { palette: PALETTE, maxColors: 2 });
    const colours = svgPaints(svg).colours;
    assert.ok(colours.size >= 1 && colours.size <= 2, `${colours.size} colours`);
    within(colours, PALETTE, 'SVG');
  });

  it('refuses bad palettes with 400 naming the member, and normalises good ones', async () => {
    for (const [palette, words] of [
      [['#ff0000', 'blue'], /params\.palette\[1\]: must be a colour written "#rrggbb"/],
      [[], /params\.palette: must be an array of 1 to 256 colours/],
      ['#ff0000', /params\.palette: must be an array/],
      [['#ff00000'], /params\.palette\[0\]/],
      [Array.from({ length: 257 }, () => '#000000'), /params\.palette: must be an array of 1 to 256/],
    ] as const) {
      const res = await api.post('logo/flat_shapes_transparency_300.png', { palette });
      assert.equal(res.status, 400, JSON.stringify(palette).slice(0, 60));
      assert.match(String(res.body.error), words);
    }
    const { id } = await api.json('logo/flat_shapes_transparency_300.png', { palette: ['#FF0000', '#ff0000', '#00FF00'] });
    const meta = await fetch(`${api.service.url}/api/v1/result/${id}`, { headers: { authorization: `Bearer ${api.key}` } });
    assert.deepEqual(((await meta.json()) as { params: { palette: string[] } }).params.palette, ['#ff0000', '#00ff00']);
  });
});
