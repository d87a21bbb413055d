// `npm run loadtest`: the real server (src/server.ts, a child process on a free port, SQLite
// in a temporary directory, a lifetime-plan account) under autocannon. Measures throughput and
// latency for a small and a large image at 1, 2 and 8 clients, the p99 of /healthz while
// conversions saturate the CPU, and peak memory (server + worker processes) with 20 concurrent
// 10 MB uploads. Bounded: every run has a fixed duration or request count; traffic only to
// 127.0.0.1. Writes its section of docs/benchmarks.md between the loadtest markers.
// `npm run loadtest -- --cluster` measures through nginx and deploy/cluster.sh instead (bench/cluster.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import sharp from 'sharp';
import { createAccount } from '../src/accounts/accounts.ts';
import { createKey } from '../src/accounts/keys.ts';
import { openStore } from '../src/store/database.ts';
import { clusterLoadtest } from './cluster.ts';
import { REPORT_PATH, writeReportSection } from './report.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CORPUS = join(ROOT, '..', 'shared', 'corpus');
const SHORT = process.env.LOADTEST_SHORT === '1';
/** Seconds per throughput run; LOADTEST_SHORT=1 for a quick smoke run. */
const RUN_SECONDS = SHORT ? 3 : 10;
const CLIENTS = [1, 2, 8];
const MAX_UPLOAD = 10 * 1024 * 1024;

interface Server {
  child: ChildProcess;
  url: string;
  /** Server-side answer times (ms, from its `request completed` log lines) of 503s, since the last reset. */
  refusals: number[];
}

