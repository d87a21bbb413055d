// The output formats over real HTTP, each checked by a reader that is not ours: pdftoppm renders
// the PDF and Ghostscript the EPS (compared with resvg's rendering of the SVG by SSIM),
// dxf-parser reads the DXF back, sharp reads the PNG. Also cut-outs (no overlap by area, same
// picture as stacked), colour groups, and 406 (before any credit is reserved).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import dxfParser, { type DxfParser as DxfParserType } from 'dxf-parser';
import sharp from 'sharp';
import { findAccountByEmail } from '../../src/accounts/accounts.ts';
import { ledgerSum } from '../../src/accounts/credits.ts';
import { averageFill, countSubpaths, overlapAndGaps, pathElements } from '../helpers/coverage.ts';
import { corpusFile, vectorizeForm } from '../helpers/http.ts';
import { renderEps, renderersProblem, renderPdf, renderSvg, ssimOf } from '../helpers/renderers.ts';
import { liftFreeLimits, startTestService, type TestService } from '../helpers/service.ts';
import { createSqliteDatabase } from '../helpers/stores.ts';
import { countAnchors } from '../helpers/svg.ts';

const LOGOS = [
  { file: 'logo/flag_br_noto.png', width: 720, height: 504 },
  { file: 'logo/flat_shapes_transparency_300.png', width: 300, height: 300 },
  { file: 'logo/paper_accessories_calculator_512.png', width: 512, height: 512 },
  { file: 'logo/paper_accessories_maps_512.png', width: 512, height: 512 },
  { file: 'logo/visioncortex_banner_1100x120.png', width: 1100, height: 120 },
  { file: 'logo/visioncortex_icon_400.png', width: 400, height: 400 },
];
const ID = /^vec_[a-z0-9]+_[a-z0-9]{6}$/;
const renderers = renderersProblem();
// dxf-parser's CommonJS build exports the class itself; its types describe an ES module.
const DxfParser = dxfParser as unknown as typeof DxfParserType;

