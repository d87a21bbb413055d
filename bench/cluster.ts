// `npm run loadtest -- --cluster`: the same load through nginx, first in front of one node and
// then of three (deploy/cluster.sh, the compiled server, PostgreSQL and Redis on this machine).
// Measures conversions per second and latency, /healthz at saturation, and checks that the only
// errors are 429 and 503, each with Retry-After. Writes its section of docs/benchmarks.md
// between the cluster markers; needs `npm run build` first.
import { execFile } from 'node:child_process';
import type { IncomingHttpHeaders } from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { createAccount } from '../src/accounts/accounts.ts';
import { createKey } from '../src/accounts/keys.ts';
import { openStore } from '../src/store/database.ts';
import { REPORT_PATH, writeReportSection } from './report.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CORPUS = join(ROOT, '..', 'shared', 'corpus');
const SHORT = process.env.LOADTEST_SHORT === '1';
const RUN_SECONDS = SHORT ? 3 : 10;
const POSTGRES_ADMIN_URL = process.env.LOADTEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.LOADTEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const BASE_PORT = Number(process.env.LOADTEST_CLUSTER_PORT ?? 18800);
const CLIENTS = [2, 8];
const SATURATION_CLIENTS = 32;

interface Image {
  name: string;
  body: Buffer;
  contentType: string;
}

function multipart(path: string): Image {
  const boundary = `loadtest${Date.now()}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="image"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    readFileSync(join(CORPUS, path)),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { name: path, body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Every status seen, and the refusals (429, 503) that came without Retry-After. */
interface Tally {
  statuses: Map<number, number>;
  withoutRetryAfter: number;
}

function tallying(tally: Tally) {
  return (status: number, _body: string, _context: object, headers: IncomingHttpHeaders | undefined) => {
    tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
    if (status === 429 || status === 503) {
      const retryAfter = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === 'retry-after')?.[1];
      if (!retryAfter) tally.withoutRetryAfter += 1;
    }
  };
}

async function load(url: string, key: string, image: Image, clients: number, seconds: number, tally: Tally) {
  const result = await autocannon({
    url: `${url}/api/v1/vectorize`,
    connections: clients,
    duration: seconds,
    timeout: 60,
    requests: [
      {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': image.contentType },
        body: image.body,
        onResponse: tallying(tally),
      },
    ],
  });
  return {
    clients,
    requests: result.requests.total,
    ok: result['2xx'],
    rps: result['2xx'] / (result.duration || seconds),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** Until no node has an upload, a conversion or a queued job left from the last run. */
async function waitIdle(nodePorts: number[]): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const pages = await Promise.all(nodePorts.map(async (port) => (await fetch(`http://127.0.0.1:${port}/metrics`)).text()));
    if (!pages.some((text) => /^vectorize_(uploads_in_flight|conversions_running|queue_depth) ([1-9]\d*)$/m.test(text))) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the nodes did not become idle within 120 s');
}

interface Topology {
  nodes: number;
  workers: number;
  runs: Awaited<ReturnType<typeof load>>[];
  saturation: Awaited<ReturnType<typeof load>>;
  health: { p50: number; p99: number; max: number; probes: number; non2xx: number };
  limited: Awaited<ReturnType<typeof load>>;
  tally: Tally;
}

