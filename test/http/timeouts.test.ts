import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findAccountByEmail } from '../../src/accounts/accounts.ts';
import { ledgerSum } from '../../src/accounts/credits.ts';
import { corpusFile } from '../helpers/http.ts';
import { multipartBody, rawRequest, type RawExchange } from '../helpers/raw.ts';
import { liftFreeLimits, startTestService, type TestService } from '../helpers/service.ts';
import { createSqliteDatabase } from '../helpers/stores.ts';

const PNG = corpusFile('edge/tiny_tango_address_book_32.png');
const BOUNDARY = 'slow-client-boundary';
const BODY = multipartBody(BOUNDARY, [{ name: 'image', filename: 'slow.png', contentType: 'image/png', data: PNG }]);

/** Sends `bytes` one byte per `everyMs` until the server closes the connection. */
function trickle(exchange: RawExchange, bytes: Buffer, everyMs: number): void {
  let sent = 0;
  const timer = setInterval(() => {
    if (sent >= bytes.length || exchange.socket.destroyed) return;
    exchange.socket.write(bytes.subarray(sent, sent + 1));
    sent++;
  }, everyMs);
  void exchange.closed.then(() => clearInterval(timer));
}

function uploadHead(key: string): string {
  return (
    `POST /api/v1/vectorize HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\n` +
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${BODY.length}`
  );
}

describe('slow upload: minimum pace over a window', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService(createSqliteDatabase(), {
      env: { UPLOAD_MIN_BYTES_PER_SECOND: '1000', UPLOAD_RATE_WINDOW_MS: '400' },
    });
    await liftFreeLimits(service);
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  it('answers 408 and closes the connection of a client sending one byte per second, and refunds', async () => {
    const key = await service.accountWithKey('trickle@example.com', { credits: 3 });
    const started = Date.now();
    const exchange = rawRequest(service.url, uploadHead(key));
    trickle(exchange, BODY, 1000);
    const response = await exchange.response;
    await exchange.closed;
    const elapsed = Date.now() - started;
    assert.equal(response.status, 408);
    const body = JSON.parse(response.body) as { error: string; request_id: string };
    assert.match(body.error, /too slow/);
    assert.equal(body.request_id, response.headers['x-request-id']);
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
    assert.ok(elapsed < 2_000, `cut after ${elapsed} ms`);
    const account = await findAccountByEmail(service.store.db, 'trickle@example.com');
    assert.equal(account?.credits, 3);
    assert.equal(await ledgerSum(service.store.db, account!.id), 3);
  });

  it('lets an upload at a normal pace through', async () => {
    const key = await service.accountWithKey('steady@example.com', { plan: 'lifetime' });
    const exchange = rawRequest(service.url, uploadHead(key));
    exchange.socket.write(BODY);
    const response = await exchange.response;
    exchange.socket.destroy();
    assert.equal(response.status, 200, response.body);
  });
});

describe('slow request: the request timeout bounds any request', () => {
  let service: TestService;
  before(async () => {
    // The pace check off, so only the server's own request and header timeouts act.
    service = await startTestService(createSqliteDatabase(), {
      env: { UPLOAD_MIN_BYTES_PER_SECOND: '0', REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '500' },
    });
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  it('answers 408 in the contract’s shape and closes a body still arriving at REQUEST_TIMEOUT_MS', async () => {
    const key = await service.accountWithKey('timeout@example.com', { plan: 'lifetime' });
    const started = Date.now();
    const exchange = rawRequest(service.url, uploadHead(key));
    trickle(exchange, BODY, 100);
    const response = await exchange.response;
    await exchange.closed;
    const elapsed = Date.now() - started;
    assert.equal(response.status, 408);
    assert.equal(typeof (JSON.parse(response.body) as { error: string }).error, 'string');
    assert.equal(response.headers['x-frame-options'], 'DENY');
    // Node checks the timeout once a second.
    assert.ok(elapsed >= 1_000 && elapsed < 3_500, `cut after ${elapsed} ms`);
  });

  it('closes a connection whose headers trickle in past HEADERS_TIMEOUT_MS', async () => {
    const started = Date.now();
    const exchange = rawRequest(service.url, 'GET /healthz HTTP/1.1\r\nHost: test\r\n', false);
    trickle(exchange, Buffer.from('X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'), 100);
    const response = await exchange.response;
    await exchange.closed;
    assert.equal(response.status, 408);
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 3_000, `cut after ${elapsed} ms`);
  });
});