async function startServer(databaseUrl: string, env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const refusals: number[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    // Read every line, so the server never blocks on a full pipe.
    lines.on('line', (text) => {
      if (text.includes('"statusCode":503') && text.includes('request completed')) {
        refusals.push((JSON.parse(text) as { responseTime: number }).responseTime);
      }
      if (!text.includes('vectorize service ready')) return;
      const line = JSON.parse(text) as { url?: string };
      if (line.url) resolve(line.url);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before it was ready`)));
  });
  return { child, url, refusals };
}

/** RSS in bytes of one process, from /proc. */
function processRss(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
}

/** RSS in bytes of a process and all its descendants (the worker processes), from /proc. */
function treeRss(pid: number): number {
  let total = 0;
  const pending = [pid];
  while (pending.length > 0) {
    const current = pending.pop()!;
    try {
      const status = readFileSync(`/proc/${current}/status`, 'utf8');
      total += Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
      for (const task of readFileSync(`/proc/${current}/task/${current}/children`, 'utf8').trim().split(/\s+/)) {
        if (task) pending.push(Number(task));
      }
    } catch {
      // The process ended between two reads.
    }
  }
  return total;
}

function sampleRss(pid: number): { stop(): number } {
  let peak = treeRss(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRss(pid));
  }, 25);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, treeRss(pid));
    },
  };
}

function multipart(image: Buffer, filename: string): { body: Buffer; contentType: string } {
  const boundary = `loadtest${Date.now()}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    image,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A real photo as a JPEG of just under 10 MB: quality 99, padded with comment segments. */
async function tenMegabyteJpeg(): Promise<Buffer> {
  const jpeg = await sharp(join(CORPUS, 'photo/vtracer_angel_luciano_unsplash_6000x4000.jpg'))
    .jpeg({ quality: 99, chromaSubsampling: '4:4:4' })
    .toBuffer();
  const target = MAX_UPLOAD - 4096;
  const segments: Buffer[] = [];
  let size = jpeg.length;
  while (size + 4 < target) {
    const length = Math.min(65_533, target - size - 4);
    const segment = Buffer.alloc(length + 4, 0x20);
    segment.writeUInt16BE(0xfffe, 0); // COM marker
    segment.writeUInt16BE(length + 2, 2);
    segments.push(segment);
    size += segment.length;
  }
  return Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);
}

/**
 * autocannon stops at its deadline with requests still open; the server goes on converting
 * them. Each run starts only once the previous one's work is done, so it measures itself.
 */
async function waitIdle(url: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const text = await (await fetch(`${url}/metrics`)).text();
    const busy = /^vectorize_(uploads_in_flight|conversions_running|queue_depth) ([1-9]\d*)$/m.test(text);
    if (!busy) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the server did not become idle within 120 s');
}

interface RunFigures {
  clients: number;
  requests: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function convertRun(url: string, key: string, image: { body: Buffer; contentType: string }, clients: number, seconds: number) {
  const result = await autocannon({
    url: `${url}/api/v1/vectorize`,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': image.contentType },
    body: image.body,
    connections: clients,
    duration: seconds,
    timeout: 60,
  });
  const figures: RunFigures = {
    clients,
    requests: result.requests.total,
    rps: result.requests.total / (result.duration || seconds),
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
  return figures;
}

async function healthUnderLoad(url: string, key: string, image: { body: Buffer; contentType: string }, clients: number, seconds: number) {
  const load = autocannon({
    url: `${url}/api/v1/vectorize`,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': image.contentType },
    body: image.body,
    connections: clients,
    duration: seconds + 2,
    timeout: 60,
  });
  // Let the conversions fill the workers before probing.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const health = await autocannon({ url: `${url}/healthz`, connections: 1, duration: seconds });
  const conversions = await load;
  return { health, conversions };
}

async function concurrentUploads(url: string, key: string, pid: number, count: number) {
  const image = multipart(await tenMegabyteJpeg(), 'ten-megabytes.jpg');
  const before = treeRss(pid);
  const serverBefore = processRss(pid);
  const sampler = sampleRss(pid);
  const started = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: count }, async () => {
      const t = performance.now();
      const res = await fetch(`${url}/api/v1/vectorize`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': image.contentType },
        body: new Uint8Array(image.body),
      });
      await res.arrayBuffer();
      return { status: res.status, ms: performance.now() - t, retryAfter: res.headers.get('retry-after') };
    }),
  );
  const wall = performance.now() - started;
  const peak = sampler.stop();
  return { bytes: image.body.length, before, serverBefore, peak, wall, outcomes };
}

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(0)} MB`;
const ms = (value: number) => `${Math.round(value)}`;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vectorize-loadtest-'));
  const databaseUrl = `sqlite:${join(dir, 'loadtest.db')}`;
  const store = await openStore(databaseUrl);
  const account = await createAccount(store.db, { email: 'loadtest@example.com', plan: 'lifetime' });
  const { key } = await createKey(store.db, account.id, 'loadtest');
  await store.close();

  const workers = availableParallelism();
  const loadAtStart = loadavg()[0] ?? 0;
  // One account makes every request here: its share of the upload slots (MAX_UPLOADS_PER_ACCOUNT,
  // half of MAX_CONCURRENT_UPLOADS by default) is set to the default node-wide number, so the
  // figures measure the node, as before accounts had a share.
  const slots = Math.max(8, 4 * workers);
  const server = await startServer(databaseUrl, { WORKERS: String(workers), MAX_CONCURRENT_UPLOADS: String(2 * slots), MAX_UPLOADS_PER_ACCOUNT: String(slots) });
  let exitCode = 0;
  try {
    const small = { name: 'clipart/noto_emoji_u1f98a_fox_512.png', ...multipart(readFileSync(join(CORPUS, 'clipart/noto_emoji_u1f98a_fox_512.png')), 'fox.png') };
    const large = {
      name: 'photo/vtracer_angel_luciano_unsplash_6000x4000.jpg',
      ...multipart(readFileSync(join(CORPUS, 'photo/vtracer_angel_luciano_unsplash_6000x4000.jpg')), 'angel.jpg'),
    };
    const idleRss = treeRss(server.child.pid!);

    const throughput: { image: string; bytes: number; runs: RunFigures[] }[] = [];
    for (const image of [small, large]) {
      const runs: RunFigures[] = [];
      for (const clients of CLIENTS) {
        const seconds = image === large ? RUN_SECONDS + 5 : RUN_SECONDS;
        await waitIdle(server.url);
        const figures = await convertRun(server.url, key, image, clients, seconds);
        process.stdout.write(`${image.name} × ${clients}: ${figures.requests} requests, ${figures.rps.toFixed(1)}/s, p99 ${figures.p99} ms\n`);
        runs.push(figures);
      }
      throughput.push({ image: image.name, bytes: image.body.length, runs });
    }

    await waitIdle(server.url);
    const { health, conversions } = await healthUnderLoad(server.url, key, large, 8, RUN_SECONDS);
    process.stdout.write(`/healthz under load: p50 ${health.latency.p50} ms, p99 ${health.latency.p99} ms, max ${health.latency.max} ms\n`);

    await waitIdle(server.url);
    server.refusals.length = 0;
    const uploads = await concurrentUploads(server.url, key, server.child.pid!, 20);
    const serverRefusal = Math.max(0, ...server.refusals);
    const refused = uploads.outcomes.filter((o) => o.status === 503);
    const accepted = uploads.outcomes.filter((o) => o.status === 200);
    const other = uploads.outcomes.filter((o) => o.status !== 200 && o.status !== 503);
    const slowestRefusal = Math.max(0, ...refused.map((o) => o.ms));
    process.stdout.write(
      `20 × ${mb(uploads.bytes)}: peak RSS ${mb(uploads.peak)}, ${accepted.length} converted, ${refused.length} refused 503 (server ≤ ${ms(serverRefusal)} ms, client ≤ ${ms(slowestRefusal)} ms)\n`,
    );
    if (refused.some((o) => !o.retryAfter)) throw new Error('a 503 came without Retry-After');

    const healthOk = health.latency.p99 < 50;
    const memoryOk = uploads.peak < 1.5 * 1024 * 1024 * 1024;
    if (!healthOk || !memoryOk || other.length > 0) exitCode = 1;

    const cpu = cpus()[0]?.model ?? 'unknown CPU';
    const rows = throughput.flatMap(({ image, bytes, runs }) =>
      runs.map(
        (r) =>
          `| ${image.split('/').pop()} (${(bytes / 1024).toFixed(0)} KB) | ${r.clients} | ${r.requests} | ${r.rps.toFixed(2)} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.non2xx} | ${r.errors} |`,
      ),
    );
    writeReportSection('loadtest', `