interface FileResponse {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

async function postFor(baseUrl: string, key: string, accept: string | undefined, image: Buffer, params?: Record<string, unknown>): Promise<FileResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (accept !== undefined) headers.accept = accept;
  const response = await fetch(`${baseUrl}/api/v1/vectorize`, { method: 'POST', headers, body: vectorizeForm({ image, params }) });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

describe('output formats', () => {
  let service: TestService;
  let key: string;
  const svgs = new Map<string, string>();

  async function fileOf(accept: string, file: string, params?: Record<string, unknown>): Promise<FileResponse> {
    const response = await postFor(service.url, key, accept, corpusFile(file), params);
    assert.equal(response.status, 200, response.bytes.toString('utf8').slice(0, 300));
    assert.equal(response.headers.get('content-type')?.split(';')[0], accept);
    assert.match(response.headers.get('x-conversion-id') ?? '', ID);
    assert.match(response.headers.get('x-node-count') ?? '', /^\d+$/);
    assert.match(response.headers.get('x-processing-time-ms') ?? '', /^\d+$/);
    const fidelity = Number(response.headers.get('x-fidelity'));
    assert.ok(fidelity > 0 && fidelity <= 1, `X-Fidelity ${response.headers.get('x-fidelity')}`);
    // Unmetered: the header is there, empty.
    assert.equal(response.headers.get('x-credits-remaining'), '');
    return response;
  }

  async function svgOf(file: string): Promise<string> {
    const cached = svgs.get(file);
    if (cached) return cached;
    const response = await fileOf('image/svg+xml', file);
    const svg = response.bytes.toString('utf8');
    assert.match(svg, /^<svg\b/);
    assert.equal(Number(response.headers.get('x-node-count')), countAnchors(svg));
    svgs.set(file, svg);
    return svg;
  }

  before(async () => {
    service = await startTestService(createSqliteDatabase());
    key = await service.accountWithKey('formats@example.com', { plan: 'lifetime' });
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  for (const logo of LOGOS) {
    it(`${logo.file}: PDF (pdftoppm) and EPS (Ghostscript) render like the SVG`, { skip: renderers }, async (t) => {
      const svg = await svgOf(logo.file);
      const reference = renderSvg(svg);
      const pdf = (await fileOf('application/pdf', logo.file)).bytes;
      assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
      assert.ok(!pdf.includes('/Subtype /Image'), 'the PDF holds no raster image');
      const eps = (await fileOf('application/postscript', logo.file)).bytes;
      const epsText = eps.toString('latin1');
      assert.ok(epsText.startsWith('%!PS-Adobe-3.0 EPSF-3.0\n'));
      assert.match(epsText, new RegExp(`\\n%%BoundingBox: 0 0 ${logo.width} ${logo.height}\\n`));
      const pdfSsim = await ssimOf(await renderPdf(pdf), reference, logo.width, logo.height);
      const epsSsim = await ssimOf(await renderEps(eps), reference, logo.width, logo.height);
      t.diagnostic(`SSIM against resvg: PDF ${pdfSsim.toFixed(4)}, EPS ${epsSsim.toFixed(4)}`);
      assert.ok(pdfSsim >= 0.98, `PDF SSIM ${pdfSsim}`);
      assert.ok(epsSsim >= 0.98, `EPS SSIM ${epsSsim}`);
    });

    it(`${logo.file}: DXF reads back as a closed polyline per subpath, a layer per colour; PNG at the original size`, async (t) => {
      const svg = await svgOf(logo.file);
      for (const accept of ['image/vnd.dxf', 'application/dxf']) {
        const dxf = new DxfParser().parseSync((await fileOf(accept, logo.file)).bytes.toString('utf8'));
        assert.ok(dxf, 'dxf-parser read the file');
        const entities = dxf.entities as unknown as { type: string; shape?: boolean; layer: string; vertices: unknown[] }[];
        assert.ok(entities.length > 0);
        assert.ok(entities.every((entity) => entity.type === 'LWPOLYLINE' && entity.shape === true && entity.vertices.length >= 3));
        assert.equal(entities.length, countSubpaths(svg));
        // A gradient shape goes on the layer of its mean colour: DXF has no gradients. The SVG's
        // stops are rounded to whole levels and short offsets, the DXF's mean is taken before
        // rounding, so a gradient's layer may differ from the mean read back here by one level.
        const fills = new Set(pathElements(svg).map(({ fill }) => `COLOR_${averageFill(svg, fill ?? '').slice(1).toUpperCase()}`));
        const layers = new Set(entities.map((entity) => entity.layer));
        const near = (a: string, b: string) =>
          [0, 2, 4].every((at) => Math.abs(parseInt(a.slice(6 + at, 8 + at), 16) - parseInt(b.slice(6 + at, 8 + at), 16)) <= 1);
        for (const layer of layers) assert.ok([...fills].some((fill) => near(layer, fill)), `layer ${layer} is the colour of a shape`);
        for (const fill of fills) assert.ok([...layers].some((layer) => near(layer, fill)), `the shapes of ${fill} have a layer`);
        assert.ok([...layers].every((layer) => dxf.tables.layer.layers[layer]), 'every colour layer is declared');
        t.diagnostic(`DXF: ${entities.length} closed polylines on ${fills.size} layers`);
      }
      const png = (await fileOf('image/png', logo.file)).bytes;
      const metadata = await sharp(png).metadata();
      assert.equal(metadata.format, 'png');
      assert.equal(metadata.width, logo.width);
      assert.equal(metadata.height, logo.height);
      assert.ok((await ssimOf(png, renderSvg(svg), logo.width, logo.height)) > 0.999);
    });
  }

  for (const file of ['logo/flag_br_noto.png', 'logo/paper_accessories_calculator_512.png', 'logo/visioncortex_icon_400.png']) {
    it(`${file}: cut-outs do not overlap (by area), leave no gap, and look like stacked`, async (t) => {
      const { width, height } = LOGOS.find((logo) => logo.file === file) as (typeof LOGOS)[number];
      const stacked = await svgOf(file);
      const cut = (await fileOf('image/svg+xml', file, { stacking: 'cutouts' })).bytes.toString('utf8');
      const before = overlapAndGaps(stacked, width, height);
      const after = overlapAndGaps(cut, width, height);
      const similarity = await ssimOf(renderSvg(cut), renderSvg(stacked), width, height);
      t.diagnostic(
        `overlap ${(before.overlap * 100).toFixed(3)} % stacked → ${(after.overlap * 100).toFixed(4)} % cut; ` +
          `uncovered ${(before.uncovered * 100).toFixed(3)} % → ${(after.uncovered * 100).toFixed(3)} %; SSIM ${similarity.toFixed(4)}`,
      );
      // Stacked shapes overlap a lot, which shows the check sees overlap; cut-outs keep only
      // slivers along cut lines narrower than a coordinate step.
      assert.ok(before.overlap > 0.01);
      assert.ok(after.overlap < 0.0005, `overlap ${after.overlap}`);
      assert.ok(after.uncovered - before.uncovered < 0.0005, `gaps ${after.uncovered - before.uncovered}`);
      assert.ok(similarity >= 0.98, `SSIM ${similarity}`);
    });
  }

  it('groupBy color: each colour of cut-outs in one <g>; stacked shapes all inside colour groups', async () => {
    const file = 'logo/paper_accessories_calculator_512.png';
    const cut = (await fileOf('image/svg+xml', file, { stacking: 'cutouts', groupBy: 'color' })).bytes.toString('utf8');
    // One group per fill colour, whatever the opacity of its shapes (#00b9a0 at 0.75 and 0.76): each path keeps its own.
    const groupFills = [...cut.matchAll(/<g fill="(#[0-9a-f]{6}|url\(#g\d+\))"[^>]*>/g)];
    assert.ok(groupFills.length > 1);
    assert.ok(groupFills.every((match) => !match[0].includes('opacity')), 'opacity belongs to the paths');
    assert.equal(new Set(groupFills.map((match) => match[1])).size, groupFills.length, 'one group per colour');
    assert.ok(pathElements(cut).every(({ fill }) => fill === undefined), 'paths take their fill from their group');
    assert.match(cut, /<path d="[^"]*" fill-opacity="0\.\d+"\/>/, 'the translucent paths carry their opacity');
    const stacked = (await fileOf('image/svg+xml', file, { groupBy: 'color' })).bytes.toString('utf8');
    const body = stacked.replace(/^<svg[^>]*>/, '').replace(/<\/svg>\s*$/, '').replace(/^\s*<defs>[\s\S]*?<\/defs>/, '');
    // A blurred shape (a soft shadow) is in a group of its colour that also carries the blur.
    assert.equal(body.replace(/\n<g (?:filter="url\(#b\d+\)" )?fill="(?:#[0-9a-f]{6}|url\(#g\d+\))">(?:\n<path d="[^"]*"(?: fill-opacity="[\d.]+")?\/>)+\n<\/g>/g, '').trim(), '');
    const similarity = await ssimOf(renderSvg(stacked), renderSvg(await svgOf(file)), 512, 512);
    assert.ok(similarity > 0.999, `grouping changed the picture: SSIM ${similarity}`);
  });
});

describe('content negotiation and credits', () => {
  let service: TestService;
  let freeKey: string;
  before(async () => {
    service = await startTestService(createSqliteDatabase());
    freeKey = await service.accountWithKey('free-formats@example.com');
    // Metered, but without the burst and daily limits, which other tests cover.
    await liftFreeLimits(service);
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  it('answers 406 in JSON, listing what it returns, for an Accept it cannot satisfy, and spends no credit', async () => {
    const image = corpusFile('edge/tiny_tango_address_book_32.png');
    for (const accept of ['text/html', 'image/jpeg', 'application/pdf;q=0', 'image/png;q=0, application/json;q=0']) {
      const response = await postFor(service.url, freeKey, accept, image);
      assert.equal(response.status, 406, accept);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      const body = JSON.parse(response.bytes.toString('utf8')) as { error: string };
      for (const type of ['application/json', 'image/svg+xml', 'application/pdf', 'application/postscript', 'image/vnd.dxf', 'application/dxf', 'image/png']) {
        assert.ok(body.error.includes(type), `${type} listed in ${body.error}`);
      }
    }
    const account = await findAccountByEmail(service.store.db, 'free-formats@example.com');
    assert.equal(account?.credits, 10);
    assert.equal(await ledgerSum(service.store.db, account!.id), 10);
  });

  it('answers JSON for no Accept, */* and application/json, and a free file response carries the balance', async () => {
    const image = corpusFile('edge/tiny_tango_address_book_32.png');
    for (const accept of [undefined, '*/*', 'application/json', 'text/html, */*;q=0.8']) {
      const response = await postFor(service.url, freeKey, accept, image);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.match(String((JSON.parse(response.bytes.toString('utf8')) as { svg: string }).svg), /^<svg/);
    }
    const pdf = await postFor(service.url, freeKey, 'application/pdf', image);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers.get('x-credits-remaining'), '5');
  });

  it('answers errors in JSON whatever the Accept, spending nothing', async () => {
    const response = await postFor(service.url, freeKey, 'application/pdf', corpusFile('edge/tiny_tango_address_book_32.png'), { stacking: 'sideways' });
    assert.equal(response.status, 400);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    assert.match((JSON.parse(response.bytes.toString('utf8')) as { error: string }).error, /params\.stacking: must be one of "stacked", "cutouts"/);
    const account = await findAccountByEmail(service.store.db, 'free-formats@example.com');
    assert.equal(account?.credits, 5);
  });
});
