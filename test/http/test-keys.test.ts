// Test keys over real HTTP: free and counted toward no plan quota, a real result watermarked in
// every format (checked on the rendered output), their own burst, concurrency and daily cap
// (in process and through Redis), recorded so the result lookup works, and revocation, account
// status and the key-count limit as for live keys.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import dxfParser, { type DxfParser as DxfParserType } from 'dxf-parser';
import sharp from 'sharp';
import { createAccount, updateAccount } from '../../src/accounts/accounts.ts';
import { listLedger } from '../../src/accounts/credits.ts';
import { createKey, MAX_ACTIVE_KEYS, revokeKey } from '../../src/accounts/keys.ts';
import { hashPassword } from '../../src/accounts/passwords.ts';
import { updatePlan } from '../../src/accounts/plans.ts';
import { TEST_KEY_LIMITS } from '../../src/limits/test-keys.ts';
import { getResult, postVectorize, vectorizeForm } from '../helpers/http.ts';
import { PageClient } from '../helpers/pages.ts';
import { renderEps, renderersProblem, renderPdf, renderSvg } from '../helpers/renderers.ts';
import { startTestService, testClock, type TestService } from '../helpers/service.ts';
import { createSqliteDatabase, limitsBackends } from '../helpers/stores.ts';
import { holdUpload, waitFor } from '../helpers/upload.ts';

const DxfParser = dxfParser as unknown as typeof DxfParserType;
const SIZE = 240;
/** A navy square on white: no pixel of it is red, so red pixels are the watermark's. */
const IMAGE = await sharp({ create: { width: SIZE, height: SIZE, channels: 3, background: '#ffffff' } })
  .composite([{ input: await sharp({ create: { width: 120, height: 120, channels: 3, background: '#1a237e' } }).png().toBuffer(), left: 60, top: 60 }])
  .png()
  .toBuffer();
const renderers = renderersProblem();

/** Pixels of the watermark's red (blended over the picture), as a mask. */
async function redMask(png: Uint8Array): Promise<boolean[]> {
  const { data, info } = await sharp(png).flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  assert.equal(info.width, SIZE, 'rendered at the picture’s size');
  assert.equal(info.height, SIZE);
  const mask: boolean[] = [];
  for (let i = 0; i < data.length; i += info.channels) {
    const [r, g, b] = [data[i] as number, data[i + 1] as number, data[i + 2] as number];
    mask.push(r - g > 60 && r - b > 50);
  }
  return mask;
}

const share = (mask: boolean[]) => mask.filter(Boolean).length / mask.length;
/** Of the pixels red in `a`, the share also red in `b`. */
function agreement(a: boolean[], b: boolean[]): number {
  let both = 0;
  let inA = 0;
  a.forEach((red, i) => {
    if (red) {
      inA += 1;
      if (b[i]) both += 1;
    }
  });
  return inA === 0 ? 0 : both / inA;
}

async function fileOf(url: string, key: string, accept: string) {
  const response = await fetch(`${url}/api/v1/vectorize`, { method: 'POST', headers: { authorization: `Bearer ${key}`, accept }, body: vectorizeForm({ image: IMAGE, filename: 'square.png' }) });
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
}

/** The DXF's polylines on the watermark's layer, drawn by resvg: the DXF's own geometry rendered. */
function renderDxfLayer(dxf: string, layer: string): Buffer {
  const parsed = new DxfParser().parseSync(dxf);
  const entities = (parsed?.entities ?? []) as unknown as { type: string; layer: string; vertices: { x: number; y: number }[] }[];
  const paths = entities
    .filter((entity) => entity.layer === layer)
    .map((entity) => `M${entity.vertices.map((v) => `${v.x} ${SIZE - v.y}`).join(' L')} Z`)
    .join(' ');
  return renderSvg(`<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}"><path d="${paths}" fill="#d6001c"/></svg>`);
}