async function measure(nodes: number, image: Image): Promise<Topology> {
  const name = `vectorize_loadtest_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const databaseUrl = Object.assign(new URL(POSTGRES_ADMIN_URL), { pathname: `/${name}` }).toString();
  const dir = mkdtempSync(join(tmpdir(), 'vectorize-loadtest-cluster-'));
  const workers = Math.max(1, Math.floor(availableParallelism() / nodes));
  const env = {
    ...process.env,
    CLUSTER_DIR: dir,
    CLUSTER_PORT: String(BASE_PORT),
    CLUSTER_NODE_PORT: String(BASE_PORT + 1),
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    REDIS_PREFIX: `${name}:`,
    WORKERS: String(workers),
    LOG_LEVEL: 'info',
  };
  const script = (args: string[]) => promisify(execFile)(join(ROOT, 'deploy/cluster.sh'), args, { env, cwd: ROOT, timeout: 180_000 });
  const nodePorts = Array.from({ length: nodes }, (_, i) => BASE_PORT + 1 + i);
  const proxy = `http://127.0.0.1:${BASE_PORT}`;
  const tally: Tally = { statuses: new Map(), withoutRetryAfter: 0 };
  try {
    await script(['start', String(nodes)]);
    const store = await openStore(databaseUrl, { migrate: false });
    // Keys are created by account id (createKey takes the id, not the email).
    const lifetime = await createAccount(store.db, { email: 'loadtest@example.com', plan: 'lifetime' });
    const { key } = await createKey(store.db, lifetime.id, 'loadtest');
    const free = await createAccount(store.db, { email: 'loadtest-free@example.com', credits: 100_000 });
    const { key: freeKey } = await createKey(store.db, free.id, 'loadtest');
    await store.close();

    const runs = [];
    for (const clients of CLIENTS) {
      await waitIdle(nodePorts);
      const figures = await load(proxy, key, image, clients, RUN_SECONDS, tally);
      process.stdout.write(`${nodes} node(s) × ${clients} clients: ${figures.ok} conversions, ${figures.rps.toFixed(1)}/s, p99 ${figures.p99} ms\n`);
      runs.push(figures);
    }

    // Saturation: more clients than the nodes admit (MAX_CONCURRENT_UPLOADS each), and a probe.
    await waitIdle(nodePorts);
    const saturating = load(proxy, key, image, SATURATION_CLIENTS, RUN_SECONDS + 2, tally);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const probes = await autocannon({ url: `${proxy}/healthz`, connections: 1, duration: RUN_SECONDS });
    const saturation = await saturating;
    const health = { p50: probes.latency.p50, p99: probes.latency.p99, max: probes.latency.max, probes: probes.requests.total, non2xx: probes.non2xx };
    process.stdout.write(`${nodes} node(s) saturated by ${SATURATION_CLIENTS} clients: /healthz p99 ${health.p99} ms\n`);

    // A free account under the same load: its burst and concurrency limits answer 429.
    await waitIdle(nodePorts);
    const limited = await load(proxy, freeKey, image, 8, Math.max(3, RUN_SECONDS / 2), tally);
    return { nodes, workers, runs, saturation, health, limited, tally };
  } finally {
    await script(['stop']).catch((error: unknown) => process.stderr.write(`cluster stop failed: ${String(error)}\n`));
    rmSync(dir, { recursive: true, force: true });
    const cleanup = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await cleanup.connect();
    await cleanup.query(`drop database if exists ${name} with (force)`);
    await cleanup.end();
    const { Redis } = await import('ioredis');
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${name}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
}

export async function clusterLoadtest(): Promise<void> {
  const image = multipart('clipart/noto_emoji_u1f98a_fox_512.png');
  const loadAtStart = loadavg()[0] ?? 0;
  const topologies: Topology[] = [];
  for (const nodes of [1, 3]) topologies.push(await measure(nodes, image));

  const unexpected = topologies.flatMap((t) => [...t.tally.statuses].filter(([status]) => ![200, 429, 503].includes(status)));
  const withoutRetryAfter = topologies.reduce((sum, t) => sum + t.tally.withoutRetryAfter, 0);
  const transportErrors = topologies.reduce((sum, t) => sum + [...t.runs, t.saturation, t.limited].reduce((s, r) => s + r.errors, 0), 0);
  const healthOk = topologies.every((t) => t.health.p99 < 50);
  const clean = unexpected.length === 0 && withoutRetryAfter === 0 && transportErrors === 0;

  const row = (t: Topology, r: Awaited<ReturnType<typeof load>>, label = String(r.clients)) =>
    `| ${t.nodes} × WORKERS=${t.workers} | ${label} | ${r.ok} | ${r.rps.toFixed(2)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} |`;
  const statuses = (t: Topology) =>
    [...t.tally.statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status} × ${count}`)
      .join(', ');
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  writeReportSection(
    'cluster',
    `
## Cluster load test (\`npm run loadtest -- --cluster\`)

Run on ${new Date().toISOString().slice(0, 10)}: ${availableParallelism()} × ${cpu}, ${(totalmem() / 1024 ** 2).toFixed(0)} MB RAM, Node ${process.version}
(load average ${loadAtStart.toFixed(1)} when it started). nginx (\`deploy/nginx-site.conf\`) in front of the compiled
server, started by \`deploy/cluster.sh start N\` on this one machine, all nodes on one PostgreSQL and one Redis,
logs at \`info\`; WORKERS per node = cores / nodes (at least 1). Every request goes through nginx. The image is
\`${image.name}\` (${(image.body.length / 1024).toFixed(0)} KB); a lifetime-plan account for the throughput
and saturation runs, a free account (burst 2/s, concurrency 1) for the last row of each topology.

| nodes | clients | conversions | conversions/s | p50 ms | p99 ms | non-2xx | errors |
|---|---|---|---|---|---|---|---|
${topologies.map((t) => [...t.runs.map((r) => row(t, r)), row(t, t.saturation, `${SATURATION_CLIENTS} (saturation)`), row(t, t.limited, '8 (free plan)')].join('\n')).join('\n')}

Runs last ${RUN_SECONDS} s; each starts once every node is idle again. At 8 clients three nodes gave
${(topologies[1]!.runs.at(-1)!.rps / topologies[0]!.runs.at(-1)!.rps).toFixed(2)} × the conversions per second of one. Both topologies share the same ${availableParallelism()} cores
(three nodes run three worker processes on them, plus three servers and nginx), so throughput stays bound by the
cores: what three nodes buy on one machine is that a node can die or drain while the others serve; more
throughput needs more machines. Other work on the machine (load average above) lowers and scatters these
figures; compare them with each other, not with the single-server section above (SQLite, no proxy).

/healthz through nginx while ${SATURATION_CLIENTS} clients saturate the nodes: ${topologies
      .map((t) => `${t.nodes} node${t.nodes > 1 ? 's' : ''} **p99 ${t.health.p99} ms** (p50 ${t.health.p50} ms, max ${t.health.max} ms, ${t.health.probes} probes, ${t.health.non2xx} non-2xx)`)
      .join('; ')} — target under 50 ms: ${healthOk ? 'met' : '**missed**'}.

Answers by status over all runs: ${topologies.map((t) => `${t.nodes} node${t.nodes > 1 ? 's' : ''}: ${statuses(t)}`).join('; ')}.
${clean ? 'No error other than 429 (plan limits) and 503 (admission control: `MAX_CONCURRENT_UPLOADS` per node), and every one of them carried `Retry-After`; no transport errors or timeouts.' : `**Unexpected answers**: ${unexpected.map(([s, c]) => `${s} × ${c}`).join(', ') || 'none'}; refusals without Retry-After: ${withoutRetryAfter}; transport errors: ${transportErrors}.`}
`,
  );
  process.stdout.write(`results written to ${REPORT_PATH}\n`);
  if (!clean || !healthOk) process.exitCode = 1;
}
