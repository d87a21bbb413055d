// The real entry point (src/server.ts) in a child process, stopped with SIGTERM.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { createAccount, findAccountByEmail } from '../src/accounts/accounts.ts';
import { ledgerSum } from '../src/accounts/credits.ts';
import { createKey } from '../src/accounts/keys.ts';
import { openStore } from '../src/store/database.ts';
import { corpusFile, postVectorize, request } from './helpers/http.ts';
import { multipartBody, rawRequest } from './helpers/raw.ts';
import { captureLogs, leakingLines } from './helpers/service.ts';
import { createSqliteDatabase, type TestDatabase } from './helpers/stores.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PNG = corpusFile('edge/tiny_tango_address_book_32.png');
const BOUNDARY = 'shutdown-boundary';
const BODY = multipartBody(BOUNDARY, [{ name: 'image', filename: 'inflight.png', contentType: 'image/png', data: PNG }]);

interface RunningServer {
  child: ChildProcess;
  url: string;
  /** Resolves with the first log line whose `msg` is `msg`. */
  logged(msg: string): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
  logs: ReturnType<typeof captureLogs>['logs'];
}

async function accountWithKey(database: TestDatabase, email: string, credits: number): Promise<string> {
  const store = await openStore(database.url);
  try {
    const account = await createAccount(store.db, { email, credits });
    return (await createKey(store.db, account.id, 'shutdown')).key;
  } finally {
    await store.close();
  }
}

async function startServer(database: TestDatabase, env: Record<string, string>): Promise<RunningServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: database.url, WORKERS: '1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const { logs } = captureLogs();
  const waiting = new Map<string, (line: Record<string, unknown>) => void>();
  const seen = new Map<string, Record<string, unknown>>();
  createInterface({ input: child.stdout! }).on('line', (text) => {
    logs.lines.push(text);
    const line = JSON.parse(text) as Record<string, unknown>;
    const msg = String(line.msg);
    if (!seen.has(msg)) seen.set(msg, line);
    waiting.get(msg)?.(line);
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const logged = (msg: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const already = seen.get(msg);
      if (already) return resolve(already);
      waiting.set(msg, resolve);
      void exited.then((code) => reject(new Error(`server exited (${code}) before logging "${msg}"`)));
    });
  const ready = await logged('vectorize service ready');
  return { child, url: String(ready.url), logged, exited, logs };
}

function uploadHead(key: string): string {
  return (
    `POST /api/v1/vectorize HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\n` +
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${BODY.length}\r\nExpect: 100-continue`
  );
}

describe('graceful shutdown on SIGTERM', () => {
  it('finishes the request in flight, answers new ones 503, closes the store and exits 0', async () => {
    const database = createSqliteDatabase();
    try {
      const key = await accountWithKey(database, 'shutdown@example.com', 5);
      const server = await startServer(database, { SHUTDOWN_GRACE_MS: '20000' });
      server.logs.secrets.add(key);

      // An upload the server has taken (100 Continue) but whose body is still on its way.
      const inFlight = rawRequest(server.url, uploadHead(key));
      await inFlight.continued;
      inFlight.socket.write(BODY.subarray(0, 40));

      server.child.kill('SIGTERM');
      const draining = await server.logged('draining');
      assert.equal(draining.inFlight, 1);

      const refused = await postVectorize(server.url, key, { image: PNG });
      assert.equal(refused.status, 503);
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
      assert.match(refused.body.error as string, /shutting down/);
      assert.equal(typeof refused.body.request_id, 'string');
      const ready = await request(server.url, '/readyz');
      assert.equal(ready.status, 503);

      inFlight.socket.write(BODY.subarray(40));
      const finished = await inFlight.response;
      assert.equal(finished.status, 200, finished.body);
      assert.equal((JSON.parse(finished.body) as { credits_remaining: number }).credits_remaining, 4);

      assert.equal(await server.exited, 0);
      assert.deepEqual(leakingLines(server.logs), []);
      // The store was closed cleanly: another process opens it and finds the ledger whole.
      const store = await openStore(database.url);
      try {
        const account = await findAccountByEmail(store.db, 'shutdown@example.com');
        assert.equal(account?.credits, 4);
        assert.equal(await ledgerSum(store.db, account!.id), 4);
      } finally {
        await store.close();
      }
    } finally {
      await database.drop();
    }
  });

  it('stops waiting after SHUTDOWN_GRACE_MS, refunds what it cut short, and still exits 0', async () => {
    const database = createSqliteDatabase();
    try {
      const key = await accountWithKey(database, 'stuck@example.com', 5);
      const server = await startServer(database, { SHUTDOWN_GRACE_MS: '500' });
      const stuck = rawRequest(server.url, uploadHead(key));
      await stuck.continued;
      stuck.socket.write(BODY.subarray(0, 40));
      const started = Date.now();
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);
      const elapsed = Date.now() - started;
      assert.ok(elapsed < 5_000, `exited ${elapsed} ms after SIGTERM`);
      await server.logged('grace period over; closing with requests in flight');
      stuck.socket.destroy();
      const store = await openStore(database.url);
      try {
        const account = await findAccountByEmail(store.db, 'stuck@example.com');
        // The reservation is either refunded or left to the lease sweep; the ledger balances.
        assert.equal(await ledgerSum(store.db, account!.id), account?.credits);
      } finally {
        await store.close();
      }
    } finally {
      await database.drop();
    }
  });
});