describe('test keys', () => {
  const clock = testClock(Date.UTC(2026, 10, 21, 12, 0, 0, 0));
  let service: TestService;
  let n = 0;

  before(async () => {
    service = await startTestService(createSqliteDatabase(), { now: clock.now });
  });
  after(async () => {
    await service?.close();
    await service?.database.drop();
  });
  beforeEach(() => {
    // A new second and a new UTC day: no burst window or daily count carries over.
    clock.advance(86_400_000);
  });

  async function keys(credits: number) {
    n += 1;
    const account = await createAccount(service.store.db, { email: `tester${n}@example.com`, credits, passwordHash: await hashPassword('correct horse battery') });
    const live = (await createKey(service.store.db, account.id, 'live')).key;
    const test = (await createKey(service.store.db, account.id, 'integration', clock.now(), { test: true })).key;
    service.logs.secrets.add(live);
    service.logs.secrets.add(test);
    return { account, live, test };
  }

  it('converts for free and counts toward no plan quota', async () => {
    const { account, live, test } = await keys(1);
    assert.match(test, /^vk_test_[A-Za-z0-9]{43}$/);
    await updatePlan(service.store.db, 'free', { dailyQuota: 1 });
    try {
      for (let i = 0; i < 3; i++) {
        const converted = await postVectorize(service.url, test, { image: IMAGE });
        assert.equal(converted.status, 200, JSON.stringify(converted.body));
        assert.equal(converted.body.test, true);
        assert.equal(converted.body.credits_remaining, 1, 'the balance as it stands');
        assert.match(String(converted.body.svg), /^<svg /);
        clock.advance(1_100);
      }
      assert.equal((await listLedger(service.store.db, account.id)).filter((e) => e.kind === 'debit').length, 0, 'no credit reserved');
      // The plan's daily quota of 1 is still whole for the live key.
      const paid = await postVectorize(service.url, live, { image: IMAGE });
      assert.equal(paid.status, 200);
      assert.equal(paid.body.credits_remaining, 0);
      assert.equal(paid.body.test, undefined, 'a live result is not marked');
      clock.advance(1_100);
      const quota = await postVectorize(service.url, live, { image: IMAGE });
      assert.equal(quota.status, 429);
      assert.equal(quota.body.limit, 'daily_quota');
      // Out of credits and quota, the test key still converts.
      assert.equal((await postVectorize(service.url, test, { image: IMAGE })).status, 200);
    } finally {
      await updatePlan(service.store.db, 'free', { dailyQuota: 5 });
    }
  });

  it('is recorded like any other conversion: the result lookup works and says test', async () => {
    const { live, test } = await keys(0);
    const converted = await postVectorize(service.url, test, { image: IMAGE, filename: 'square.png' });
    assert.equal(converted.status, 200);
    const result = await getResult(service.url, test, String(converted.body.id));
    assert.equal(result.status, 200);
    assert.equal(result.body.original_name, 'square.png');
    assert.equal(result.body.test, true);
    assert.equal((await getResult(service.url, live, String(converted.body.id))).status, 200, 'the same account, by its live key');
  });

  it('watermarks the real result in every format: SVG, PNG, PDF, EPS and DXF, rendered', { skip: renderers }, async () => {
    const { live, test } = await keys(20);
    const svgFile = await fileOf(service.url, test, 'image/svg+xml');
    assert.equal(svgFile.status, 200);
    assert.equal(svgFile.headers.get('x-test'), 'true');
    const svg = Buffer.from(svgFile.bytes).toString('utf8');
    const reference = await redMask(renderSvg(svg));
    assert.ok(share(reference) > 0.03, `the SVG shows the watermark (${share(reference)})`);
    // The square is still there under it: a real result.
    const { data } = await sharp(renderSvg(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const centre = ((SIZE / 2) * SIZE + SIZE / 2 - 40) * 3;
    assert.ok((data[centre + 2] as number) > (data[centre] as number) + 40, 'the navy square shows through');

    clock.advance(1_100);
    const png = await fileOf(service.url, test, 'image/png');
    clock.advance(1_100);
    const pdf = await fileOf(service.url, test, 'application/pdf');
    clock.advance(1_100);
    const eps = await fileOf(service.url, test, 'application/postscript');
    clock.advance(1_100);
    const dxf = await fileOf(service.url, test, 'image/vnd.dxf');
    for (const file of [png, pdf, eps, dxf]) assert.equal(file.status, 200);
    const rendered: [string, Buffer][] = [
      ['PNG', Buffer.from(png.bytes)],
      ['PDF', await renderPdf(pdf.bytes)],
      ['EPS', await renderEps(eps.bytes)],
      ['DXF', renderDxfLayer(Buffer.from(dxf.bytes).toString('utf8'), 'COLOR_D6001C')],
    ];
    for (const [format, image] of rendered) {
      const mask = await redMask(image);
      assert.ok(share(mask) > 0.03, `${format}: the watermark is visible (${share(mask)})`);
      assert.ok(agreement(reference, mask) > 0.8, `${format}: where the SVG has it (${agreement(reference, mask)})`);
    }

    // The same picture through the live key: no watermark anywhere.
    clock.advance(1_100);
    const clean = await fileOf(service.url, live, 'image/svg+xml');
    assert.equal(clean.headers.get('x-test'), null);
    assert.ok(share(await redMask(renderSvg(Buffer.from(clean.bytes).toString('utf8')))) < 0.001);
  });

  it('has its own daily cap, counted apart from the plan', async () => {
    const { account, test, live } = await keys(5);
    const at = clock.now();
    await service.store.db
      .insertInto('conversions')
      .values(
        Array.from({ length: TEST_KEY_LIMITS.dailyQuota }, (_, i) => ({
          id: `vec_cap${n}_${String(i).padStart(6, '0')}`,
          account_id: account.id,
          original_name: 'x.png',
          file_size: 1,
          width: 1,
          height: 1,
          node_count: 1,
          processing_time_ms: 1,
          params: '{}',
          resolved: '{"mode":"logo","curveMode":"spline"}',
          created_at: at,
          test: 1,
        })),
      )
      .execute();
    const capped = await postVectorize(service.url, test, { image: IMAGE });
    assert.equal(capped.status, 429);
    assert.equal(capped.body.limit, 'daily_quota');
    assert.match(String(capped.body.error), /test key plan allows 50 conversions per UTC day/);
    assert.equal((await postVectorize(service.url, live, { image: IMAGE })).status, 200, 'the live key is not capped by them');
  });

  it('gets 401 once revoked, 403 when the account is suspended, and counts toward the key limit', async () => {
    const { account, test } = await keys(5);
    await updateAccount(service.store.db, account.id, { status: 'suspended' });
    const suspended = await postVectorize(service.url, test, { image: IMAGE });
    assert.equal(suspended.status, 403);
    await updateAccount(service.store.db, account.id, { status: 'active' });
    await revokeKey(service.store.db, test.slice(0, 16));
    const revoked = await postVectorize(service.url, test, { image: IMAGE });
    assert.equal(revoked.status, 401);
    assert.equal(revoked.headers.get('www-authenticate'), 'Bearer');
    // Live and test keys together: at most MAX_ACTIVE_KEYS that are not revoked.
    for (let i = 2; i < MAX_ACTIVE_KEYS + 1; i++) await createKey(service.store.db, account.id, `k${i}`, clock.now(), { test: i % 2 === 0 });
    await assert.rejects(createKey(service.store.db, account.id, 'one more', clock.now(), { test: true }), /at most 25 keys/);
  });

  it('is created on the API Keys page, shown with its vk_test_ prefix', async () => {
    const { account } = await keys(0);
    const client = new PageClient(service.url);
    assert.equal((await client.logIn(account.email, 'correct horse battery')).status, 303);
    const created = await client.submit('/account/keys', '/account/keys', { name: 'ci', test: 'yes' });
    assert.equal(created.status, 200);
    const key = /id="new-key" type="text" readonly value="([^"]+)"/.exec(created.html)?.[1] ?? '';
    service.logs.secrets.add(key);
    assert.match(key, /^vk_test_/);
    assert.match(created.html, /Your new test key: ci/);
    assert.match(created.html, /<td>test<\/td>\s*<td><code>vk_test_/);
    assert.equal((await postVectorize(service.url, key, { image: IMAGE })).body.test, true);
  });
});