## Load test (\`npm run loadtest\`)

Run on ${new Date().toISOString().slice(0, 10)}: ${availableParallelism()} × ${cpu}, ${mb(totalmem())} RAM, Node ${process.version}
(load average ${loadAtStart.toFixed(1)} when it started: other work on the machine lowers these figures).
The real server (\`src/server.ts\`) in its own process on 127.0.0.1, SQLite in a temporary directory,
a lifetime-plan account, \`WORKERS=${workers}\` and otherwise the defaults (queue 32,
the account's share of upload slots \`MAX_UPLOADS_PER_ACCOUNT\` = max(8, 4 × workers) = ${slots} (with \`MAX_CONCURRENT_UPLOADS\` = ${2 * slots}: one account
is all the traffic), logs at \`info\`).
Clients are autocannon connections, each sending its next request when the last one is answered.

### Throughput and latency

| image | clients | requests | req/s | p50 ms | p90 ms | p99 ms | non-2xx | errors |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Runs last ${RUN_SECONDS} s (small) and ${RUN_SECONDS + 5} s (large), each starting once the server is idle again;
requests still open at the end of a run are not counted. Throughput is bound by the
${workers} worker processes: past ${workers} clients, extra clients wait in the queue and latency grows
with them while requests per second stay flat.

### /healthz while conversions saturate the CPU

8 clients converting the large image (${conversions.requests.total} conversions completed, ${conversions.non2xx} non-2xx) while one client
polls \`/healthz\` for ${RUN_SECONDS} s: **p99 ${health.latency.p99} ms** (p50 ${health.latency.p50} ms, max
${health.latency.max} ms, ${health.requests.total} probes) — target under 50 ms: ${healthOk ? 'met' : '**missed**'}.
Tracing runs in worker processes, so the event loop that answers probes stays free.

### Memory with 20 concurrent 10 MB uploads

20 clients at once, each uploading a ${mb(uploads.bytes)} JPEG (a 6000 × 4000 photo at quality 99, padded to just
under the 10 MB limit). Resident memory of the server and its worker processes: ${mb(idleRss)} idle,
${mb(uploads.before)} before the burst (the server process ${mb(uploads.serverBefore)}, the rest memory the
worker processes kept from earlier large conversions), **peak ${mb(uploads.peak)}** — target under 1.5 GB: ${memoryOk ? 'met' : '**missed**'}.
${accepted.length} uploads were admitted and converted; ${refused.length} were refused with 503 and \`Retry-After\`
by admission control before their bodies were buffered: the server answered each within ${ms(serverRefusal)} ms of
receiving its headers (the slowest, as the client saw it while still sending, ${ms(slowestRefusal)} ms)${other.length > 0 ? `; ${other.length} answered otherwise (${other.map((o) => o.status).join(', ')})` : ''}.
The whole burst took ${(uploads.wall / 1000).toFixed(1)} s.
`);
    process.stdout.write(`results written to ${REPORT_PATH}\n`);
  } finally {
    server.child.kill('SIGTERM');
    await once(server.child, 'exit');
    rmSync(dir, { recursive: true, force: true });
  }
  process.exitCode = exitCode;
}

// --cluster: the same load through nginx in front of one node, then three (bench/cluster.ts).
if (process.argv.includes('--cluster')) await clusterLoadtest();
else await main();
