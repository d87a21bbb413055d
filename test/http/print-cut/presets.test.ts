// `preset` and the cut report over real HTTP. Each preset's values are read from the table in
// docs/parameters.md and checked against the result lookup's effective params and against the
// file itself (cut-outs do not overlap, the unit, the colour limit, centerline strokes, nothing
// narrower than minFeature left); members given explicitly win. The report is in the JSON
// response and the result lookup when unit is not px or a preset is given, and agrees with the
// SVG it describes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { overlapAndGaps, pathElements, subpathsOf } from '../../helpers/coverage.ts';
import { getResult } from '../../helpers/http.ts';
import { svgPaints } from '../../helpers/readers.ts';
import { startPrintCutService, type PrintCutService } from './files.ts';

const DOCS = readFileSync(new URL('../../../docs/parameters.md', import.meta.url), 'utf8');

/** The presets table of docs/parameters.md: preset → member → value (members marked – are not set). */
function documentedPresets(): Map<string, Record<string, unknown>> {
  const section = DOCS.slice(DOCS.indexOf('### Presets'));
  const lines = section.slice(0, section.indexOf('\n###', 1)).split('\n').filter((line) => line.startsWith('|'));
  const header = (lines[0] as string).split('|').slice(1, -1).map((cell) => cell.trim().replace(/`/g, ''));
  const presets = new Map<string, Record<string, unknown>>();
  for (const line of lines.slice(2)) {
    const cells = line.split('|').slice(1, -1).map((cell) => cell.trim().replace(/`/g, ''));
    const values: Record<string, unknown> = {};
    header.forEach((member, column) => {
      if (column === 0 || member === 'why') return;
      const cell = cells[column] as string;
      if (cell === '–') return;
      values[member] = cell === 'true' ? true : cell === 'false' ? false : /^[\d.]+$/.test(cell) ? Number(cell) : cell;
    });
    presets.set(cells[0] as string, values);
  }
  return presets;
}

const PRESETS = documentedPresets();

/** The path data of strokes: paths with fill="none", or in a group with it (groupBy: color). */
function strokeData(svg: string): string[] {
  const own = pathElements(svg).filter((path) => path.fill === 'none').map((path) => path.d);
  const grouped = [...svg.matchAll(/<g fill="none"[^>]*>([\s\S]*?)<\/g>/g)].flatMap((group) => pathElements(group[1] as string).map((path) => path.d));
  return [...own, ...grouped];
}
const LOGO = 'logo/paper_accessories_calculator_512.png';
const DRAWING = 'sketch/imagetracerjs_flower_lineart.png';

