import assert from 'node:assert/strict';
import { createServer, Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { findAccountByEmail, updateAccount } from '../../src/accounts/accounts.ts';
import { addCredits, ledgerSum } from '../../src/accounts/credits.ts';
import { revokeKey } from '../../src/accounts/keys.ts';
import { sqliteDriver, sqlitePath } from '../../src/store/database.ts';
import { corpusFile, getResult, postVectorize, request, type JsonResponse } from '../helpers/http.ts';
import { liftFreeLimits, startTestService, testClock, type TestService } from '../helpers/service.ts';
import { pngOfSize } from '../helpers/png.ts';
import { dialects } from '../helpers/stores.ts';

const PNG = corpusFile('edge/tiny_tango_address_book_32.png');
const UPLOAD_LIMIT = 10 * 1024 * 1024;
const EMAIL = 'errors@example.com';

function assertError(res: JsonResponse, status: number, pattern?: RegExp): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(typeof res.body.error, 'string');
  assert.ok((res.body.error as string).length > 0);
  if (pattern) assert.match(res.body.error as string, pattern);
}

for (const dialect of await dialects()) {
  describe(`vectorize errors (${dialect.dialect})`, { skip: dialect.skip }, () => {
    const clock = testClock();
    let service: TestService;
    let key: string;

    before(async () => {
      service = await startTestService(await dialect.create(), { now: clock.now, env: { MAX_INPUT_PIXELS: '200000' } });
      await liftFreeLimits(service);
      key = await service.accountWithKey(EMAIL, { credits: 100 });
    });
    after(async () => {
      await service.close();
      await service.database.drop();
    });

    describe('400', () => {
      it('names `image` when it is missing', async () => {
        assertError(await postVectorize(service.url, key, { params: {} }), 400, /image/);
      });
      it('refuses an image sent as a plain field', async () => {
        assertError(await postVectorize(service.url, key, { extraFields: { image: 'not a file' } }), 400, /image/);
      });
      it('refuses an empty file', async () => {
        assertError(await postVectorize(service.url, key, { image: Buffer.alloc(0) }), 400, /empty/);
      });
      it('refuses an unsupported format detected from the bytes, whatever the name', async () => {
        const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
        assertError(await postVectorize(service.url, key, { image: gif, filename: 'picture.png' }), 400, /format/);
        assertError(await postVectorize(service.url, key, { image: Buffer.from('hello, world'), filename: 'a.jpg' }), 400, /format/);
      });
      it('refuses a corrupt image', async () => {
        const corrupt = Buffer.concat([PNG.subarray(0, 16), Buffer.alloc(400, 0x5a)]);
        assertError(await postVectorize(service.url, key, { image: corrupt }), 400, /image/);
      });
      it('refuses a truncated image', async () => {
        const jpeg = corpusFile('illustration/vtracer_gum_tree_vector.jpg');
        assertError(await postVectorize(service.url, key, { image: jpeg.subarray(0, jpeg.length / 3) }), 400, /image/);
        assertError(await postVectorize(service.url, key, { image: PNG.subarray(0, PNG.length - 40) }), 400, /image/);
      });
      it('refuses an image over the decoder pixel limit (decompression bomb)', async () => {
        assertError(await postVectorize(service.url, key, { image: corpusFile('logo/paper_accessories_calculator_512.png') }), 400, /pixel|limit|large/i);
      });
      it('names an unknown form field', async () => {
        assertError(await postVectorize(service.url, key, { image: PNG, extraFields: { colour: 'red' } }), 400, /colour/);
      });
      it('refuses params that are not JSON or not an object', async () => {
        assertError(await postVectorize(service.url, key, { image: PNG, params: '{nope' }), 400, /params/);
        assertError(await postVectorize(service.url, key, { image: PNG, params: '[1,2]' }), 400, /params.*object/);
        assertError(await postVectorize(service.url, key, { image: PNG, params: '"auto"' }), 400, /params.*object/);
      });
      it('names an unknown params member', async () => {
        assertError(await postVectorize(service.url, key, { image: PNG, params: { colour: 3 } }), 400, /colour/);
      });
      it('refuses a body that is not multipart', async () => {
        const res = await request(service.url, '/api/v1/vectorize', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ image: 'x' }),
        });
        assertError(res, 400, /multipart/);
      });
      it('refuses a broken multipart body', async () => {
        const res = await request(service.url, '/api/v1/vectorize', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'multipart/form-data; boundary=XYZ' },
          body: '--XYZ\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\n\r\n\x89PNG',
        });
        assertError(res, 400);
      });
    });

    describe('401', () => {
      for (const [label, header] of [
        ['no header', undefined],
        ['another scheme', `Basic ${Buffer.from('a:b').toString('base64')}`],
        ['an unknown key', 'Bearer vk_doesnotexist0000000000000000000000000000000'],
      ] as const) {
        it(`answers ${label} with WWW-Authenticate on both endpoints`, async () => {
          const headers: Record<string, string> = header ? { authorization: header } : {};
          for (const res of [
            await request(service.url, '/api/v1/vectorize', { method: 'POST', headers, body: new FormData() }),
            await request(service.url, '/api/v1/result/vec_abc_123456', { headers }),
          ]) {
            assertError(res, 401, /API key/);
            assert.equal(res.headers.get('www-authenticate'), 'Bearer');
          }
        });
      }
      it('refuses a revoked key from the very next request', async () => {
        const other = await service.accountWithKey('revoked@example.com', { plan: 'pro' });
        assert.equal((await postVectorize(service.url, other, { image: PNG })).status, 200);
        await revokeKey(service.store.db, other.slice(0, 11));
        const res = await postVectorize(service.url, other, { image: PNG });
        assertError(res, 401, /invalid|revoked/);
        assert.equal(res.headers.get('www-authenticate'), 'Bearer');
      });
    });

    describe('402', () => {
      it('answers insufficient_credits with the balance, and spends nothing', async () => {
        const broke = await service.accountWithKey('broke@example.com', { credits: 1 });
        const last = await postVectorize(service.url, broke, { image: PNG });
        assert.equal(last.status, 200, JSON.stringify(last.body));
        assert.equal(last.body.credits_remaining, 0);

        const res = await postVectorize(service.url, broke, { image: PNG });
        assert.equal(res.status, 402);
        assert.deepEqual(res.body, { error: 'insufficient_credits', credits_remaining: 0, request_id: res.body.request_id });
        // The refusal left the balance at zero and wrote nothing: no debit, no refund, no reservation.
        const account = (await findAccountByEmail(service.store.db, 'broke@example.com'))!;
        assert.equal(account.credits, 0);
        assert.equal(await ledgerSum(service.store.db, account.id), 0);
        const ledger = await service.store.db.selectFrom('ledger').select('kind').where('account_id', '=', account.id).orderBy('id').execute();
        assert.deepEqual(ledger.map((e) => e.kind), ['grant', 'debit']);
        const reservations = await service.store.db.selectFrom('reservations').select('state').where('account_id', '=', account.id).execute();
        assert.deepEqual(reservations.map((r) => r.state), ['settled']);

        // One credit added is one conversion, back to exactly zero.
        await addCredits(service.store.db, account.id, 1, 'grant', 'test');
        const again = await postVectorize(service.url, broke, { image: PNG });
        assert.equal(again.status, 200, JSON.stringify(again.body));
        assert.equal(again.body.credits_remaining, 0);
        assert.equal((await postVectorize(service.url, broke, { image: PNG })).status, 402);
        assert.equal((await findAccountByEmail(service.store.db, 'broke@example.com'))?.credits, 0);
      });
    });

    describe('403', () => {
      it('refuses suspended and banned accounts on both endpoints, naming the state', async () => {
        const email = 'status@example.com';
        const statusKey = await service.accountWithKey(email, { plan: 'pro' });
        const ok = await postVectorize(service.url, statusKey, { image: PNG });
        assert.equal(ok.status, 200);
        for (const status of ['suspended', 'banned']) {
          await updateAccount(service.store.db, (await findAccountByEmail(service.store.db, email))!.id, { status });
          assertError(await postVectorize(service.url, statusKey, { image: PNG }), 403, new RegExp(status));
          assertError(await getResult(service.url, statusKey, String(ok.body.id)), 403, new RegExp(status));
        }
        await updateAccount(service.store.db, (await findAccountByEmail(service.store.db, email))!.id, { status: 'active' });
        assert.equal((await getResult(service.url, statusKey, String(ok.body.id))).status, 200);
      });
    });

    describe('404', () => {
      it('hides unknown, malformed and other accounts’ conversions alike', async () => {
        const ok = await postVectorize(service.url, key, { image: PNG });
        assert.equal(ok.status, 200);
        const stranger = await service.accountWithKey('stranger@example.com', { plan: 'pro' });
        assertError(await getResult(service.url, stranger, String(ok.body.id)), 404);
        assertError(await getResult(service.url, key, 'vec_zzzzzzzz_zzzzzz'), 404);
        assertError(await getResult(service.url, key, 'not-an-id'), 404);
        assertError(await getResult(service.url, key, "vec_'; drop table conversions; --"), 404);
        assert.equal((await getResult(service.url, key, String(ok.body.id))).status, 200);
      });
      it('answers unknown routes with a JSON error', async () => {
        assertError(await request(service.url, '/api/v2/vectorize'), 404);
        assertError(await request(service.url, '/nope', { method: 'DELETE' }), 404);
      });
      it('reads an expired record as 404 and purges it', async () => {
        const ok = await postVectorize(service.url, key, { image: PNG });
        const id = String(ok.body.id);
        clock.advance(29 * 86_400_000);
        assert.equal((await getResult(service.url, key, id)).status, 200);
        clock.advance(2 * 86_400_000);
        assertError(await getResult(service.url, key, id), 404);
        await service.housekeep();
        const row = await service.store.db.selectFrom('conversions').select('id').where('id', '=', id).executeTakeFirst();
        assert.equal(row, undefined);
      });
    });

    describe('413 at the limit of 10 × 1024 × 1024 bytes, counted on the file', () => {
      // The same valid PNG either side of the limit: only the size differs.
      const atLimit = pngOfSize(PNG, UPLOAD_LIMIT);
      const overLimit = pngOfSize(PNG, UPLOAD_LIMIT + 1);

      /** The upload streamed in 1 MB chunks with no Content-Length, so only the cap while reading can refuse it. */
      async function postStreamed(image: Buffer): Promise<JsonResponse> {
        const boundary = 'B0undary';
        const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`);
        const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
        const chunks = [head, ...Array.from({ length: Math.ceil(image.length / 2 ** 20) }, (_, i) => image.subarray(i * 2 ** 20, (i + 1) * 2 ** 20)), tail];
        const body = new ReadableStream({
          pull(controller) {
            const next = chunks.shift();
            if (next) controller.enqueue(next);
            else controller.close();
          },
        });
        return request(service.url, '/api/v1/vectorize', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
          body,
          duplex: 'half',
        } as RequestInit);
      }

      it('converts a file of exactly the limit, and records its size', async () => {
        const res = await postVectorize(service.url, key, { image: atLimit });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.deepEqual([res.body.width, res.body.height], [32, 32]);
        assert.equal((await getResult(service.url, key, String(res.body.id))).body.file_size, UPLOAD_LIMIT);
      });
      it('refuses one byte more with 413', async () => {
        assertError(await postVectorize(service.url, key, { image: overLimit }), 413, /10 MB/);
      });
      it('streamed without Content-Length: exactly the limit converts, one byte more is 413', async () => {
        const ok = await postStreamed(atLimit);
        assert.equal(ok.status, 200, JSON.stringify(ok.body));
        assert.equal((await getResult(service.url, key, String(ok.body.id))).body.file_size, UPLOAD_LIMIT);
        assertError(await postStreamed(overLimit), 413, /10 MB/);
      });
    });

    it('spent no credit on any failed request', async () => {
      // Four requests of this suite succeeded on this account (two 404 cases, two at the upload limit); everything else failed.
      const account = await findAccountByEmail(service.store.db, EMAIL);
      const entries = await service.store.db.selectFrom('ledger').select('kind').where('account_id', '=', account!.id).execute();
      const count = (kind: string) => entries.filter((e) => e.kind === kind).length;
      assert.ok(count('refund') >= 10);
      assert.equal(count('debit') - count('refund'), 4);
      const held = await service.store.db.selectFrom('reservations').select('id').where('state', '=', 'held').execute();
      assert.equal(held.length, 0);
      assert.equal(account?.credits, 96);
      assert.equal(await ledgerSum(service.store.db, account!.id), 96);
    });
  });

  describe(`engine and store faults (${dialect.dialect})`, { skip: dialect.skip }, () => {
    it('answers 502 when the engine exceeds its time limit, and refunds', async () => {
      const service = await startTestService(await dialect.create(), { env: { CONVERSION_TIMEOUT_MS: '100' } });
      try {
        await liftFreeLimits(service);
        const key = await service.accountWithKey('slow@example.com', { credits: 5 });
        const res = await postVectorize(service.url, key, { image: corpusFile('photo/vtracer_angel_luciano_unsplash_6000x4000.jpg') });
        assertError(res, 502, /time limit/);
        const account = await findAccountByEmail(service.store.db, 'slow@example.com');
        assert.equal(account?.credits, 5);
        assert.equal(await ledgerSum(service.store.db, account!.id), 5);
      } finally {
        await service.close();
        await service.database.drop();
      }
    });

    it('answers 500 without internals on an unexpected fault, and refunds', async () => {
      const service = await startTestService(await dialect.create());
      try {
        await liftFreeLimits(service);
        const key = await service.accountWithKey('fault@example.com', { credits: 5 });
        await service.store.db.schema.dropTable('conversions').execute();
        const res = await postVectorize(service.url, key, { image: PNG });
        assertError(res, 500);
        assert.equal(res.body.error, 'internal server error');
        assert.doesNotMatch(JSON.stringify(res.body), /conversions|sql|stack|at \//i);
        const account = await findAccountByEmail(service.store.db, 'fault@example.com');
        assert.equal(account?.credits, 5);
      } finally {
        await service.close();
        await service.database.drop();
      }
    });

    it('answers 503 with Retry-After when the store is unavailable', async () => {
      const database = await dialect.create();
      if (dialect.dialect === 'sqlite') {
        const service = await startTestService(database);
        const key = await service.accountWithKey('locked@example.com', { credits: 5 });
        // Another process holding the write lock past busy_timeout is a store that cannot take writes.
        const SQLite = sqliteDriver();
        const holder = new SQLite(sqlitePath(database.url));
        holder.exec('BEGIN EXCLUSIVE');
        try {
          const res = await postVectorize(service.url, key, { image: PNG });
          assertError(res, 503);
          assert.ok(res.headers.get('retry-after'));
        } finally {
          holder.exec('ROLLBACK');
          holder.close();
          await service.close();
          await database.drop();
        }
        return;
      }
      // PostgreSQL behind a proxy that the test cuts, as a network failure would.
      const target = new URL(database.url);
      const sockets = new Set<Socket>();
      const proxy = createServer((client) => {
        const upstream = new Socket();
        upstream.connect(Number(target.port || 5432), target.hostname);
        sockets.add(client).add(upstream);
        client.pipe(upstream).pipe(client);
        client.on('error', () => upstream.destroy());
        upstream.on('error', () => client.destroy());
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const port = (proxy.address() as { port: number }).port;
      const proxied = new URL(database.url);
      proxied.host = `127.0.0.1:${port}`;
      const service = await startTestService({ ...database, url: proxied.toString() });
      try {
        const key = await service.accountWithKey('down@example.com', { credits: 5 });
        proxy.close();
        for (const socket of sockets) socket.destroy();
        const res = await postVectorize(service.url, key, { image: PNG });
        assertError(res, 503);
        assert.ok(res.headers.get('retry-after'));
        // Liveness stays 200: the process answers, and restarting it would not bring the store back.
        // Readiness is what says the store is gone.
        assert.deepEqual(await request(service.url, '/healthz').then((r) => [r.status, r.body]), [200, { status: 'ok' }]);
        const ready = await request(service.url, '/readyz');
        assert.equal(ready.status, 503);
        assert.equal((ready.body.checks as { store: string }).store, 'unreachable');
      } finally {
        await service.close().catch(() => {});
        await database.drop();
      }
    });
  });
}

