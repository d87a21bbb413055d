// `npm run loadtest:web`: the web surfaces under abuse, against the real server (src/server.ts in
// its own process, SQLite in a temporary directory, TRUST_PROXY so that clients can play other
// addresses). About a minute, traffic only to 127.0.0.1. Three phases:
//   1. slow converter uploads (6 KB/s) from one account at a time — a lifetime account, a banned
//      one, one without credits, and 20 MB declarations — while four other accounts convert
//      through the API: none of their requests may get 503;
//   2. anonymous page views (autocannon on /, /login, /signup, /password-reset): no stored rows;
//   3. sign-up floods, from one address and from hundreds: 429 past the limits, while a normal
//      log-in is timed against its time on an idle server.
// Writes its section of docs/benchmarks.md; exits 1 when a target is missed.
import { spawn, type ChildProcess } from 'node:child_process';
import { once, setMaxListeners } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createAccount } from '../src/accounts/accounts.ts';
import { changeAccount } from '../src/accounts/admin.ts';
import { createKey } from '../src/accounts/keys.ts';
import { hashPassword } from '../src/accounts/passwords.ts';
import { openStore, type Store } from '../src/store/database.ts';
import { REPORT_PATH, writeReportSection } from './report.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CORPUS = join(ROOT, '..', 'shared', 'corpus');
const SMALL = readFileSync(join(CORPUS, 'edge/tiny_tango_address_book_32.png'));
const PASSWORD = 'load test password 1';
const BASELINE_SECONDS = 8;
const ATTACK_SECONDS = 20;
/** Sign-ups an hour in all, lower than the default (100) to keep the run short: each accepted one hashes. */
const SIGNUPS_PER_HOUR = 40;
const VIEW_SECONDS = 10;
const SLOW_BYTES_PER_SECOND = 6 * 1024;
/** A log-in during the flood may take at most twice its idle median, plus this. */
const LOGIN_SLACK_MS = 250;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The server on a free port, ready when /readyz says so (its logs stay at warn). */
async function startServer(databaseUrl: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before it was ready`);
    const ready = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
    if (ready) return { child, url };
    if (Date.now() > deadline) throw new Error('the server was not ready within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const count = (statuses: (number | string)[]) =>
  Object.entries(statuses.reduce<Record<string, number>>((all, s) => ({ ...all, [s]: (all[s] ?? 0) + 1 }), {}))
    .map(([status, n]) => `${n} × ${status}`)
    .join(', ') || 'none';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0);
}

/** A browser-less page client: the form cookie (or session) and its CSRF token. */
class Visitor {
  cookies = new Map<string, string>();
  constructor(
    readonly url: string,
    readonly address?: string,
  ) {}
  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { ...(this.address ? { 'x-forwarded-for': this.address } : {}), cookie: [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; '), ...extra };
  }
  private keep(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair = ''] = header.split(';');
      const at = pair.indexOf('=');
      this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
  }
  async token(path: string): Promise<string> {
    const response = await fetch(`${this.url}${path}`, { headers: this.headers(), redirect: 'manual' });
    this.keep(response);
    return /name="_csrf" value="([^"]+)"/.exec(await response.text())?.[1] ?? '';
  }
  async post(path: string, fields: Record<string, string>): Promise<{ status: number; retryAfter: string | null }> {
    const response = await fetch(`${this.url}${path}`, {
      method: 'POST',
      headers: this.headers({ 'content-type': 'application/x-www-form-urlencoded' }),
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    });
    this.keep(response);
    await response.arrayBuffer();
    return { status: response.status, retryAfter: response.headers.get('retry-after') };
  }
  cookieHeader(): string {
    return this.headers().cookie ?? '';
  }
}

/** A converter upload declaring `declared` bytes and sending 6 KB a second until answered or stopped. */
function slowUpload(url: string, cookie: string, csrf: string, declared: number, stop: AbortSignal): Promise<number | 'held'> {
  const boundary = 'loadtestWebBoundary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="slow.png"\r\nContent-Type: image/png\r\n\r\n`);
  return new Promise((resolve) => {
    const req = httpRequest(new URL('/try', url), {
      method: 'POST',
      headers: { cookie, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(declared) },
    });
    let sent = 0;
    const timer = setInterval(() => {
      const chunk = sent === 0 ? Buffer.concat([head, SMALL.subarray(0, 64)]) : Buffer.alloc(SLOW_BYTES_PER_SECOND, 0x20);
      if (sent + chunk.length < declared) {
        req.write(chunk);
        sent += chunk.length;
      }
    }, 1000);
    const onStop = () => done('held');
    const done = (outcome: number | 'held') => {
      clearInterval(timer);
      stop.removeEventListener('abort', onStop);
      req.destroy();
      resolve(outcome);
    };
    req.on('response', (res) => {
      res.resume();
      done(res.statusCode ?? 0);
    });
    req.on('error', () => done(0));
    stop.addEventListener('abort', onStop, { once: true });
    req.flushHeaders();
  });
}

