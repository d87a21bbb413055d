// The converter's downloads (issue 20) over a real server: every format from one conversion,
// without another credit and outside the daily quota, for the account that made it only; an
// expired result says so; malformed ids and formats are refused in words, never with a 500.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { DOWNLOAD_RETENTION_MS } from '../../../src/conversion/sources.ts';
import { corpusFile, postVectorize } from '../../helpers/http.ts';
import { csrfOf, type PageClient } from '../../helpers/pages.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { createSqliteDatabase } from '../../helpers/stores.ts';

const PASSWORD = 'long enough password';
const LOGO = corpusFile('logo/flat_shapes_transparency_300.png');

/** What each format's file starts with, and its media type. */
const FORMATS = {
  svg: { type: 'image/svg+xml', head: /^(<\?xml[^>]*>\s*)?<svg\b/ },
  pdf: { type: 'application/pdf', head: /^%PDF-1\.\d/ },
  eps: { type: 'application/postscript', head: /^%!PS-Adobe-3\.0 EPSF-3\.0/ },
  dxf: { type: 'image/vnd.dxf', head: /^\s*0\r?\nSECTION\r?\n\s*2\r?\nHEADER/ },
  png: { type: 'image/png', head: /^\x89PNG/ },
} as const;

describe('/try/results/:id/download', () => {
  let service: TestService;
  let owner: PageClient;
  let other: PageClient;
  let id = '';
  let credits = 0;
  let fidelity = 0;

  async function convertOnTry(client: PageClient, name: string): Promise<{ id: string; credits_remaining: number | null; fidelity: number }> {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(LOGO)], { type: 'image/png' }), name);
    const res = await client.postMultipart('/try', form, { accept: 'application/json', 'x-csrf-token': csrfOf((await client.get('/try')).html) });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    return JSON.parse(res.text) as { id: string; credits_remaining: number | null; fidelity: number };
  }

  async function download(client: PageClient, path: string, headers: Record<string, string> = {}) {
    const res = await fetch(`${service.url}${path}`, { headers: { cookie: client.cookieHeader(), ...headers }, redirect: 'manual' });
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  }

  async function dashboard(client: PageClient): Promise<string> {
    const page = await client.get('/account');
    assert.equal(page.status, 200);
    return page.html;
  }

  const balanceOn = (html: string) => Number(/id="credits">(\d+)</.exec(html)?.[1]);
  const todayOn = (html: string) => /id="today">([^<]*)</.exec(html)?.[1];

  before(async () => {
    service = await startTestService(createSqliteDatabase());
    owner = service.pages();
    other = service.pages();
    await owner.signUp('owner@example.com', PASSWORD);
    await other.signUp('other@example.com', PASSWORD);
    const converted = await convertOnTry(owner, 'My logo <b>.png');
    id = converted.id;
    credits = Number(converted.credits_remaining);
    fidelity = converted.fidelity;
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  it('downloads every format, with its type, a safe file name and the right bytes', async () => {
    for (const [format, expected] of Object.entries(FORMATS)) {
      const res = await download(owner, `/try/results/${id}/download?format=${format}`);
      assert.equal(res.status, 200, `${format}: ${res.bytes.toString('utf8', 0, 300)}`);
      assert.equal(res.headers.get('content-type')?.split(';')[0], expected.type, format);
      assert.equal(res.headers.get('content-disposition'), `attachment; filename="My logo _b_.${format}"`, format);
      assert.match(res.bytes.toString('latin1', 0, 64), expected.head, format);
    }
    const png = await download(owner, `/try/results/${id}/download?format=png`);
    const meta = await sharp(png.bytes).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['png', 300, 300]);
    const noFormat = await download(owner, `/try/results/${id}/download`);
    assert.equal(noFormat.headers.get('content-type')?.split(';')[0], 'image/svg+xml', 'no format is the SVG');
  });

  it('applies the output options that change only the file', async () => {
    const svg = (await download(owner, `/try/results/${id}/download?format=svg&unit=mm&dpi=300`)).bytes.toString('utf8');
    assert.match(svg, /^<svg [^>]*width="25\.4mm"/, svg.slice(0, 200));
    const palette = (await download(owner, `/try/results/${id}/download?format=svg&palette=%23000000,%23ffffff`)).bytes.toString('utf8');
    const fills = new Set(palette.match(/fill="#[0-9a-f]{6}"/g));
    assert.ok([...fills].every((fill) => ['fill="#000000"', 'fill="#ffffff"'].includes(fill)), [...fills].join(' '));
    const bad = await download(owner, `/try/results/${id}/download?format=pdf&dpi=5`);
    assert.equal(bad.status, 400);
    assert.match(bad.bytes.toString('utf8'), /Dpi: must be an integer from 72 to 2400/);
  });

  it('spends no credit and counts toward no quota', async () => {
    const html = await dashboard(owner);
    assert.equal(balanceOn(html), credits);
    assert.match(todayOn(html) ?? '', /^1 of 5 conversions/);
  });

  it('is the owner’s only: another account, or no session, gets nothing', async () => {
    const res = await download(other, `/try/results/${id}/download?format=pdf`);
    assert.equal(res.status, 404);
    assert.ok(!res.bytes.includes('%PDF'));
    assert.match(res.bytes.toString('utf8'), /Result not found/);
    const json = await download(other, `/try/results/${id}/download?format=pdf`, { accept: 'application/json' });
    assert.equal(json.status, 404);
    assert.deepEqual(JSON.parse(json.bytes.toString('utf8')), { error: `Result not found: ${id}.` });
    const anonymous = await fetch(`${service.url}/try/results/${id}/download?format=pdf`, { redirect: 'manual' });
    assert.equal(anonymous.status, 303);
    assert.match(anonymous.headers.get('location') ?? '', /^\/login\?next=/);
  });

  it('answers malformed ids with 404 and unknown formats with 400, never 500', async () => {
    for (const bad of ['vec_nope', '..%2F..%2Fetc%2Fpasswd', '%00', 'vec_zzzzzzzzzzzzz_aaaaaa', `${id}x`, 'a'.repeat(500), '%5B%5D']) {
      const res = await download(owner, `/try/results/${bad}/download?format=svg`);
      assert.equal(res.status, 404, bad);
    }
    // A path that is not even valid percent-encoding is the framework's 400.
    assert.equal((await download(owner, '/try/results/%E2%82/download')).status, 400);
    for (const query of ['format=exe', 'format=pdf&format=png', 'format=', 'format=PDF']) {
      const res = await download(owner, `/try/results/${id}/download?${query}`);
      assert.equal(res.status, 400, query);
      assert.match(res.bytes.toString('utf8'), /Format: must be one of svg, pdf, eps, dxf, png/, query);
    }
    const api = await postVectorize(service.url, await service.accountWithKey('api@example.com'), { image: LOGO });
    assert.equal(api.status, 200);
    assert.equal((await download(owner, `/try/results/${String(api.body.id)}/download`)).status, 404, 'an API conversion of another account');
  });

  it('renders the download links on the no-script result page and on the dashboard', async () => {
    const form = new FormData();
    form.append('_csrf', csrfOf((await owner.get('/try')).html));
    form.append('image', new Blob([new Uint8Array(LOGO)], { type: 'image/png' }), 'plain.png');
    const page = await owner.postMultipart('/try', form);
    assert.equal(page.status, 200);
    // The self-check's fidelity is among the result's facts.
    const shown = Number(/id="result-fidelity"[^>]*>([\d.]+)</.exec(page.text)?.[1]);
    assert.ok(shown > 0.5 && shown <= 1, String(shown));
    const block = /<div id="downloads"[^>]*>([\s\S]*?)<\/div>/.exec(page.text)?.[1] ?? '';
    const links = [...block.matchAll(/<a href="\/try\/results\/(vec_\w+)\/download\?format=(\w+)" download="([^"]+)">Download (\w+)<\/a>/g)];
    assert.deepEqual(
      links.map((m) => [m[2], m[3], m[4]]),
      Object.keys(FORMATS).map((f) => [f, `plain.${f}`, f.toUpperCase()]),
    );
    const html = await dashboard(owner);
    for (const format of Object.keys(FORMATS)) assert.ok(html.includes(`href="/try/results/${id}/download?format=${format}"`), format);
    // The row shows the self-check's fidelity, as the JSON gave it.
    assert.ok(fidelity > 0.5 && fidelity <= 1, String(fidelity));
    const row = new RegExp(`<tr>(?:(?!</tr>)[\\s\\S])*${id}(?:(?!</tr>)[\\s\\S])*</tr>`).exec(html)?.[0] ?? '';
    assert.ok(row.includes(`<td>${fidelity.toFixed(2)}</td>`), row);
  });

  it('says an expired result has expired, on the page and on the dashboard', async () => {
    const { db } = service.store;
    const longAgo = Date.now() - DOWNLOAD_RETENTION_MS - 60_000;
    await db.updateTable('conversion_sources').set({ created_at: longAgo }).where('conversion_id', '=', id).execute();
    const res = await download(owner, `/try/results/${id}/download?format=pdf`);
    assert.equal(res.status, 404);
    assert.match(res.bytes.toString('utf8'), /This result has expired: converter results can be downloaded for 48 hours/);
    assert.ok(!(await dashboard(owner)).includes(`/try/results/${id}/download`), 'the dashboard no longer links it');

    // Purged by the housekeeping: the record, kept longer, still tells "expired" from "unknown".
    await db.updateTable('conversions').set({ created_at: longAgo }).where('id', '=', id).execute();
    await service.housekeep();
    assert.equal((await db.selectFrom('conversion_sources').select('conversion_id').where('conversion_id', '=', id).execute()).length, 0);
    const purged = await download(owner, `/try/results/${id}/download?format=svg`, { accept: 'application/json' });
    assert.equal(purged.status, 404);
    assert.match(String((JSON.parse(purged.bytes.toString('utf8')) as { error: string }).error), /has expired/);
  });
});
