// `unit` and `dpi` over real HTTP, read back by readers that are not ours: the SVG keeps its
// viewBox in pixels and states its size in mm or inches; pdfinfo reads the PDF's page size;
// Ghostscript's bbox device measures what the EPS marks, inside its %%BoundingBox; dxf-parser
// reads $INSUNITS and the drawing's extents; the PNG keeps its pixels and carries the dpi.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { epsMarkedBox, pdfPageSize, readDxf } from '../../helpers/readers.ts';
import { renderersProblem } from '../../helpers/renderers.ts';
import { startPrintCutService, type PrintCutService } from './files.ts';

// An opaque flag (its background fills the page) and a logo on transparency.
const FLAG = { file: 'logo/flag_br_noto.png', width: 720, height: 504 };
const LOGO = { file: 'logo/flat_shapes_transparency_300.png', width: 300, height: 300 };
const renderers = renderersProblem();

const PER_INCH = { mm: 25.4, in: 1 } as const;
const INSUNITS = { mm: 4, in: 1 } as const;

describe('unit and dpi', () => {
  let api: PrintCutService;
  before(async () => {
    api = await startPrintCutService('units@example.com');
  });
  after(async () => api.close());

  for (const unit of ['mm', 'in'] as const) {
    for (const dpi of [72, 96, 300, 2400]) {
      it(`${unit} at ${dpi} dpi: SVG size, PDF page, EPS box, DXF units and extents, PNG density`, { skip: renderers }, async (t) => {
        const { width, height } = FLAG;
        const params = { unit, dpi };
        const size = { width: (width / dpi) * PER_INCH[unit], height: (height / dpi) * PER_INCH[unit] };
        const points = { width: (width / dpi) * 72, height: (height / dpi) * 72 };

        const { svg } = await api.json(FLAG.file, params);
        const root = /^<svg\b[^>]*>/.exec(svg)?.[0] ?? '';
        assert.match(root, new RegExp(`viewBox="0 0 ${width} ${height}"`));
        const svgWidth = new RegExp(`width="([\\d.]+)${unit}"`).exec(root);
        const svgHeight = new RegExp(`height="([\\d.]+)${unit}"`).exec(root);
        assert.ok(svgWidth && svgHeight, root);
        assert.ok(Math.abs(Number(svgWidth[1]) - size.width) < 1e-3, `SVG width ${svgWidth[1]} ${unit}, expected ${size.width}`);
        assert.ok(Math.abs(Number(svgHeight[1]) - size.height) < 1e-3, `SVG height ${svgHeight[1]} ${unit}`);

        const page = await pdfPageSize(await api.file('pdf', FLAG.file, params));
        assert.ok(Math.abs(page.width - points.width) < 0.01 && Math.abs(page.height - points.height) < 0.01, `PDF page ${page.width} × ${page.height} pt, expected ${points.width} × ${points.height}`);

        const eps = await api.file('eps', FLAG.file, params);
        const text = eps.toString('latin1');
        assert.match(text, new RegExp(`\\n%%BoundingBox: 0 0 ${Math.ceil(points.width - 1e-6)} ${Math.ceil(points.height - 1e-6)}\\n`));
        const hiRes = /\n%%HiResBoundingBox: 0 0 ([\d.]+) ([\d.]+)\n/.exec(text);
        assert.ok(hiRes && Math.abs(Number(hiRes[1]) - points.width) < 1e-3 && Math.abs(Number(hiRes[2]) - points.height) < 1e-3, `HiResBoundingBox ${hiRes?.[0]}`);
        // The flag is opaque: what Ghostscript sees marked is the whole box.
        const marked = await epsMarkedBox(eps);
        assert.ok(marked.x0 <= 1 && marked.y0 <= 1, `marked from ${marked.x0}, ${marked.y0}`);
        assert.ok(Math.abs(marked.x1 - points.width) <= 1 && Math.abs(marked.y1 - points.height) <= 1, `marked to ${marked.x1}, ${marked.y1}`);

        const dxf = readDxf((await api.file('dxf', FLAG.file, params)).toString('utf8'));
        assert.equal(dxf.header.$INSUNITS, INSUNITS[unit]);
        const xs = dxf.entities.flatMap((entity) => entity.vertices.map((vertex) => vertex.x));
        const ys = dxf.entities.flatMap((entity) => entity.vertices.map((vertex) => vertex.y));
        const step = PER_INCH[unit] / dpi; // a pixel in the unit
        assert.ok(Math.min(...xs) >= -1e-6 && Math.min(...ys) >= -1e-6);
        assert.ok(Math.abs(Math.max(...xs) - size.width) <= step && Math.abs(Math.max(...ys) - size.height) <= step, `DXF extents ${Math.max(...xs)} × ${Math.max(...ys)}`);
        const extMax = dxf.header.$EXTMAX as { x: number; y: number };
        assert.ok(Math.abs(extMax.x - Math.max(...xs)) < 1e-6 && Math.abs(extMax.y - Math.max(...ys)) < 1e-6, '$EXTMAX is the drawing’s extent');
        const limMax = dxf.header.$LIMMAX as { x: number; y: number };
        assert.ok(Math.abs(limMax.x - size.width) < step / 10 && Math.abs(limMax.y - size.height) < step / 10, '$LIMMAX is the page');

        const png = await sharp(await api.file('png', FLAG.file, params)).metadata();
        assert.equal(png.width, width);
        assert.equal(png.height, height);
        assert.ok(Math.abs((png.density ?? 0) - dpi) < 0.5, `PNG density ${png.density}`);
        t.diagnostic(`${size.width.toFixed(3)} × ${size.height.toFixed(3)} ${unit}; PDF ${page.width} × ${page.height} pt; EPS marked ${marked.x1} × ${marked.y1}`);
      });
    }
  }

  it('a logo on transparency: the EPS marks only inside its box, the DXF only inside its page', { skip: renderers }, async () => {
    const params = { unit: 'mm', dpi: 300 };
    const points = (LOGO.width / 300) * 72;
    const marked = await epsMarkedBox(await api.file('eps', LOGO.file, params));
    assert.ok(marked.x0 > 1 && marked.x1 < points - 1 && marked.y0 > 1 && marked.y1 < points - 1, `marked ${JSON.stringify(marked)} within 0–${points}`);
    const dxf = readDxf((await api.file('dxf', LOGO.file, params)).toString('utf8'));
    const side = (LOGO.width / 300) * 25.4;
    const xs = dxf.entities.flatMap((entity) => entity.vertices.map((vertex) => vertex.x));
    assert.ok(Math.min(...xs) > 0 && Math.max(...xs) < side);
  });

  it('px (the default) keeps the pixel sizes: width and height in pixels, PDF at 72 dpi, DXF unitless', async () => {
    const { svg } = await api.json(LOGO.file, {});
    assert.match(svg, /^<svg [^>]*width="300" height="300"/);
    const dxf = readDxf((await api.file('dxf', LOGO.file, { dpi: 300 })).toString('utf8'));
    assert.equal(dxf.header.$INSUNITS, 0);
    const xs = dxf.entities.flatMap((entity) => entity.vertices.map((vertex) => vertex.x));
    assert.ok(Math.max(...xs) > 200, 'one unit per pixel, whatever the dpi');
  });

  it('refuses a bad unit or dpi with 400 naming the member', async () => {
    for (const [params, words] of [
      [{ unit: 'cm' }, /params\.unit: must be one of "px", "mm", "in"/],
      [{ dpi: 71 }, /params\.dpi: must be an integer from 72 to 2400/],
      [{ dpi: 2401 }, /params\.dpi/],
      [{ dpi: 300.5 }, /params\.dpi/],
      [{ dpi: '300' }, /params\.dpi/],
    ] as const) {
      const res = await api.post(LOGO.file, params);
      assert.equal(res.status, 400);
      assert.match(String(res.body.error), words);
    }
  });
});