/** The four other accounts converting a small PNG through the API, one request at a time each, for `seconds`. */
async function victimsConvert(url: string, keys: string[], seconds: number): Promise<{ statuses: number[]; times: number[] }> {
  const statuses: number[] = [];
  const times: number[] = [];
  const deadline = Date.now() + seconds * 1000;
  await Promise.all(
    keys.map(async (key) => {
      while (Date.now() < deadline) {
        const form = new FormData();
        form.append('image', new Blob([new Uint8Array(SMALL)]), 'small.png');
        const at = performance.now();
        const response = await fetch(`${url}/api/v1/vectorize`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
        await response.arrayBuffer();
        times.push(performance.now() - at);
        statuses.push(response.status);
      }
    }),
  );
  return { statuses, times };
}

async function tableRows(store: Store): Promise<number> {
  const tables = ['accounts', 'api_keys', 'ledger', 'reservations', 'conversions', 'sessions', 'password_resets', 'audit', 'settings', 'email_tokens', 'signup_grants'] as const;
  const counts = await Promise.all(tables.map(async (t) => Number((await store.db.selectFrom(t).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)));
  return counts.reduce((a, b) => a + b, 0);
}

async function uploadsInFlight(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^vectorize_uploads_in_flight (\d+)/m.exec(text)?.[1] ?? 0);
}

async function main(): Promise<void> {
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'vectorize-loadtest-web-'));
  const databaseUrl = `sqlite:${join(dir, 'web.db')}`;
  const store = await openStore(databaseUrl);
  const passwordHash = await hashPassword(PASSWORD);
  const victims = await Promise.all(
    [1, 2, 3, 4].map(async (i) => (await createKey(store.db, (await createAccount(store.db, { email: `victim${i}@example.com`, plan: 'lifetime' })).id, 'load')).key),
  );
  const attackers = {
    lifetime: await createAccount(store.db, { email: 'attacker-lifetime@example.com', plan: 'lifetime', passwordHash }),
    banned: await createAccount(store.db, { email: 'attacker-banned@example.com', passwordHash }),
    broke: await createAccount(store.db, { email: 'attacker-broke@example.com', credits: 0, passwordHash }),
  };
  await createAccount(store.db, { email: 'regular@example.com', passwordHash });

  const workers = availableParallelism();
  const loadAtStart = loadavg()[0] ?? 0;
  const server = await startServer(databaseUrl, { WORKERS: String(workers), TRUST_PROXY: '127.0.0.1', SIGNUPS_PER_HOUR: String(SIGNUPS_PER_HOUR) });
  const slots = Math.max(8, 4 * workers);
  let exitCode = 0;
  try {
    // Phase 1: slow uploads against the API's other accounts.
    const sessions: Record<string, { cookie: string; csrf: string }> = {};
    for (const [name, account] of Object.entries(attackers)) {
      const visitor = new Visitor(server.url);
      const login = await visitor.post('/login', { _csrf: await visitor.token('/login'), email: account.email, password: PASSWORD });
      if (login.status !== 303) throw new Error(`${name} could not log in: ${login.status}`);
      sessions[name] = { cookie: visitor.cookieHeader(), csrf: await visitor.token('/try') };
    }
    // Banned after logging in, behind the pages' back (as by the command line).
    await changeAccount(store.db, 'loadtest', attackers.banned.id, { status: 'banned' });

    // The same conversions without the attack first: what the machine gives them anyway.
    const baseline = await victimsConvert(server.url, victims, BASELINE_SECONDS);
    process.stdout.write(`baseline: ${count(baseline.statuses)}, p50 ${percentile(baseline.times, 50).toFixed(0)} ms\n`);
    const stop = new AbortController();
    // Every slow upload listens for the end of the phase.
    setMaxListeners(64, stop.signal);
    const attackerAnswers: Record<string, (number | string)[]> = { lifetime: [], banned: [], broke: [], oversized: [] };
    const attack = async (name: string, declared: number) => {
      const session = sessions[name === 'oversized' ? 'lifetime' : name]!;
      while (!stop.signal.aborted) {
        const outcome = await slowUpload(server.url, session.cookie, session.csrf, declared, stop.signal);
        attackerAnswers[name]!.push(outcome);
        if (!stop.signal.aborted) await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };
    const attacks = [
      ...Array.from({ length: 8 }, () => attack('lifetime', 9 * 1024 * 1024)),
      ...Array.from({ length: 8 }, () => attack('banned', 9 * 1024 * 1024)),
      ...Array.from({ length: 8 }, () => attack('broke', 9 * 1024 * 1024)),
      ...Array.from({ length: 8 }, () => attack('oversized', 20 * 1024 * 1024)),
    ];
    let peakInFlight = 0;
    const sampler = setInterval(() => {
      uploadsInFlight(server.url).then((n) => (peakInFlight = Math.max(peakInFlight, n)), () => {});
    }, 250);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const { statuses: victimStatuses, times: victimTimes } = await victimsConvert(server.url, victims, ATTACK_SECONDS);
    stop.abort();
    await Promise.all(attacks);
    clearInterval(sampler);
    const victim503 = victimStatuses.filter((s) => s === 503).length;
    const victimsOk = victim503 === 0 && victimStatuses.every((s) => s === 200);
    process.stdout.write(`slow uploads: victims ${count(victimStatuses)}; attackers ${Object.entries(attackerAnswers).map(([n, a]) => `${n}: ${count(a)}`).join('; ')}; peak uploads in flight ${peakInFlight}\n`);

    // Phase 2: anonymous page views.
    const rowsBefore = await tableRows(store);
    const views = await autocannon({
      url: server.url,
      connections: 16,
      duration: VIEW_SECONDS,
      requests: ['/', '/login', '/signup', '/password-reset'].map((path) => ({ method: 'GET' as const, path })),
    });
    const rowsAfter = await tableRows(store);
    const viewsOk = rowsAfter === rowsBefore && views.non2xx === 0;
    process.stdout.write(`anonymous views: ${views.requests.total} (${views.requests.average}/s), non-2xx ${views.non2xx}, rows ${rowsBefore} → ${rowsAfter}\n`);

    // Phase 3: sign-up floods, and a normal log-in timed through them.
    const timeLogIns = async (until: () => boolean): Promise<number[]> => {
      const times: number[] = [];
      do {
        const visitor = new Visitor(server.url, '10.77.0.1');
        const csrf = await visitor.token('/login');
        const at = performance.now();
        const login = await visitor.post('/login', { _csrf: csrf, email: 'regular@example.com', password: PASSWORD });
        if (login.status !== 303) throw new Error(`the regular log-in got ${login.status}`);
        times.push(performance.now() - at);
      } while (!until());
      return times;
    };
    process.stdout.write('timing log-ins on the idle server\n');
    let idleLogins: number[] = [];
    for (let i = 0; i < 7; i++) idleLogins = [...idleLogins, ...(await timeLogIns(() => true))];

    const flood = async (addresses: (i: number) => string | undefined, total: number, concurrency: number) => {
      const statuses: number[] = [];
      let retryAfterMissing = 0;
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < total) {
            const i = next++;
            const visitor = new Visitor(server.url, addresses(i));
            const res = await visitor.post('/signup', { _csrf: await visitor.token('/signup'), email: `flood-${addresses(i) ?? 'one'}-${i}@example.com`, password: PASSWORD });
            statuses.push(res.status);
            if (res.status === 429 && !res.retryAfter) retryAfterMissing++;
          }
        }),
      );
      return { statuses, retryAfterMissing };
    };
    process.stdout.write(`log-in idle p50 ${percentile(idleLogins, 50).toFixed(0)} ms; flooding from one address\n`);
    const oneAddress = await flood(() => undefined, 100, 10);
    process.stdout.write(`one address: ${count(oneAddress.statuses)}; flooding from 200\n`);
    let flooding = true;
    const wide = flood((i) => `10.${78 + Math.floor(i / 250)}.${Math.floor(i / 250) % 250}.${(i % 250) + 1}`, 200, 24).finally(() => (flooding = false));
    const floodLogins = await timeLogIns(() => !flooding);
    const wideResult = await wide;
    const floodsOk =
      oneAddress.statuses.filter((s) => s === 200).length === 5 &&
      oneAddress.statuses.filter((s) => s === 429).length === 95 &&
      wideResult.statuses.every((s) => s === 200 || s === 429) &&
      wideResult.statuses.filter((s) => s === 200).length === SIGNUPS_PER_HOUR - 5 &&
      oneAddress.retryAfterMissing + wideResult.retryAfterMissing === 0;
    const loginBound = 2 * percentile(idleLogins, 50) + LOGIN_SLACK_MS;
    const loginOk = percentile(floodLogins, 50) <= loginBound;
    process.stdout.write(
      `sign-up floods: one address ${count(oneAddress.statuses)}; 200 addresses ${count(wideResult.statuses)}; log-in idle p50 ${percentile(idleLogins, 50).toFixed(0)} ms, during the flood p50 ${percentile(floodLogins, 50).toFixed(0)} ms max ${Math.max(...floodLogins).toFixed(0)} ms (${floodLogins.length} log-ins)\n`,
    );
    if (!victimsOk || !viewsOk || !floodsOk || !loginOk) exitCode = 1;
    const elapsed = (performance.now() - started) / 1000;

    const yes = (ok: boolean) => (ok ? 'met' : '**missed**');
    writeReportSection('loadtest-web', `
## Web surfaces under abuse (\`npm run loadtest:web\`)

Run on ${new Date().toISOString().slice(0, 10)}: ${workers} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GB RAM, Node ${process.version}
(load average ${loadAtStart.toFixed(1)} when it started), ${elapsed.toFixed(0)} s in all. The real server in its own process, SQLite,
\`WORKERS=${workers}\`, \`MAX_CONCURRENT_UPLOADS\` = ${slots} (so at most ${Math.floor(slots / 2)} per account), \`TRUST_PROXY=127.0.0.1\`
so that clients play other addresses through \`X-Forwarded-For\`, \`SIGNUPS_PER_HOUR=${SIGNUPS_PER_HOUR}\` (default 100: lower, so that the
flood's accepted sign-ups, each a password hash, take less time), every other setting its default.

**Slow converter uploads never deny other accounts** — target: no 503 for them: ${yes(victimsOk)}.
For ${ATTACK_SECONDS} s, 8 uploads at a time from each of four attackers on \`POST /try\`, each sending 6 KB a second
(above the pace check) and started again 250 ms after it ends: a lifetime account (no concurrency limit) declaring 9 MB,
a free account banned after it logged in, a free account without credits, and the lifetime account declaring 20 MB.
Meanwhile four other accounts convert a small PNG through \`POST /api/v1/vectorize\`, one request at a time each.

| who | answers |
|---|---|
| the four other accounts (API), ${BASELINE_SECONDS} s before the attack | ${count(baseline.statuses)}; p50 ${percentile(baseline.times, 50).toFixed(0)} ms, p95 ${percentile(baseline.times, 95).toFixed(0)} ms |
| the four other accounts (API), during it | ${count(victimStatuses)}; p50 ${percentile(victimTimes, 50).toFixed(0)} ms, p95 ${percentile(victimTimes, 95).toFixed(0)} ms |
| lifetime attacker, 9 MB (\`held\`: still uploading at the end) | ${count(attackerAnswers.lifetime!)} |
| banned attacker | ${count(attackerAnswers.banned!)} |
| attacker without credits | ${count(attackerAnswers.broke!)} |
| 20 MB declared | ${count(attackerAnswers.oversized!)} |

Uploads in flight peaked at ${peakInFlight} of ${slots}: the lifetime attacker holds at most its half, the banned one is sent to the
log-in page (303) and the one without credits refused (402, or 429 for the free plan's burst) before a slot is taken or a byte
read, and a 20 MB declaration is refused (413) from its \`Content-Length\`.

**Anonymous page views store nothing** — target: no new row: ${yes(viewsOk)}. autocannon, 16 connections for ${VIEW_SECONDS} s over
\`/\`, \`/login\`, \`/signup\` and \`/password-reset\`: ${views.requests.total} views (${views.requests.average} a second, p99
${views.latency.p99} ms, ${views.non2xx} non-2xx). Rows in all tables: ${rowsBefore} before, ${rowsAfter} after (the forms' CSRF tokens
are tied to a signed cookie, not to a stored session).

**Sign-up floods get 429** — target: 5 an hour from one address, ${SIGNUPS_PER_HOUR} an hour in all, every refusal with \`Retry-After\`: ${yes(floodsOk)}.
100 sign-ups from one address, 10 at a time: ${count(oneAddress.statuses)}. Then 200 from 200 addresses, 24 at a time:
${count(wideResult.statuses)} (the ${SIGNUPS_PER_HOUR - 5} left of the hour's ${SIGNUPS_PER_HOUR}, then 429).

**A log-in during the flood** — target: its median at most twice the idle median plus ${LOGIN_SLACK_MS} ms (${loginBound.toFixed(0)} ms here): ${yes(loginOk)}.
A regular account logging in, one log-in after another: p50 ${percentile(idleLogins, 50).toFixed(0)} ms on the idle server; during the
200-address flood (every accepted sign-up hashes a password) p50 ${percentile(floodLogins, 50).toFixed(0)} ms, p90 ${percentile(floodLogins, 90).toFixed(0)} ms,
max ${Math.max(...floodLogins).toFixed(0)} ms over ${floodLogins.length} log-ins. scrypt runs two at a time (\`PASSWORD_HASH_CONCURRENCY\`):
sign-ups on one slot, so a log-in waits for no queue of them, only shares the machine with the one running.
`);
    process.stdout.write(`results written to ${REPORT_PATH} (${elapsed.toFixed(0)} s)\n`);
  } finally {
    server.child.kill('SIGTERM');
    await once(server.child, 'exit');
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  process.exitCode = exitCode;
}

await main();