for (const backend of await limitsBackends()) {
  describe(`test keys' burst and concurrency (${backend.name})`, { skip: backend.skip }, () => {
    const clock = testClock(Date.UTC(2026, 10, 21, 12, 0, 0, 0));
    let service: TestService;

    before(async () => {
      service = await startTestService(await backend.createDatabase(), { now: clock.now, env: backend.env() });
    });
    after(async () => {
      await service?.close();
      await service?.database.drop();
      await backend.cleanup();
    });

    it('refuses a second request within the second, and a second at a time, apart from the live keys', async () => {
      const account = await createAccount(service.store.db, { email: `burst-${backend.name}@example.com`, plan: 'pro' });
      const test = (await createKey(service.store.db, account.id, 't', clock.now(), { test: true })).key;
      const live = (await createKey(service.store.db, account.id, 'l')).key;
      service.logs.secrets.add(test);
      service.logs.secrets.add(live);
      assert.equal((await postVectorize(service.url, test, { image: IMAGE })).status, 200);
      clock.advance(500);
      const burst = await postVectorize(service.url, test, { image: IMAGE });
      assert.equal(burst.status, 429);
      assert.equal(burst.body.limit, 'burst');
      assert.equal(burst.headers.get('retry-after'), '1');
      assert.match(String(burst.body.error), /retry after 1 seconds/);
      assert.equal((await postVectorize(service.url, live, { image: IMAGE })).status, 200, 'the pro plan’s live key has no burst limit');
      clock.advance(600);
      assert.equal((await postVectorize(service.url, test, { image: IMAGE })).status, 200, 'the window has moved on');

      // One test conversion at a time.
      clock.advance(1_100);
      const held = holdUpload(service.url, test, IMAGE);
      await waitFor(async () => (await service.limits.inFlight(`${account.id}/test`)) === 1, 10_000, 'the held test upload');
      clock.advance(1_100);
      const second = await postVectorize(service.url, test, { image: IMAGE });
      assert.equal(second.status, 429);
      assert.equal(second.body.limit, 'concurrency');
      assert.equal((await postVectorize(service.url, live, { image: IMAGE })).status, 200, 'live conversions run beside it');
      assert.equal((await held.finish()).status, 200);
    });
  });
}
