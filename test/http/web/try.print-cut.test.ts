// The converter page (/try) with the print and cut options, as a browser without JavaScript
// uses it: every option has a labelled field, a preset and a palette reach the conversion, and a
// bad palette is refused in words that name the field.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { corpusFile } from '../../helpers/http.ts';
import { PageClient, csrfOf, errorOf } from '../../helpers/pages.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { createSqliteDatabase } from '../../helpers/stores.ts';

const PASSWORD = 'long enough password';
const LOGO = corpusFile('logo/flat_shapes_transparency_300.png');

describe('/try: print and cut options', () => {
  let service: TestService;
  let client: PageClient;
  before(async () => {
    service = await startTestService(createSqliteDatabase());
    client = service.pages();
    await client.signUp('maker@example.com', PASSWORD);
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  async function convert(fields: Record<string, string>): Promise<{ status: number; html: string }> {
    const form = new FormData();
    form.append('_csrf', csrfOf((await client.get('/try')).html));
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append('image', new Blob([new Uint8Array(LOGO)], { type: 'image/png' }), 'shapes.png');
    const res = await client.postMultipart('/try', form);
    return { status: res.status, html: res.text };
  }

  it('has a labelled field for every option, with its hint', async () => {
    const { html } = await client.get('/try');
    for (const [name, label] of [
      ['palette', 'Palette'],
      ['maxColors', 'Max colors'],
      ['centerline', 'Centerline'],
      ['unit', 'Unit'],
      ['dpi', 'DPI'],
      ['minFeature', 'Min feature'],
      ['preset', 'Preset'],
    ]) {
      assert.match(html, new RegExp(`<label for="${name}">${label}</label>`), name);
      assert.match(html, new RegExp(`id="${name}"[^>]*aria-describedby="${name}-hint"`), name);
    }
    assert.match(html, /<select id="preset" name="preset"[^>]*>\s*<option value="" selected>none<\/option>/);
  });

  it('converts with a preset and a palette: cut-outs in mm, every fill a palette colour', async () => {
    const res = await convert({ preset: 'vinyl', palette: '#000000, #E4002B', unit: 'px', stacking: 'stacked' });
    assert.equal(res.status, 200, errorOf(res.html));
    const dataUrl = /id="preview-svg"[^>]*src="data:image\/svg\+xml;base64,([^"]+)"/.exec(res.html)?.[1];
    assert.ok(dataUrl, 'the result is shown');
    const svg = Buffer.from(dataUrl, 'base64').toString('utf8');
    // unit and stacking at their defaults are left to the preset: mm and cut-outs.
    assert.match(svg, /^<svg [^>]*width="79.375mm"/);
    const fills = new Set(svg.match(/fill="#[0-9a-f]{6}"/g));
    assert.ok([...fills].every((fill) => ['fill="#000000"', 'fill="#e4002b"'].includes(fill)), [...fills].join(' '));
    assert.match(res.html, /id="palette"[^>]*value="#000000, #E4002B"/, 'the fields are kept');
  });

  it('refuses a bad palette in words naming the field', async () => {
    const res = await convert({ palette: '#000000, red' });
    assert.equal(res.status, 400);
    assert.match(errorOf(res.html) ?? '', /^Palette, colour 2: must be a colour written &quot;#rrggbb&quot;/);
  });
});