describe('presets and the cut report', () => {
  let api: PrintCutService;
  before(async () => {
    api = await startPrintCutService('presets@example.com');
  });
  after(async () => api.close());

  it('docs/parameters.md documents every preset the engine has', () => {
    assert.deepEqual([...PRESETS.keys()].sort(), ['embroidery', 'laser', 'plotter', 'screenprint', 'vinyl']);
    assert.equal(PRESETS.get('vinyl')?.stacking, 'cutouts');
    assert.equal(PRESETS.get('laser')?.unit, 'mm');
    assert.equal(PRESETS.get('plotter')?.centerline, true);
  });

  for (const [preset, values] of PRESETS) {
    it(`${preset}: the effective params and the file are what docs/parameters.md says`, async (t) => {
      const file = values.centerline ? DRAWING : LOGO;
      const { width, height } = await sharp(readFileSync(new URL(`../../../../shared/corpus/${file}`, import.meta.url))).metadata();
      const result = await api.json(file, { preset });
      const meta = await getResult(api.service.url, api.key, result.id);
      const params = meta.body.params as Record<string, unknown>;
      assert.equal(params.preset, preset);
      for (const [member, value] of Object.entries(values)) assert.deepEqual(params[member], value, `${member} of ${preset}`);
      assert.deepEqual(meta.body.report, result.report, 'the lookup has the same report');
      const report = result.report as Record<string, number | null>;
      const svg = result.svg;

      // The unit: width in mm at 96 dpi.
      if (values.unit === 'mm') assert.match(svg, new RegExp(`^<svg [^>]*width="${Number((((width as number) / 96) * 25.4).toFixed(3))}mm"`));
      // The colour limit.
      if (typeof values.maxColors === 'number') assert.ok(svgPaints(svg).colours.size <= values.maxColors, `${svgPaints(svg).colours.size} colours`);
      // Cut-outs: nothing overlaps, by area and in the report.
      if (values.stacking === 'cutouts') {
        const { overlap } = overlapAndGaps(svg, width as number, height as number);
        assert.ok(overlap < 0.0005, `overlap ${overlap}`);
        assert.equal(report.overlaps, 0);
      }
      if (values.stacking === 'stacked') assert.ok((report.overlaps as number) > 0, 'stacked shapes lie on one another');
      // Centerline: open strokes, counted by the report.
      const openSubpaths = strokeData(svg).reduce((n, d) => n + subpathsOf(d).length, 0);
      if (values.centerline) assert.ok(openSubpaths > 0, 'centerline strokes');
      assert.equal(report.open_paths, openSubpaths);
      // Nothing narrower than minFeature is left.
      if (typeof values.minFeature === 'number' && report.smallest_feature !== null) {
        assert.ok((report.smallest_feature as number) >= (values.minFeature as number) * 0.99, `smallest ${report.smallest_feature} mm`);
      }
      t.diagnostic(`${preset}: ${JSON.stringify(report)}`);
    });
  }

  it('members given explicitly win over the preset', async () => {
    const result = await api.json(LOGO, { preset: 'vinyl', unit: 'in', maxColors: 2, stacking: 'stacked' });
    const params = (await getResult(api.service.url, api.key, result.id)).body.params as Record<string, unknown>;
    assert.equal(params.unit, 'in');
    assert.equal(params.maxColors, 2);
    assert.equal(params.stacking, 'stacked');
    assert.equal(params.minFeature, 0.5, 'the rest from the preset');
    assert.equal(params.groupBy, 'color');
    assert.match(result.svg, /^<svg [^>]*width="5.3333in"/);
    assert.ok(svgPaints(result.svg).colours.size <= 2);
  });

  it('the report is there when unit is not px or a preset is given, and only then', async () => {
    const plain = await api.json(LOGO, {});
    assert.equal(plain.report, undefined);
    assert.equal((await getResult(api.service.url, api.key, plain.id)).body.report, undefined);
    const inches = await api.json(LOGO, { unit: 'in' });
    const report = inches.report as Record<string, number>;
    assert.deepEqual(Object.keys(report).sort(), ['islands', 'open_paths', 'overlaps', 'paths', 'removed_below_min_feature', 'smallest_feature']);
    // `paths`: every subpath of the SVG (closed outlines and open strokes).
    const subpaths = pathElements(inches.svg).reduce((n, path) => n + subpathsOf(path.d, 3).length, 0);
    assert.equal(report.paths, subpaths);
    assert.equal(report.open_paths, 0);
    assert.equal(report.removed_below_min_feature, 0);
    assert.deepEqual((await getResult(api.service.url, api.key, inches.id)).body.report, report);
  });

  it('counts the islands a stencil would lose: the middles of rings', async () => {
    // Three black rings on white: each middle falls out of a stencil of the ink.
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="120"><rect width="300" height="120" fill="#fff"/>${[50, 150, 250]
      .map((cx) => `<circle cx="${cx}" cy="60" r="35" fill="none" stroke="#000" stroke-width="12"/>`)
      .join('')}</svg>`;
    const image = await sharp(Buffer.from(svg)).png().toBuffer();
    const result = await api.json(image, { preset: 'vinyl' });
    const report = result.report as Record<string, number>;
    // Cut-outs of ink on paper: three rings of ink with a hole each, and the paper with three
    // holes of its own (where the rings are) — six islands in all.
    assert.equal(report.islands, 6, JSON.stringify(report));
    const stacked = await api.json(image, { unit: 'mm' });
    assert.equal((stacked.report as Record<string, number>).islands, 3, 'stacked: the rings’ middles');
  });

  it('refuses an unknown preset with 400 naming the member', async () => {
    for (const preset of ['cnc', 'VINYL', 1, null]) {
      const res = await api.post(LOGO, { preset });
      assert.equal(res.status, 400);
      assert.match(String(res.body.error), /params\.preset: must be one of "vinyl", "laser", "plotter", "screenprint", "embroidery"/);
    }
  });
});
