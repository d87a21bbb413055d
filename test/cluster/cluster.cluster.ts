// `npm run test:cluster`: three nodes of the compiled server behind nginx, all on one PostgreSQL
// and one Redis, started and stopped by deploy/cluster.sh exactly as an operator would. Requests
// go through nginx unless a test needs one node in particular. Not part of `npm test` (its name
// does not end in .test.ts): it needs `npm run build` first, and nginx.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createAccount } from '../../src/accounts/accounts.ts';
import { ledgerSum } from '../../src/accounts/credits.ts';
import { createKey } from '../../src/accounts/keys.ts';
import { hashPassword } from '../../src/accounts/passwords.ts';
import { updatePlan } from '../../src/accounts/plans.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { corpusFile, vectorizeForm, type JsonResponse } from '../helpers/http.ts';
import { PageClient } from '../helpers/pages.ts';
import { createPostgresDatabase, postgresProblem, redisProblem, REDIS_TEST_URL, type TestDatabase } from '../helpers/stores.ts';
import { holdUpload, waitFor, type HeldUpload } from '../helpers/upload.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = join(ROOT, 'deploy/cluster.sh');
const NGINX = process.env.NGINX_BIN ?? '/usr/sbin/nginx';
const NODES = 3;
const PNG = corpusFile('edge/tiny_tango_address_book_32.png');
const FREE_DEFAULTS = { dailyQuota: 5, burstPerSecond: 2, concurrency: 1 };
const NO_LIMITS = { dailyQuota: null, burstPerSecond: null, concurrency: null };
/**
 * No request through the cluster may take longer than this, even one cut short by a dead node:
 * the nodes' CONVERSION_TIMEOUT_MS (30 s) plus room for a machine busy with other work.
 */
const DEADLINE_MS = 60_000;
/** Short, so that the sweep of a dead node's reservations fits in the test; live conversions renew theirs. */
const LEASE_MS = 10_000;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Why the cluster cannot run here, if it cannot. */
async function clusterProblem(): Promise<string | undefined> {
  const postgres = await postgresProblem();
  if (postgres) return postgres;
  const redis = await redisProblem();
  if (redis) return redis;
  if (!existsSync(NGINX)) return `nginx not found at ${NGINX} (apt-get install nginx, or set NGINX_BIN)`;
  return undefined;
}

const problem = await clusterProblem();
const required = ['REQUIRE_POSTGRES', 'REQUIRE_REDIS', 'REQUIRE_NGINX'].filter((name) => process.env[name] === '1');
if (problem && required.length > 0) throw new Error(`${problem} (${required.join(', ')})`);
if (problem) process.stderr.write(`# skipping the cluster test: ${problem}\n`);
const built = join(ROOT, 'dist/server.js');
if (!problem && (!existsSync(built) || statSync(built).mtimeMs < newestMtime(join(ROOT, 'src')))) {
  throw new Error('dist/ is missing or older than src/: run npm run build before npm run test:cluster');
}

/** A free port followed by `count - 1` free ports: nginx first, then the nodes. */
async function freePorts(count: number): Promise<number> {
  const isFree = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    let free = true;
    for (let i = 0; i < count && free; i += 1) free = await isFree(base + i);
    if (free) return base;
  }
  throw new Error('no free run of ports');
}

function script(args: string[], env: Record<string, string>, timeoutMs = 180_000) {
  return promisify(execFile)(SCRIPT, args, { env: { ...process.env, ...env }, timeout: timeoutMs, cwd: ROOT });
}

