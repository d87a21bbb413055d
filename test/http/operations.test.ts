import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { DomainError } from '../../src/errors.ts';
import { handleError } from '../../src/http/api/errors.ts';
import { countRefusals } from '../../src/http/ops/routes.ts';
import { createMetrics } from '../../src/metrics/metrics.ts';
import { corpusFile, postVectorize, request } from '../helpers/http.ts';
import { multipartBody, rawRequest } from '../helpers/raw.ts';
import { liftFreeLimits, startTestService, type TestService } from '../helpers/service.ts';
import { createSqliteDatabase, dialects } from '../helpers/stores.ts';

const PNG = corpusFile('edge/tiny_tango_address_book_32.png');

/** The value of one series in a Prometheus text exposition, or undefined. */
function series(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return undefined;
}

async function metricsText(service: TestService): Promise<string> {
  const res = await fetch(`${service.url}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  return res.text();
}

describe('OpenAPI document and API reference', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService(createSqliteDatabase());
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  it('serves OpenAPI 3.1 at /openapi.json with every status of the contract', async () => {
    const { status, body } = await request(service.url, '/openapi.json');
    assert.equal(status, 200);
    assert.equal(body.openapi, '3.1.0');
    const paths = body.paths as Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>>;
    const vectorize = paths['/api/v1/vectorize']?.post;
    const result = paths['/api/v1/result/{id}']?.get;
    assert.ok(vectorize && result);
    assert.deepEqual(Object.keys(vectorize.responses).sort(), ['200', '400', '401', '402', '403', '406', '408', '413', '429', '500', '502', '503']);
    assert.deepEqual(Object.keys(result.responses).sort(), ['200', '401', '403', '404', '429', '500', '503']);
    for (const operation of [vectorize, result]) {
      for (const [code, response] of Object.entries(operation.responses)) {
        const schema = (response as { content: Record<string, { schema: { properties: Record<string, unknown> } }> }).content[
          'application/json'
        ]?.schema;
        assert.ok(schema, `${code} has a JSON body`);
        if (Number(code) >= 400) assert.deepEqual(Object.keys(schema.properties).slice(0, 2), ['error', 'request_id'], code);
      }
      const unavailable = operation.responses['503'] as { headers: Record<string, unknown> };
      assert.ok(unavailable.headers['retry-after'], '503 documents Retry-After');
    }
    const ok = (vectorize.responses['200'] as { content: Record<string, { schema: { properties: Record<string, unknown>; required: string[] } }> }).content[
      'application/json'
    ]!.schema;
    // The contract's fields, then `test` (present only for test keys) and the cut report (with a unit or a preset).
    assert.deepEqual(Object.keys(ok.properties), ['id', 'svg', 'width', 'height', 'node_count', 'processing_time_ms', 'fidelity', 'credits_remaining', 'test', 'report']);
    const fileResponse = vectorize.responses['200'] as { content: Record<string, unknown>; headers: Record<string, unknown> };
    assert.deepEqual(Object.keys(fileResponse.content), [
      'application/json',
      'image/svg+xml',
      'application/pdf',
      'application/postscript',
      'image/vnd.dxf',
      'application/dxf',
      'image/png',
    ]);
    for (const header of ['x-conversion-id', 'x-node-count', 'x-processing-time-ms', 'x-fidelity', 'x-credits-remaining']) assert.ok(fileResponse.headers[header], header);
    const payment = vectorize.responses['402'] as { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
    assert.ok(payment.content['application/json']!.schema.properties.credits_remaining);
    const upload = (vectorize.requestBody as { content: Record<string, { schema: { properties: Record<string, { contentSchema?: { properties: object } }> } }> })
      .content['multipart/form-data']!.schema;
    assert.deepEqual(Object.keys(upload.properties), ['image', 'params']);
    assert.ok(Object.keys(upload.properties.params!.contentSchema!.properties).includes('colorPrecision'));
  });

  it('serves the API reference at /docs with its assets from the package, under a CSP for that page', async () => {
    const page = await fetch(`${service.url}/docs`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /swagger-ui-bundle\.js/);
    // Every script and stylesheet is relative to this server: no CDN.
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(sources.length > 0);
    for (const source of sources) assert.doesNotMatch(source, /^(https?:)?\/\//, source);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const bundle = await fetch(new URL('/docs/static/swagger-ui-bundle.js', service.url));
    assert.equal(bundle.status, 200);
    assert.ok((await bundle.arrayBuffer()).byteLength > 100_000);
    const json = await request(service.url, '/docs/json');
    assert.equal(json.body.openapi, '3.1.0');
  });

  it('lists only the public API in the reference, with a way back to the site and a phone-sized page', async () => {
    const { body } = await request(service.url, '/openapi.json');
    const paths = Object.keys(body.paths as object);
    const isPublic = (path: string) => /^\/(api\/v1\/|healthz$|readyz$|metrics$|webhooks\/)/.test(path);
    assert.deepEqual(paths.filter((path) => !isPublic(path)), [], 'no page or admin route');
    assert.ok(paths.includes('/api/v1/vectorize') && paths.includes('/api/v1/account'));
    assert.match(String((body.info as { description: string }).description), /\[← Back to the site\]\(\/\)/);
    const html = await (await fetch(`${service.url}/docs/`)).text();
    const script = [...html.matchAll(/src="([^"]*theme\/phone\.js)"/g)][0]?.[1];
    assert.ok(script, 'the theme script is on the page');
    const phone = await fetch(new URL(script.replace(/^\./, '/docs'), service.url));
    assert.equal(phone.status, 200);
    assert.match(await phone.text(), /width=device-width/);
  });

  it('answers an unknown address with the HTML page "Page not found" to a browser, and JSON to a program', async () => {
    const browser = await fetch(`${service.url}/no/such/page`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    assert.equal(browser.status, 404);
    assert.match(browser.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await browser.text(), /Page not found/);
    for (const [path, accept] of [['/no/such/page', 'application/json'], ['/api/v1/nothing', 'text/html']] as const) {
      const res = await request(service.url, path, { headers: { accept } });
      assert.equal(res.status, 404, path);
      assert.match(String(res.body.error), /route not found/, path);
    }
  });

  it('sets the security headers and a request id on every response, errors included', async () => {
    for (const path of ['/healthz', '/openapi.json', '/api/v1/result/vec_x_y', '/no/such/route', `/api/v1/result/${'x'.repeat(200)}`]) {
      const res = await fetch(`${service.url}${path}`, { headers: { 'x-request-id': 'trace-123' } });
      await res.arrayBuffer();
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(res.headers.get('x-frame-options'), 'DENY', path);
      assert.equal(res.headers.get('referrer-policy'), 'no-referrer', path);
      assert.equal(res.headers.get('cross-origin-resource-policy'), 'same-origin', path);
      assert.match(res.headers.get('content-security-policy') ?? '', /^default-src 'none'/, path);
      assert.equal(res.headers.get('x-request-id'), 'trace-123', path);
    }
    const refused = await request(service.url, '/api/v1/result/vec_x_y');
    assert.equal(refused.status, 401);
    assert.equal(refused.body.request_id, refused.headers.get('x-request-id'));
    const generated = await request(service.url, '/nowhere', { headers: { 'x-request-id': 'bad id with spaces' } });
    assert.match(generated.body.request_id as string, /^[0-9a-f-]{36}$/);
  });
});

for (const dialect of await dialects()) {
  describe(`health and readiness (${dialect.dialect})`, { skip: dialect.skip }, () => {
    let service: TestService;
    before(async () => {
      service = await startTestService(await dialect.create());
    });
    after(async () => {
      await service.close();
      await service.database.drop();
    });

    it('is live and ready with the store reachable and workers up', async () => {
      assert.deepEqual((await request(service.url, '/healthz')).body, { status: 'ok' });
      const ready = await request(service.url, '/readyz');
      assert.equal(ready.status, 200);
      assert.deepEqual(ready.body, { status: 'ready', checks: { store: 'ok', workers: 2, draining: false } });
    });

    it('is not ready, but still live, once draining', async () => {
      service.lifecycle.startDraining();
      const ready = await request(service.url, '/readyz');
      assert.equal(ready.status, 503);
      assert.ok(ready.headers.get('retry-after'));
      assert.match(ready.body.error as string, /draining/);
      assert.equal((ready.body.checks as { draining: boolean }).draining, true);
      assert.equal((await request(service.url, '/healthz')).status, 200);
      const work = await postVectorize(service.url, 'vk_whatever', { image: PNG });
      assert.equal(work.status, 503);
      assert.ok(work.headers.get('retry-after'));
      assert.equal(typeof work.body.request_id, 'string');
    });

    it('is not ready when the store is unreachable', async () => {
      await service.store.close();
      const ready = await request(service.url, '/readyz');
      assert.equal(ready.status, 503);
      assert.equal((ready.body.checks as { store: string }).store, 'unreachable');
    });
  });
}

describe('Prometheus metrics', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService(createSqliteDatabase());
    await liftFreeLimits(service);
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  it('counts requests by route and status, conversions, credits and limit refusals', async () => {
    const paying = await service.accountWithKey('paying@example.com', { credits: 2 });
    const broke = await service.accountWithKey('broke@example.com', { credits: 0 });
    assert.equal((await postVectorize(service.url, paying, { image: PNG })).status, 200);
    assert.equal((await postVectorize(service.url, paying, { image: PNG.subarray(0, 100) })).status, 400);
    assert.equal((await postVectorize(service.url, broke, { image: PNG })).status, 402);
    assert.equal((await request(service.url, '/api/v1/result/vec_abc_def')).status, 401);

    const text = await metricsText(service);
    const count = (labels: Record<string, string>) => series(text, 'vectorize_http_requests_total', labels);
    assert.equal(count({ route: '/api/v1/vectorize', status: '200', method: 'POST' }), 1);
    assert.equal(count({ route: '/api/v1/vectorize', status: '400' }), 1);
    assert.equal(count({ route: '/api/v1/vectorize', status: '402' }), 1);
    assert.equal(count({ route: '/api/v1/result/:id', status: '401' }), 1);
    assert.equal(series(text, 'vectorize_credits_spent_total'), 1);
    assert.equal(series(text, 'vectorize_credits_refunded_total'), 1);
    assert.equal(series(text, 'vectorize_limit_refusals_total', { kind: 'credits' }), 1);
    assert.equal(series(text, 'vectorize_conversion_duration_seconds_count', { outcome: 'ok' }), 1);
    assert.equal(series(text, 'vectorize_conversion_duration_seconds_count', { outcome: 'invalid_image' }), 1);
    assert.equal(series(text, 'vectorize_queue_wait_seconds_count'), 2, 'one per conversion handed to a worker, the invalid image included');
    assert.equal(series(text, 'vectorize_queue_depth'), 0);
    assert.equal(series(text, 'vectorize_workers'), 2);
    assert.equal(series(text, 'vectorize_worker_restarts_total'), undefined, 'no restart yet, so no series');
    assert.ok((series(text, 'vectorize_process_resident_memory_bytes') ?? 0) > 0);
  });
});

describe('worker restart metric', () => {
  it('counts the worker the pool replaces after a conversion hits the time limit', async () => {
    const service = await startTestService(createSqliteDatabase(), { env: { CONVERSION_TIMEOUT_MS: '100' } });
    try {
      const key = await service.accountWithKey('restart@example.com', { plan: 'lifetime' });
      const res = await postVectorize(service.url, key, { image: corpusFile('photo/vtracer_angel_luciano_unsplash_6000x4000.jpg') });
      assert.equal(res.status, 502);
      const text = await metricsText(service);
      assert.equal(series(text, 'vectorize_worker_restarts_total', { reason: 'timeout' }), 1);
      assert.equal(series(text, 'vectorize_conversion_duration_seconds_count', { outcome: 'timeout' }), 1);
    } finally {
      await service.close();
      await service.database.drop();
    }
  });
});

describe('upload admission', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService(createSqliteDatabase(), { env: { MAX_CONCURRENT_UPLOADS: '1' } });
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  it('refuses an upload past MAX_CONCURRENT_UPLOADS at once with 503 and Retry-After, before reading it', async () => {
    const key = await service.accountWithKey('admission@example.com', { plan: 'lifetime' });
    const boundary = 'admission-boundary';
    const body = multipartBody(boundary, [{ name: 'image', filename: 'a.png', contentType: 'image/png', data: PNG }]);
    const held = rawRequest(
      service.url,
      `POST /api/v1/vectorize HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\nExpect: 100-continue`,
    );
    await held.continued;
    held.socket.write(body.subarray(0, 50));
    // The held upload is admitted once the server counts it; until then there is nothing to refuse.
    for (let attempt = 0; !/^vectorize_uploads_in_flight 1$/m.test(await metricsText(service)); attempt++) {
      assert.ok(attempt < 1000, 'the held upload was never admitted');
    }

    // Another account: the node is full. (The same account would be refused for its own share first.)
    const other = await service.accountWithKey('admission-other@example.com', { plan: 'lifetime' });
    const refused = await postVectorize(service.url, other, { image: PNG });
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('retry-after'), '2');
    assert.match(refused.body.error as string, /capacity/);

    held.socket.write(body.subarray(50));
    const finished = await held.response;
    assert.equal(finished.status, 200, finished.body);
    held.socket.destroy();
    assert.equal(series(await metricsText(service), 'vectorize_admission_refusals_total'), 1);
  });
});

describe('limit refusal counting', () => {
  it('counts a 429 by the kind the limits code names, and a 402 as credits, after mapping codes to statuses', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const app = Fastify();
    countRefusals(app, metrics);
    app.setErrorHandler(handleError);
    app.get('/burst', async () => {
      throw new DomainError('rate_limited', 'too fast; retry after 1 seconds', { limit: 'burst', retryAfterSeconds: 1 });
    });
    app.get('/quota', async () => {
      throw new DomainError('rate_limited', 'daily quota; retry after 60 seconds', { limit: 'daily_quota', retryAfterSeconds: 60 });
    });
    app.get('/credits', async () => {
      throw new DomainError('insufficient_credits', 'no credit left', { creditsRemaining: 0 });
    });
    try {
      const answers = [];
      for (const path of ['/burst', '/burst', '/quota', '/credits']) answers.push(await app.inject(path));
      // The one JSON mapping gives each code the contract's status, headers and body.
      assert.deepEqual(answers.map((a) => a.statusCode), [429, 429, 429, 402]);
      assert.equal(answers[0]!.headers['retry-after'], '1');
      assert.deepEqual(JSON.parse(answers[3]!.body).error, 'insufficient_credits');
      assert.equal(JSON.parse(answers[3]!.body).credits_remaining, 0);
      const text = await metrics.registry.metrics();
      assert.equal(series(text, 'vectorize_limit_refusals_total', { kind: 'burst' }), 2);
      assert.equal(series(text, 'vectorize_limit_refusals_total', { kind: 'daily_quota' }), 1);
      assert.equal(series(text, 'vectorize_limit_refusals_total', { kind: 'credits' }), 1);
    } finally {
      await app.close();
    }
  });
});
