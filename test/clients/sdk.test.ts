// The TypeScript SDK (clients/typescript) against the real server over real HTTP.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createClient, isTestKey, VectorizeApiError, VectorizeConnectionError, VectorizeTimeoutError, type CutReport, type RetryEvent } from '../../clients/typescript/src/index.ts';
import { createAccount } from '../../src/accounts/accounts.ts';
import { createKey } from '../../src/accounts/keys.ts';
import { typesFor } from '../../scripts/generate-client-types.ts';
import { CORPUS, corpusFile } from '../helpers/http.ts';
import { freePort } from '../helpers/process.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { createSqliteDatabase } from '../helpers/stores.ts';

const CLIENT = fileURLToPath(new URL('../../clients/typescript/', import.meta.url));
const SMALL = 'edge/tiny_tango_address_book_32.png';

describe('TypeScript SDK', () => {
  let service: TestService;
  let lifetimeKey: string;
  before(async () => {
    service = await startTestService(createSqliteDatabase());
    lifetimeKey = await service.accountWithKey('sdk@example.com', { plan: 'lifetime' });
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  it('its generated types come from the OpenAPI document the server serves now', async () => {
    const committed = readFileSync(`${CLIENT}openapi.json`, 'utf8');
    const live = `${JSON.stringify(await (await fetch(`${service.url}/openapi.json`)).json(), null, 2)}\n`;
    assert.equal(committed, live, 'clients/typescript/openapi.json is stale: run npm run client:generate');
    assert.equal(readFileSync(`${CLIENT}src/generated/api.ts`, 'utf8'), await typesFor(committed), 'generated types are stale: run npm run client:generate');
  });

  it('vectorize() returns the JSON response by default, and result() its metadata', async () => {
    const client = createClient({ baseUrl: service.url, apiKey: lifetimeKey });
    const converted = await client.vectorize(`${CORPUS}${SMALL}`, { colorPrecision: 5 });
    assert.match(converted.id, /^vec_/);
    assert.match(converted.svg, /^<svg/);
    assert.equal(converted.width, 32);
    assert.equal(converted.credits_remaining, null);
    const meta = await client.result(converted.id);
    assert.equal(meta.original_name, 'tiny_tango_address_book_32.png');
    assert.equal(meta.params.colorPrecision, 5);
    assert.equal(meta.node_count, converted.node_count);
  });

  it('vectorize() with a format returns the file and the conversion’s fields from the headers', async () => {
    const client = createClient({ baseUrl: service.url, apiKey: lifetimeKey });
    for (const [format, magic] of [['pdf', '%PDF-'], ['eps', '%!PS-'], ['svg', '<svg '], ['dxf', '0\nSECTION'], ['png', '\x89PNG']] as const) {
      const file = await client.vectorize(corpusFile(SMALL), {}, { format, filename: 'icon.png' });
      assert.equal(Buffer.from(file.bytes.subarray(0, magic.length)).toString('latin1'), magic, format);
      assert.match(file.id, /^vec_/);
      assert.ok(file.nodeCount > 0 && Number.isInteger(file.processingTimeMs));
      assert.equal(file.creditsRemaining, null);
    }
  });

  it('takes the print and cut members, typed, and returns the cut report', async () => {
    const client = createClient({ baseUrl: service.url, apiKey: lifetimeKey });
    const converted = await client.vectorize(`${CORPUS}logo/flat_shapes_transparency_300.png`, { preset: 'vinyl', palette: ['#000000', '#ff0000'], dpi: 300 });
    const report: CutReport | undefined = converted.report;
    assert.ok(report);
    assert.equal(report.overlaps, 0, 'vinyl: cut-outs');
    assert.match(converted.svg, /width="25.4mm"/);
    assert.ok((converted.svg.match(/#[0-9a-f]{6}/g) ?? []).every((colour) => ['#000000', '#ff0000'].includes(colour)), 'palette colours only');
    const meta = await client.result(converted.id);
    assert.deepEqual(meta.params.palette, ['#000000', '#ff0000']);
    assert.equal(meta.params.stacking, 'cutouts');
    assert.deepEqual(meta.report, report);
  });

  it('throws typed errors carrying the status and the service’s error', async () => {
    await assert.rejects(createClient({ baseUrl: service.url, apiKey: 'vk_wrong' }).vectorize(corpusFile(SMALL)), (error: unknown) => {
      assert.ok(error instanceof VectorizeApiError);
      assert.equal(error.status, 401);
      assert.match(error.error, /API key/);
      assert.equal(error.retryAfterSeconds, undefined, 'no Retry-After header: undefined, not 0');
      return true;
    });
    const client = createClient({ baseUrl: service.url, apiKey: lifetimeKey });
    await assert.rejects(client.vectorize(corpusFile(SMALL), { colorPrecision: 99 }), (error: unknown) => {
      assert.ok(error instanceof VectorizeApiError);
      assert.equal(error.status, 400);
      assert.match(error.error, /params\.colorPrecision/);
      return true;
    });
    await assert.rejects(client.result('vec_nothing_000000'), (error: unknown) => error instanceof VectorizeApiError && error.status === 404);
  });

  it('waits out 429s as Retry-After says, within its bound of attempts', async () => {
    const key = await service.accountWithKey('sdk-free@example.com');
    const retries: RetryEvent[] = [];
    // Enough attempts for the last of three to get its turn however long each conversion takes on a busy machine.
    const patient = createClient({ baseUrl: service.url, apiKey: key, maxAttempts: 20, onRetry: (event) => retries.push(event) });
    // Three at once on the free plan (concurrency 1, 2 a second): refused, waited out, converted.
    const results = await Promise.all([1, 2, 3].map(() => patient.vectorize(corpusFile(SMALL))));
    assert.deepEqual(results.map((result) => result.credits_remaining).sort(), [7, 8, 9]);
    assert.ok(retries.length > 0 && retries.every((event) => event.status === 429 && event.waitMs === (event.error.retryAfterSeconds ?? 0) * 1000 && event.waitMs > 0));
    // One attempt only: the 429 itself comes back, with its Retry-After.
    const hasty = createClient({ baseUrl: service.url, apiKey: key, maxAttempts: 1 });
    const outcomes = await Promise.allSettled([1, 2].map(() => hasty.vectorize(corpusFile(SMALL))));
    const refused = outcomes.find((outcome) => outcome.status === 'rejected');
    assert.ok(refused, 'one of two at once is refused on a plan with concurrency 1');
    const error = (refused as PromiseRejectedResult).reason as unknown;
    assert.ok(error instanceof VectorizeApiError);
    assert.equal(error.status, 429);
    assert.ok((error.retryAfterSeconds ?? 0) >= 1);
  });

  it('names the URL and the cause when the service cannot be reached', async () => {
    // A port nothing listens on: the connection is refused.
    const port = await freePort();
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: lifetimeKey, maxAttempts: 1 });
    await assert.rejects(client.vectorize(corpusFile(SMALL)), (error: unknown) => {
      assert.ok(error instanceof VectorizeConnectionError);
      assert.equal(error.url, `http://127.0.0.1:${port}/api/v1/vectorize`);
      assert.equal(error.message, `cannot reach http://127.0.0.1:${port}/api/v1/vectorize: connect ECONNREFUSED 127.0.0.1:${port}`);
      return true;
    });
    await assert.rejects(createClient({ baseUrl: 'http://no-such-host.invalid', apiKey: lifetimeKey }).result('vec_x'), /cannot reach http:\/\/no-such-host\.invalid\/api\/v1\/result\/vec_x: .*(ENOTFOUND|EAI_AGAIN)/);
  });

  it('gives up after its timeout', async () => {
    const client = createClient({ baseUrl: service.url, apiKey: lifetimeKey, timeoutMs: 5 });
    await assert.rejects(client.vectorize(corpusFile('logo/flag_br_noto.png')), VectorizeTimeoutError);
  });

  it('account() returns the key’s account, and a test key’s results say test', async () => {
    const client = createClient({ baseUrl: service.url, apiKey: lifetimeKey });
    assert.equal(client.testKey, false);
    const info = await client.account();
    assert.equal(info.plan, 'lifetime');
    assert.equal(info.credits_remaining, null);
    assert.equal(info.daily_quota, null);
    assert.equal(info.test_key, false);
    const holder = await createAccount(service.store.db, { email: 'sdk-test@example.com', credits: 2 });
    const { key } = await createKey(service.store.db, holder.id, 'ci', Date.now(), { test: true });
    service.logs.secrets.add(key);
    assert.equal(isTestKey(key), true);
    const testClient = createClient({ baseUrl: service.url, apiKey: key });
    assert.equal(testClient.testKey, true);
    const converted = await testClient.vectorize(corpusFile(SMALL));
    assert.equal(converted.test, true);
    assert.equal(converted.credits_remaining, 2);
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // the test keys' burst: one a second
    const file = await testClient.vectorize(corpusFile(SMALL), {}, { format: 'svg' });
    assert.equal(file.test, true);
    assert.equal((await testClient.account()).test_keys.conversions_today, 2);
  });
});