/** A conversion through `baseUrl`, bounded by the deadline; its time is part of the answer. */
async function convert(baseUrl: string, key: string, image = PNG): Promise<JsonResponse & { ms: number }> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}/api/v1/vectorize`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: vectorizeForm({ image }),
    signal: AbortSignal.timeout(DEADLINE_MS),
  });
  const text = await response.text();
  const body = JSON.parse(text) as Record<string, unknown>;
  return { status: response.status, headers: response.headers, body, ms: performance.now() - started };
}

/** `promise`, or a rejection once the deadline has passed. */
async function withinDeadline<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('past the deadline')), DEADLINE_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The value of one series in a Prometheus text page (0 when absent). */
function series(text: string, name: string, labels = ''): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** Vectorize requests a node has answered, from its own /metrics. */
function vectorizeCount(text: string): number {
  return text
    .split('\n')
    .filter((l) => l.startsWith('vectorize_http_requests_total{') && l.includes('route="/api/v1/vectorize"'))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

describe(`a cluster of ${NODES} nodes behind nginx (deploy/cluster.sh)`, { skip: problem ?? false, timeout: 600_000 }, () => {
  let dir: string;
  let database: TestDatabase;
  let store: Store;
  let env: Record<string, string>;
  let proxy: string;
  let nodePorts: number[];
  let alive: number[];
  const nodeUrl = (port: number) => `http://127.0.0.1:${port}`;
  const metricsOf = async (port: number) => (await fetch(`${nodeUrl(port)}/metrics`)).text();
  let n = 0;

  async function accountWithKey(credits: number): Promise<{ id: string; key: string }> {
    n += 1;
    const account = await createAccount(store.db, { email: `cluster${n}-${randomBytes(3).toString('hex')}@example.com`, credits });
    const { key } = await createKey(store.db, account.id, 'cluster');
    return { id: account.id, key };
  }

  async function assertLedgerBalances(accountId: string): Promise<number> {
    const row = await store.db.selectFrom('accounts').select('credits').where('id', '=', accountId).executeTakeFirstOrThrow();
    assert.equal(await ledgerSum(store.db, accountId), Number(row.credits), 'the ledger sums to the balance');
    assert.ok(Number(row.credits) >= 0);
    return Number(row.credits);
  }

  const heldReservations = async (accountId: string) =>
    (await store.db.selectFrom('reservations').select('id').where('account_id', '=', accountId).where('state', '=', 'held').execute()).length;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vectorize-cluster-'));
    database = await createPostgresDatabase();
    const base = await freePorts(NODES + 1);
    proxy = `http://127.0.0.1:${base}`;
    nodePorts = Array.from({ length: NODES }, (_, i) => base + 1 + i);
    alive = [...nodePorts];
    env = {
      CLUSTER_DIR: dir,
      CLUSTER_PORT: String(base),
      CLUSTER_NODE_PORT: String(base + 1),
      NGINX_BIN: NGINX,
      DATABASE_URL: database.url,
      REDIS_URL: REDIS_TEST_URL,
      REDIS_PREFIX: `vectorize-cluster-test-${process.pid}-${randomBytes(4).toString('hex')}:`,
      WORKERS: '1',
      LOG_LEVEL: 'info',
      HOUSEKEEPING_INTERVAL_MS: '200',
      RESERVATION_LEASE_MS: String(LEASE_MS),
      SHUTDOWN_GRACE_MS: '5000',
      // The held uploads below wait, half sent, for as long as the test needs.
      UPLOAD_MIN_BYTES_PER_SECOND: '0',
      // One account drives up to 40 conversions at once here: the per-account share of a node's
      // upload slots (test/http/web/try.security.test.ts tests it) must not turn them into 503s.
      MAX_CONCURRENT_UPLOADS: '64',
      MAX_UPLOADS_PER_ACCOUNT: '48',
    };
    await script(['start', String(NODES)], env);
    store = await openStore(database.url, { migrate: false });
    // One conversion on each node first, so that no test waits for a worker's first start.
    const warm = await createAccount(store.db, { email: 'warm-up@example.com', plan: 'lifetime' });
    const { key } = await createKey(store.db, warm.id, 'warm-up');
    for (const port of nodePorts) assert.equal((await convert(nodeUrl(port), key)).status, 200);
  });

  after(async () => {
    await store?.close();
    try {
      await script(['stop'], env, 60_000);
    } finally {
      const { Redis } = await import('ioredis');
      const redis = new Redis(REDIS_TEST_URL);
      const keys = await redis.keys(`${env.REDIS_PREFIX}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
      await database.drop();
      if (process.env.KEEP_CLUSTER_DIR === '1') process.stderr.write(`# cluster logs kept in ${dir}\n`);
      else rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports every node ready in deploy/cluster.sh status', async () => {
    const { stdout } = await script(['status'], env);
    assert.equal(stdout.match(/^node \d\tpid \d+\tport \d+\treadyz 200$/gm)?.length, NODES, stdout);
    assert.match(stdout, /^nginx\tpid \d+/m);
  });

  it('keeps a web session created through one node working through the others', async () => {
    const [first, second, third] = nodePorts.map(nodeUrl) as [string, string, string];
    const onFirst = new PageClient(first);
    const email = `session-${randomBytes(3).toString('hex')}@example.com`;
    await createAccount(store.db, { email, passwordHash: await hashPassword('correct horse battery') });
    assert.equal((await onFirst.logIn(email, 'correct horse battery')).status, 303);
    for (const url of [second, third, proxy]) {
      const other = new PageClient(url);
      for (const [name, value] of onFirst.cookies) other.cookies.set(name, value);
      assert.equal((await other.get('/account')).status, 200, `the session works through ${url}`);
    }
    // Log out through the third node (its CSRF token, the first node's session): over everywhere.
    const onThird = new PageClient(third);
    for (const [name, value] of onFirst.cookies) onThird.cookies.set(name, value);
    assert.equal((await onThird.submit('/account', '/logout', {})).status, 303);
    assert.equal((await onFirst.get('/account')).status, 303, 'logged out on the first node too');
  });

  it("forwards the client's address, not the proxy's, and ignores one the client made up", async () => {
    const requestId = `cluster-ip-${randomBytes(4).toString('hex')}`;
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${proxy}/api/v1/result/vec_x`, {
        localAddress: '127.0.0.2',
        headers: { 'x-request-id': requestId, 'x-forwarded-for': '203.0.113.9' },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 401);
    let line: { req?: { remoteAddress?: string } } | undefined;
    await waitFor(
      () => {
        for (let i = 1; i <= NODES && !line; i += 1) {
          const text = readFileSync(join(dir, `node-${i}.log`), 'utf8');
          const found = text.split('\n').find((l) => l.includes(requestId) && l.includes('incoming request'));
          if (found) line = JSON.parse(found) as typeof line;
        }
        return line !== undefined;
      },
      5000,
      'the request in a node log',
    );
    assert.equal(line!.req?.remoteAddress, '127.0.0.2');
  });

  it('gives 40 parallel conversions on 10 credits exactly 10 × 200 and 30 × 402, spread over the nodes', async () => {
    await updatePlan(store.db, 'free', NO_LIMITS);
    const { id, key } = await accountWithKey(10);
    const before = await Promise.all(nodePorts.map(async (port) => vectorizeCount(await metricsOf(port))));
    const results = await Promise.all(Array.from({ length: 40 }, () => convert(proxy, key)));
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 10, statuses.join(' '));
    assert.equal(statuses.filter((s) => s === 402).length, 30, statuses.join(' '));
    for (const refused of results.filter((r) => r.status === 402)) {
      assert.deepEqual({ error: refused.body.error, credits_remaining: refused.body.credits_remaining }, { error: 'insufficient_credits', credits_remaining: 0 });
    }
    const served = (await Promise.all(nodePorts.map(async (port) => vectorizeCount(await metricsOf(port))))).map((count, i) => count - before[i]!);
    assert.equal(served.reduce((a, b) => a + b, 0), 40, `per node: ${served.join(', ')}`);
    assert.ok(served.every((count) => count > 0), `every node served some: ${served.join(', ')}`);
    assert.equal(await assertLedgerBalances(id), 0);
    assert.equal(await heldReservations(id), 0);
    const settled = await store.db.selectFrom('reservations').select('id').where('account_id', '=', id).where('state', '=', 'settled').execute();
    assert.equal(settled.length, 10);
  });

  it('holds a free account to one conversion at a time in total, and to its burst rate, across nodes', async () => {
    await updatePlan(store.db, 'free', FREE_DEFAULTS);
    const { id, key } = await accountWithKey(50);
    const held: HeldUpload = holdUpload(proxy, key, PNG);
    await waitFor(async () => (await heldReservations(id)) === 1, 10_000, 'the held upload admitted');
    for (const port of nodePorts) {
      const refused = await convert(nodeUrl(port), key);
      assert.equal(refused.status, 429, `node ${port}: ${JSON.stringify(refused.body)}`);
      assert.equal(refused.body.limit, 'concurrency');
      assert.ok(refused.headers.get('retry-after'));
    }
    assert.equal((await held.finish()).status, 200);
    // Burst: 2 admissions per second in total, wherever they land. The concurrency limit is
    // lifted for this part, so that three requests can arrive together and spread over the nodes.
    await updatePlan(store.db, 'free', { ...FREE_DEFAULTS, concurrency: null });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const burst = await Promise.all([convert(proxy, key), convert(proxy, key), convert(proxy, key)]);
    assert.deepEqual(burst.map((r) => r.status).sort(), [200, 200, 429], JSON.stringify(burst.map((r) => r.body)));
    const refused = burst.find((r) => r.status === 429)!;
    assert.equal(refused.body.limit, 'burst');
    assert.match(String(refused.headers.get('retry-after')), /^[1-9]\d*$/);
    await assertLedgerBalances(id);
  });

  it('holds the daily quota across nodes', async () => {
    await updatePlan(store.db, 'free', { ...FREE_DEFAULTS, burstPerSecond: null });
    const { id, key } = await accountWithKey(50);
    const before = await Promise.all(nodePorts.map(async (port) => vectorizeCount(await metricsOf(port))));
    for (let i = 0; i < FREE_DEFAULTS.dailyQuota; i += 1) assert.equal((await convert(proxy, key)).status, 200);
    const served = (await Promise.all(nodePorts.map(async (port) => vectorizeCount(await metricsOf(port))))).map((count, i) => count - before[i]!);
    assert.ok(served.filter((count) => count > 0).length >= 2, `the quota's conversions went to several nodes: ${served.join(', ')}`);
    for (const url of [...nodePorts.map(nodeUrl), proxy]) {
      const refused = await convert(url, key);
      assert.equal(refused.status, 429, `${url}: ${JSON.stringify(refused.body)}`);
      assert.equal(refused.body.limit, 'daily_quota');
      assert.ok(refused.headers.get('retry-after'));
    }
    assert.equal(await assertLedgerBalances(id), 50 - FREE_DEFAULTS.dailyQuota);
  });

  it('runs housekeeping on one node at a time: the others skip while one holds the lock', async () => {
    const totals = async () => {
      const pages = await Promise.all(alive.map(metricsOf));
      return {
        ran: pages.map((text) => series(text, 'vectorize_housekeeping_passes_total', 'outcome="ran"')),
        skipped: pages.map((text) => series(text, 'vectorize_housekeeping_passes_total', 'outcome="skipped"')),
        failed: pages.map((text) => series(text, 'vectorize_housekeeping_passes_total', 'outcome="failed"')),
      };
    };
    await waitFor(async () => (await totals()).skipped.reduce((a, b) => a + b, 0) > 0, 30_000, 'a pass skipped because another node held the lock');
    const { ran, skipped, failed } = await totals();
    process.stdout.write(`# housekeeping passes per node: ran ${ran.join(', ')}; skipped ${skipped.join(', ')}\n`);
    assert.ok(ran.filter((count) => count > 0).length >= 2, `several nodes took their turn: ${ran.join(', ')}`);
    assert.deepEqual(failed, alive.map(() => 0));
  });

  it('routes around a node killed mid-conversion and refunds each cut-short reservation once', async () => {
    await updatePlan(store.db, 'free', NO_LIMITS);
    const { id, key } = await accountWithKey(20);
    const [victimPort] = nodePorts as [number];
    const victimPid = Number(readFileSync(join(dir, 'node-1.pid'), 'utf8'));
    const refundsBefore = await Promise.all(nodePorts.slice(1).map(async (port) => series(await metricsOf(port), 'vectorize_lease_refunds_total')));

    // Six uploads held open through nginx: round robin puts about two on each node.
    const started = performance.now();
    const held = Array.from({ length: 6 }, () => holdUpload(proxy, key, PNG));
    await waitFor(async () => (await heldReservations(id)) === 6, 15_000, 'six conversions in flight');
    process.kill(victimPid, 'SIGKILL');
    alive = nodePorts.slice(1);

    // Every held request ends, one way or another, well within the deadline.
    const outcomes = await Promise.all(
      held.map(async (upload) => {
        try {
          return await withinDeadline(upload.finish());
        } catch (error) {
          if ((error as Error).message === 'past the deadline') throw error;
          return { status: 0, body: { error: (error as Error).message } };
        }
      }),
    );
    assert.ok(performance.now() - started < DEADLINE_MS, 'no held request hung');
    const cutShort = outcomes.filter((o) => o.status !== 200);
    assert.ok(cutShort.length >= 1 && cutShort.length <= 3, `the killed node's requests failed: ${JSON.stringify(outcomes)}`);
    for (const outcome of cutShort) {
      assert.ok(outcome.status === 502 || outcome.status === 0, JSON.stringify(outcome));
    }

    // nginx routes new requests to the living nodes, the dead one's connection refusals retried.
    const after = await Promise.all(Array.from({ length: 8 }, () => convert(proxy, key)));
    assert.deepEqual(
      after.map((r) => r.status),
      after.map(() => 200),
    );
    assert.ok(after.every((r) => r.ms < DEADLINE_MS));
    const { stdout } = await script(['status'], env).catch((error: { stdout: string }) => error);
    assert.match(stdout, new RegExp(`port ${victimPort}\\treadyz (dead|000)`));

    // The dead node's reservations stay held until their lease runs out; then one sweep refunds each.
    await waitFor(async () => (await heldReservations(id)) === 0, LEASE_MS + 20_000, 'the lease sweep');
    const refunded = await store.db.selectFrom('reservations').select('id').where('account_id', '=', id).where('state', '=', 'refunded').execute();
    assert.equal(refunded.length, cutShort.length, 'one refund per cut-short conversion');
    for (const { id: reservationId } of refunded) {
      const rows = await store.db.selectFrom('ledger').select('id').where('conversion_id', '=', reservationId).where('kind', '=', 'refund').execute();
      assert.equal(rows.length, 1, `reservation ${reservationId} refunded exactly once`);
    }
    const refundsAfter = await Promise.all(alive.map(async (port) => series(await metricsOf(port), 'vectorize_lease_refunds_total')));
    assert.equal(
      refundsAfter.reduce((a, b) => a + b, 0) - refundsBefore.reduce((a, b) => a + b, 0),
      cutShort.length,
      'the living nodes counted each lease refund once between them',
    );
    const successes = outcomes.length - cutShort.length + after.length;
    assert.equal(await assertLedgerBalances(id), 20 - successes);
  });
});
