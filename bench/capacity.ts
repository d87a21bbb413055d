// `npm run bench:capacity`: what one conversion costs the parts every node shares, and how many
// conversions per second those parts carry on this machine.
//
// 1. The service runs in this process on a throwaway PostgreSQL database (created here, dropped
//    at the end) and on Redis under a key prefix of its own. Every query the pg clients send and
//    every command the ioredis clients send is recorded, so a POST /api/v1/vectorize (a free and
//    a pro account) and a GET /api/v1/result/{id} are counted statement by statement; PostgreSQL's
//    own counters (pg_stat_database, the WAL position, pg_stat_wal) and Redis's INFO commandstats
//    are read around each run as a cross-check.
// 2. The recorded statements become pgbench scripts (same SQL, parameters spread over 100,000
//    pre-created accounts), run with `pgbench -n -M extended -c 8 -j 2 -T 20`; the recorded Redis
//    commands become redis-benchmark runs. One pgbench transaction is one conversion.
// 3. The figures go to docs/benchmarks.md (section `capacity`) and docs/scaling.md (its generated
//    section), which projects the cluster size at which each shared part saturates.
//
// CAPACITY_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres) must be allowed to create
// databases; CAPACITY_REDIS_URL defaults to redis://127.0.0.1:6379. Traffic only to 127.0.0.1.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createAccount } from '../src/accounts/accounts.ts';
import { createKey, hashKey } from '../src/accounts/keys.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger, startService, type Service } from '../src/service.ts';
import { CORPUS_DIR } from './corpus.ts';
import { tableRow } from './figures.ts';
import { REPORT_PATH, writeReportSection } from './report.ts';

const ADMIN_URL = process.env.CAPACITY_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.CAPACITY_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SCALING_PATH = fileURLToPath(new URL('../docs/scaling.md', import.meta.url));
const IMAGE = 'clipart/noto_emoji_u1f98a_fox_512.png';
/** Measured requests per scenario, after WARM_UP requests that are not counted. */
const MEASURED = 100;
const WARM_UP = 5;
/** The free plan allows 5 conversions a day; a pro account is given 50 of its 100. */
const PER_FREE_ACCOUNT = 5;
const PER_PRO_ACCOUNT = 50;
/** What pgbench spreads its conversions over. */
const PGBENCH_FREE_ACCOUNTS = 100_000;
const PGBENCH_PRO_ACCOUNTS = 1_000;
const PGBENCH_RESULTS = 100_000;
const PGBENCH = { clients: 8, threads: 2, seconds: 20 };
const REDIS_BENCH = { requests: 200_000, clients: 50, keyspace: 1_000_000 };
/** The pg pool's size per node: DATABASE_POOL_SIZE's default (src/config.ts). */
const POOL_MAX = 10;

// ---------------------------------------------------------------------------------------------
// Recording what the service sends.

interface SqlCall {
  sql: string;
  values: unknown[];
  /** Which pg client (connection) sent it. */
  connection: number;
}

interface RedisCall {
  name: string;
  args: unknown[];
}

const recorded = { sql: [] as SqlCall[], redis: [] as RedisCall[], on: false, database: '' };
const connectionIds = new WeakMap<object, number>();
let connections = 0;

type AnyFunction = (this: unknown, ...args: unknown[]) => unknown;
const clientPrototype = pg.Client.prototype as unknown as { query: AnyFunction };
const sendQuery = clientPrototype.query;
clientPrototype.query = function recordQuery(this: unknown, ...args: unknown[]) {
  const client = this as { database?: string };
  if (recorded.on && client.database === recorded.database) {
    const [first, second] = args;
    if (!connectionIds.has(client)) connectionIds.set(client, ++connections);
    recorded.sql.push({
      sql: typeof first === 'string' ? first : (first as { text: string }).text,
      values: Array.isArray(second) ? second : [],
      connection: connectionIds.get(client) ?? 0,
    });
  }
  return sendQuery.apply(this, args);
};

const redisPrototype = Redis.prototype as unknown as { sendCommand: AnyFunction };
const sendCommand = redisPrototype.sendCommand;
redisPrototype.sendCommand = function recordCommand(this: unknown, ...args: unknown[]) {
  if (recorded.on) {
    const command = args[0] as { name: string; args: unknown[] };
    recorded.redis.push({ name: command.name.toLowerCase(), args: [...command.args] });
  }
  return sendCommand.apply(this, args);
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// PostgreSQL's and Redis's own counters.

type PgSnapshot = {
  lsn: string;
  databases: Record<string, { xact_commit: number; tup_inserted: number; tup_updated: number; tup_deleted: number }>;
  wal: { records: number; fpi: number };
};

async function pgSnapshot(admin: pg.Client): Promise<PgSnapshot> {
  // A backend publishes its statistics when idle, at most once a second, else 10 s later: wait for them.
  await sleep(11_000);
  const { rows } = await admin.query<PgSnapshot>(`
    SELECT pg_current_wal_lsn()::text AS lsn,
      (SELECT json_object_agg(datname, json_build_object('xact_commit', xact_commit, 'tup_inserted', tup_inserted,
          'tup_updated', tup_updated, 'tup_deleted', tup_deleted))
        FROM pg_stat_database WHERE datname IS NOT NULL) AS databases,
      (SELECT json_build_object('records', wal_records, 'fpi', wal_fpi) FROM pg_stat_wal) AS wal`);
  return rows[0] as PgSnapshot;
}

function lsnBytes(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** What the database's own records take of the WAL between two positions, read back with pg_waldump. */
interface WalShare {
  bytes: number;
  /** Of `bytes`, full-page images: a page's first change after a checkpoint logs the whole page. */
  fpiBytes: number;
  fpi: number;
  records: number;
  /** Commit records: each is a WAL flush the committing client waits for (synchronous_commit). */
  commits: number;
}

function pgWaldump(): string {
  if (process.env.PG_WALDUMP) return process.env.PG_WALDUMP;
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => `/usr/lib/postgresql/${v}/bin/pg_waldump`).find((path) => existsSync(path));
  return found ?? 'pg_waldump';
}

async function walShare(walDir: string, databaseOid: number, from: string, to: string): Promise<WalShare | undefined> {
  const share: WalShare = { bytes: 0, fpiBytes: 0, fpi: 0, records: 0, commits: 0 };
  if (from === to) return share;
  let out: string;
  try {
    // It may complain at the very end of the WAL written so far; the records before are complete.
    out = await run(pgWaldump(), ['-p', walDir, '-s', from, '-e', to], {}, true);
  } catch {
    return undefined;
  }
  const ours = new RegExp(`rel \\d+/${databaseOid}/`);
  const transactions = new Set<string>();
  for (const line of out.split('\n')) {
    const match = /^rmgr: (\S+)\s+len \(rec\/tot\):\s*(\d+)\/\s*(\d+), tx:\s*(\d+),.*desc: (\S+)/.exec(line);
    if (!match) continue;
    const [, manager, rec, tot, tx, what] = match as unknown as [string, string, string, string, string, string];
    const mine = ours.test(line) || (manager === 'Transaction' && transactions.has(tx));
    if (!mine) continue;
    if (tx !== '0') transactions.add(tx);
    share.bytes += Number(tot);
    share.fpiBytes += Number(tot) - Number(rec);
    share.fpi += (line.match(/\bFPW\b/g) ?? []).length;
    share.records += 1;
    if (manager === 'Transaction' && what === 'COMMIT') share.commits += 1;
  }
  return share;
}

async function commandStats(redis: Redis): Promise<Map<string, number>> {
  const text = await redis.info('commandstats');
  const calls = new Map<string, number>();
  for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(match[1] as string, Number(match[2]));
  return calls;
}

// ---------------------------------------------------------------------------------------------
// Measuring one scenario.

interface Caller {
  accountId: string;
  keyId: string;
  key: string;
}

interface RequestLog {
  caller: Caller;
  /** The conversion made, or the one read. */
  conversionId: string;
  sql: SqlCall[];
  redis: RedisCall[];
}

interface Scenario {
  name: string;
  requests: RequestLog[];
  pg: { before: PgSnapshot; after: PgSnapshot };
  wal: WalShare | undefined;
  redisServer: Map<string, number>;
}

const CONTROL = /^(begin|commit|rollback)$/i;

interface Observers {
  admin: pg.Client;
  redisAdmin: Redis;
  walDir: string;
  databaseOid: number;
}

async function measure(
  name: string,
  { admin, redisAdmin, walDir, databaseOid }: Observers,
  calls: { caller: Caller; run: () => Promise<string> }[],
): Promise<Scenario> {
  const before = await pgSnapshot(admin);
  const statsBefore = await commandStats(redisAdmin);
  const requests: RequestLog[] = [];
  for (const { caller, run } of calls) {
    const sqlFrom = recorded.sql.length;
    const redisFrom = recorded.redis.length;
    recorded.on = true;
    const conversionId = await run();
    // The key's last_used_at update is sent without being awaited: let it leave first.
    await sleep(20);
    recorded.on = false;
    requests.push({ caller, conversionId, sql: recorded.sql.slice(sqlFrom), redis: recorded.redis.slice(redisFrom) });
  }
  // Read the window's WAL at once: a checkpoint may recycle its segments soon after.
  const end = (await admin.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn;
  const wal = await walShare(walDir, databaseOid, before.lsn, end);
  const after = await pgSnapshot(admin);
  const statsAfter = await commandStats(redisAdmin);
  const redisServer = new Map<string, number>();
  for (const [command, calls] of statsAfter) {
    const delta = calls - (statsBefore.get(command) ?? 0);
    if (delta > 0 && command !== 'info') redisServer.set(command, delta);
  }
  return { name, requests, pg: { before, after }, wal, redisServer };
}

/** `SELECT api_keys`, `UPDATE reservations`: the verb and the first table a statement names. */
function statementLabel(sql: string): string {
  if (CONTROL.test(sql)) return sql.toUpperCase();
  const verb = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? '?';
  const table = /(?:from|into|update)\s+"(\w+)"/i.exec(sql)?.[1] ?? '?';
  const joins = [...sql.matchAll(/join\s+"(\w+)"/gi)].map((m) => m[1]);
  const aggregate = /count\(\*\)/i.test(sql) ? ' count(*)' : '';
  return `${verb}${aggregate} ${table}${joins.length > 0 ? ` ⋈ ${joins.join(' ⋈ ')}` : ''}`;
}

interface Costs {
  name: string;
  n: number;
  statements: number;
  roundTrips: number;
  transactions: number;
  /** Explicit BEGIN … COMMIT blocks. */
  blocks: number;
  byStatement: { label: string; perRequest: number }[];
  redisCommands: number;
  byCommand: { name: string; perRequest: number }[];
  redisServer: { name: string; perRequest: number }[];
  /** This database's WAL (pg_waldump), or the server's WAL position's advance when pg_waldump cannot read it. */
  walBytes: number;
  walFpiBytes: number | undefined;
  walFpi: number;
  walCommits: number | undefined;
  walFromWaldump: boolean;
  xactCommit: number;
  tuplesWritten: number;
  /** Transactions committed in other databases meanwhile (they write WAL too). */
  otherXacts: number;
  /** Requests whose statements were exactly those of the most common sequence. */
  sameSequence: number;
  representative: RequestLog;
}

function costsOf(scenario: Scenario, database: string): Costs {
  const n = scenario.requests.length;
  const allSql = scenario.requests.flatMap((r) => r.sql);
  const statements = allSql.filter((call) => !CONTROL.test(call.sql));
  // A statement outside BEGIN … COMMIT on its connection is a transaction of its own.
  let transactions = 0;
  let blocks = 0;
  const open = new Set<number>();
  for (const call of allSql) {
    if (/^begin$/i.test(call.sql)) {
      open.add(call.connection);
      blocks += 1;
      transactions += 1;
    } else if (/^(commit|rollback)$/i.test(call.sql)) open.delete(call.connection);
    else if (!open.has(call.connection)) transactions += 1;
  }
  const counts = new Map<string, number>();
  for (const call of allSql) counts.set(statementLabel(call.sql), (counts.get(statementLabel(call.sql)) ?? 0) + 1);
  const commands = new Map<string, number>();
  for (const call of scenario.requests.flatMap((r) => r.redis)) commands.set(call.name, (commands.get(call.name) ?? 0) + 1);
  const signatures = new Map<string, RequestLog[]>();
  for (const request of scenario.requests) {
    // Sorted: the key's last_used_at update is not awaited, so it may come before or after the next statement.
    const signature = request.sql.map((call) => call.sql).sort().join('\n');
    signatures.set(signature, [...(signatures.get(signature) ?? []), request]);
  }
  const common = [...signatures.values()].sort((a, b) => b.length - a.length)[0] as RequestLog[];
  const { before, after } = scenario.pg;
  const ours = (s: PgSnapshot) => s.databases[database] ?? { xact_commit: 0, tup_inserted: 0, tup_updated: 0, tup_deleted: 0 };
  const others = (s: PgSnapshot) =>
    Object.entries(s.databases)
      .filter(([name]) => name !== database)
      .reduce((sum, [, d]) => sum + Number(d.xact_commit), 0);
  const perRequest = (map: Map<string, number>) => [...map].map(([name, count]) => ({ name, perRequest: count / n }));
  return {
    name: scenario.name,
    n,
    statements: statements.length / n,
    roundTrips: allSql.length / n,
    transactions: transactions / n,
    blocks: blocks / n,
    byStatement: [...counts].map(([label, count]) => ({ label, perRequest: count / n })),
    redisCommands: scenario.requests.flatMap((r) => r.redis).length / n,
    byCommand: perRequest(commands),
    redisServer: perRequest(scenario.redisServer),
    walBytes: (scenario.wal?.bytes ?? Number(lsnBytes(after.lsn) - lsnBytes(before.lsn))) / n,
    walFpiBytes: scenario.wal ? scenario.wal.fpiBytes / n : undefined,
    walFpi: (scenario.wal?.fpi ?? Number(after.wal.fpi) - Number(before.wal.fpi)) / n,
    walCommits: scenario.wal ? scenario.wal.commits / n : undefined,
    walFromWaldump: scenario.wal !== undefined,
    xactCommit: (Number(ours(after).xact_commit) - Number(ours(before).xact_commit)) / n,
    tuplesWritten:
      (['tup_inserted', 'tup_updated', 'tup_deleted'] as const).reduce(
        (sum, column) => sum + Number(ours(after)[column]) - Number(ours(before)[column]),
        0,
      ) / n,
    // Minus this bench's own snapshot query on the admin connection.
    otherXacts: Math.max(0, others(after) - others(before) - 1),
    sameSequence: common.length,
    representative: common[common.length - 1] as RequestLog,
  };
}

// ---------------------------------------------------------------------------------------------
// pgbench: the recorded statements, parameters spread over pre-created accounts.

/** A SQL literal pgbench leaves alone: `:` would start a pgbench variable, so it is escaped. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  const text = String(value).replace(/\\/g, '\\\\').replace(/'/g, "''").replace(/:/g, '\\x3a');
  return `E'${text}'`;
}

interface PgbenchMix {
  name: string;
  /** pgbench meta-commands choosing this execution's account and conversion. */
  variables: string[];
  /** The recorded request, and the pgbench expressions its own values become. */
  request: RequestLog;
  account: string;
  conversion: string;
}

function pgbenchScript(mix: PgbenchMix): string {
  const { request } = mix;
  const replacements = new Map<unknown, string>([
    [request.caller.accountId, mix.account],
    [request.caller.keyId, mix.account.replace('pgbacc_', 'pgbkey_')],
    [hashKey(request.caller.key), mix.account.replace('pgbacc_', 'pgbhash_')],
    [request.conversionId, mix.conversion],
  ]);
  const lines = request.sql.map(({ sql, values }) => {
    const text = sql.replace(/\$(\d+)/g, (_, index: string) => {
      const value = values[Number(index) - 1];
      return replacements.get(value) ?? literal(value);
    });
    return `${text};`;
  });
  return [`-- ${mix.name}: the statements of one request as the service sent them`, ...mix.variables, ...lines, ''].join('\n');
}

async function seedPgbench(db: pg.Client, now: number): Promise<void> {
  const free = PGBENCH_FREE_ACCOUNTS;
  const all = PGBENCH_FREE_ACCOUNTS + PGBENCH_PRO_ACCOUNTS;
  await db.query(`
    INSERT INTO accounts (id, email, plan, status, role, credits, created_at, password_hash)
    SELECT 'pgbacc_' || n, 'pgb' || n || '@example.com', CASE WHEN n <= ${free} THEN 'free' ELSE 'pro' END,
      'active', 'user', 1000000000, ${now}, NULL
    FROM generate_series(1, ${all}) AS n`);
  await db.query(`
    INSERT INTO api_keys (id, account_id, prefix, key_hash, name, created_at, last_used_at, revoked_at)
    SELECT 'pgbkey_' || n, 'pgbacc_' || n, 'pgbpfx_' || n, 'pgbhash_' || n, 'pgbench', ${now}, NULL, NULL
    FROM generate_series(1, ${all}) AS n`);
  // Records for the result mix, each owned by a pro account: pgbacc_(free + 1 + r % pro).
  await db.query(`
    INSERT INTO conversions (id, account_id, original_name, file_size, width, height, node_count, processing_time_ms, params, resolved, created_at)
    SELECT 'pgbres_' || r, 'pgbacc_' || (${free + 1} + r % ${PGBENCH_PRO_ACCOUNTS}), c.original_name, c.file_size, c.width, c.height,
      c.node_count, c.processing_time_ms, c.params, c.resolved, ${now}
    FROM generate_series(1, ${PGBENCH_RESULTS}) AS r, (SELECT * FROM conversions LIMIT 1) AS c`);
  await db.query('VACUUM ANALYZE');
}

interface PgbenchFigures {
  tps: number;
  /** The server's WAL position's advance per transaction over the run (pgbench is nearly all of it). */
  walBytes: number;
  /** Load average (1 min) when the run ended: other work on the machine lowers the figures. */
  load: number;
  latencyMs: number;
  transactions: number;
  failed: number;
}

function run(command: string, args: string[], env: Record<string, string> = {}, anyExit = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 || (anyExit && out !== '') ? resolve(out) : reject(new Error(`${command} exited with ${code}:\n${err}${out}`))));
  });
}

async function runPgbench(admin: pg.Client, databaseUrl: string, scriptPath: string): Promise<PgbenchFigures> {
  const { clients, threads, seconds } = PGBENCH;
  const position = async () => lsnBytes((await admin.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn);
  const from = await position();
  const out = await run('pgbench', ['-n', '-M', 'extended', '-f', scriptPath, '-c', String(clients), '-j', String(threads), '-T', String(seconds), databaseUrl]);
  const walBytes = Number((await position()) - from);
  const number = (pattern: RegExp) => Number(pattern.exec(out)?.[1] ?? Number.NaN);
  const transactions = number(/number of transactions actually processed: (\d+)/);
  return {
    walBytes: walBytes / transactions,
    load: loadavg()[0] ?? 0,
    tps: number(/tps = ([\d.]+) \(without initial connection time\)/),
    latencyMs: number(/latency average = ([\d.]+) ms/),
    transactions,
    failed: number(/number of failed transactions: (\d+)/) || 0,
  };
}

// ---------------------------------------------------------------------------------------------
// redis-benchmark: the recorded commands, keys spread over random accounts.

interface RedisMixCommand {
  label: string;
  args: string[];
}

function benchmarkArgs(call: RedisCall, caller: Caller, servicePrefix: string, benchPrefix: string): string[] {
  return [
    call.name.toUpperCase(),
    ...call.args.map((arg) => {
      const text = String(arg);
      if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(text)) return 'admission:__rand_int__';
      if (text.startsWith(servicePrefix)) return text.replace(servicePrefix, benchPrefix).replace(caller.accountId, '__rand_int__');
      return text;
    }),
  ];
}

async function redisBenchmark(command: string[]): Promise<number> {
  const url = new URL(REDIS_URL);
  const out = await run('redis-benchmark', [
    '-h', url.hostname, '-p', url.port || '6379', '-n', String(REDIS_BENCH.requests), '-c', String(REDIS_BENCH.clients),
    '-P', '1', '-r', String(REDIS_BENCH.keyspace), '--csv', ...command,
  ]);
  // The test's name is the command line, the script's newlines included: find the figures after it.
  const rps = Number(/","([\d.]+)","[\d.]+","/.exec(out)?.[1] ?? Number.NaN);
  if (!Number.isFinite(rps)) throw new Error(`redis-benchmark: no figure in ${JSON.stringify(out)}`);
  return rps;
}

/** Conversions per second when each needs every command once: the server does them one after another. */
const serialRate = (rates: number[]) => 1 / rates.reduce((sum, rate) => sum + 1 / rate, 0);

async function deleteKeys(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) deleted += await redis.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}

// ---------------------------------------------------------------------------------------------
// The node's own rate, from the load test's section of docs/benchmarks.md.

function loadtestRates(): { image: string; rate: number }[] {
  const text = readFileSync(REPORT_PATH, 'utf8');
  const section = /<!-- loadtest:start -->([\s\S]*?)<!-- loadtest:end -->/.exec(text)?.[1] ?? '';
  const best = new Map<string, number>();
  for (const match of section.matchAll(/^\| (\S+) \((\d+ KB)\) \| \d+ \| \d+ \| ([\d.]+) \|/gm)) {
    const image = `${match[1]} (${match[2]})`;
    best.set(image, Math.max(best.get(image) ?? 0, Number(match[3])));
  }
  return [...best].map(([image, rate]) => ({ image, rate }));
}

// ---------------------------------------------------------------------------------------------

const round = (value: number, digits = 1) => (Number.isInteger(value) ? String(value) : value.toFixed(digits));
const thousands = (value: number) => Math.round(value).toLocaleString('en');

async function main(): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const database = `vectorize_capacity_${randomBytes(4).toString('hex')}`;
  const databaseUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${database}` }).toString();
  recorded.database = database;
  const root = `vectorize-capacity-${randomBytes(4).toString('hex')}:`;
  const servicePrefix = `${root}service:`;
  const redisAdmin = new Redis(REDIS_URL, { lazyConnect: true });
  await redisAdmin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const dir = mkdtempSync(join(tmpdir(), 'vectorize-capacity-'));
  let service: Service | undefined;
  try {
    const loadAtStart = loadavg()[0] ?? 0;
    const { rows: where } = await admin.query<{ oid: number; directory: string }>(
      `SELECT oid::int AS oid, current_setting('data_directory') AS directory FROM pg_database WHERE datname = $1`,
      [database],
    );
    const observers: Observers = { admin, redisAdmin, walDir: join(where[0]!.directory, 'pg_wal'), databaseOid: where[0]!.oid };
    const settings = Object.fromEntries(
      (
        await admin.query<{ name: string; setting: string }>(
          `SELECT name, setting FROM pg_settings WHERE name IN ('max_connections', 'superuser_reserved_connections', 'synchronous_commit', 'fsync', 'full_page_writes', 'shared_buffers', 'server_version')`,
        )
      ).rows.map((row) => [row.name, row.setting]),
    );
    const redisInfo = await redisAdmin.info('server');
    const redisVersion = /redis_version:(\S+)/.exec(redisInfo)?.[1] ?? '?';
    const persistence = await redisAdmin.info('persistence');
    const aof = /aof_enabled:(\d)/.exec(persistence)?.[1] === '1';
    const rdbSaves = ((await redisAdmin.config('GET', 'save')) as string[])[1] ?? '';

    // A clock the bench may move: a free account converts now and then, not five times a second.
    let offset = 0;
    const now = () => Date.now() + offset;
    service = await startService(
      loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: databaseUrl,
        REDIS_URL,
        REDIS_PREFIX: servicePrefix,
        LOG_LEVEL: 'warn',
        // Housekeeping runs per node per interval, not per conversion: kept out of the counts.
        HOUSEKEEPING_INTERVAL_MS: '86400000',
      }),
      { logger: createLogger('warn'), now },
    );
    const { db } = service.store;
    const url = service.url;
    const image = readFileSync(join(CORPUS_DIR, IMAGE));

    async function caller(plan: string, index: number): Promise<Caller> {
      const account = await createAccount(db, { email: `capacity-${plan}-${index}@example.com`, plan });
      const { key } = await createKey(db, account.id, 'capacity');
      const row = await db.selectFrom('api_keys').select('id').where('key_hash', '=', hashKey(key)).executeTakeFirstOrThrow();
      return { accountId: account.id, keyId: row.id, key };
    }
    async function convert(who: Caller): Promise<string> {
      const form = new FormData();
      form.append('image', new Blob([new Uint8Array(image)]), basename(IMAGE));
      const response = await fetch(`${url}/api/v1/vectorize`, { method: 'POST', headers: { authorization: `Bearer ${who.key}` }, body: form });
      const body = (await response.json()) as { id?: string; error?: string };
      if (response.status !== 200 || !body.id) throw new Error(`vectorize: ${response.status} ${body.error}`);
      return body.id;
    }
    async function readResult(who: Caller, id: string): Promise<string> {
      const response = await fetch(`${url}/api/v1/result/${id}`, { headers: { authorization: `Bearer ${who.key}` } });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`result: ${response.status}`);
      return id;
    }

    // Free: each account converts its 5 a day, a minute or more apart (its key's last_used_at
    // is written each time, and no burst window is shared).
    const freeCallers = await Promise.all(Array.from({ length: 1 + MEASURED / PER_FREE_ACCOUNT }, (_, i) => caller('free', i)));
    const freeCall = (who: Caller) => ({
      caller: who,
      run: () => {
        offset += 61_000;
        return convert(who);
      },
    });
    const freeCalls = freeCallers.flatMap((who) => Array.from({ length: PER_FREE_ACCOUNT }, () => freeCall(who)));
    for (const call of freeCalls.slice(0, WARM_UP)) await call.run();
    console.log(`free: ${MEASURED} conversions…`);
    const free = await measure('free', observers, freeCalls.slice(WARM_UP, WARM_UP + MEASURED));

    // Pro (paid, not metered): a busy account, requests back to back on the real clock.
    const proCallers = await Promise.all(Array.from({ length: 1 + MEASURED / PER_PRO_ACCOUNT }, (_, i) => caller('pro', i)));
    const proCalls = proCallers.flatMap((who) => Array.from({ length: PER_PRO_ACCOUNT }, () => ({ caller: who, run: () => convert(who) })));
    for (const call of proCalls.slice(0, WARM_UP)) await call.run();
    console.log(`pro: ${MEASURED} conversions…`);
    const pro = await measure('pro', observers, proCalls.slice(WARM_UP, WARM_UP + MEASURED));

    const readCalls = pro.requests.map((request) => ({ caller: request.caller, run: () => readResult(request.caller, request.conversionId) }));
    for (const call of readCalls.slice(0, WARM_UP)) await call.run();
    console.log(`result: ${MEASURED} reads…`);
    const result = await measure('result', observers, readCalls);

    const costs = [free, pro, result].map((scenario) => costsOf(scenario, database));
    for (const c of costs) {
      console.log(
        `${c.name}: ${round(c.statements)} statements, ${round(c.roundTrips)} round trips, ${round(c.transactions)} transactions ` +
          `(pg_stat_database ${round(c.xactCommit)}), ${round(c.redisCommands)} Redis commands, WAL ${thousands(c.walBytes)} B ` +
          `(${round(c.walFpi, 2)} full-page images, ${c.walCommits ?? '?'} commit records${c.walFromWaldump ? '' : ', server-wide: pg_waldump could not read the WAL'}), ${c.sameSequence}/${c.n} identical, ${c.otherXacts} transactions elsewhere meanwhile`,
      );
    }

    await service.close();
    service = undefined;

    // pgbench on the same database, seeded with accounts for the mixes.
    const seeder = new pg.Client({ connectionString: databaseUrl });
    await seeder.connect();
    try {
      await seedPgbench(seeder, Date.now());
    } finally {
      await seeder.end();
    }
    const free1 = PGBENCH_FREE_ACCOUNTS;
    const mixes: PgbenchMix[] = [
      {
        name: 'free conversion',
        variables: [`\\set a random(1, ${free1})`, '\\set c random(1, 1000000000000000)'],
        request: costs[0]!.representative,
        account: "('pgbacc_' || :a)",
        conversion: "('pgbcv_' || :c)",
      },
      {
        name: 'pro conversion',
        variables: [`\\set a random(${free1 + 1}, ${free1 + PGBENCH_PRO_ACCOUNTS})`, '\\set c random(1, 1000000000000000)'],
        request: costs[1]!.representative,
        account: "('pgbacc_' || :a)",
        conversion: "('pgbcv_' || :c)",
      },
      {
        name: 'result read',
        variables: [`\\set r random(1, ${PGBENCH_RESULTS})`, `\\set a ${free1 + 1} + :r % ${PGBENCH_PRO_ACCOUNTS}`],
        request: costs[2]!.representative,
        account: "('pgbacc_' || :a)",
        conversion: "('pgbres_' || :r)",
      },
    ];
    const pgbench: { mix: PgbenchMix; script: string; figures: PgbenchFigures }[] = [];
    for (const mix of mixes) {
      const script = pgbenchScript(mix);
      const path = join(dir, `${mix.name.replace(/\W+/g, '-')}.sql`);
      writeFileSync(path, script);
      console.log(`pgbench ${mix.name}…`);
      const figures = await runPgbench(admin, databaseUrl, path);
      console.log(`pgbench ${mix.name}: ${figures.tps.toFixed(0)} per second, ${figures.latencyMs} ms average, ${figures.failed} failed`);
      if (figures.failed > 0) throw new Error(`pgbench ${mix.name}: ${figures.failed} transactions failed`);
      pgbench.push({ mix, script, figures });
    }

    // redis-benchmark: each command of the mixes under its own prefix, then the keys removed.
    const benchPrefix = `${root}bench:`;
    const redisMixes: { name: string; commands: (RedisMixCommand & { rps: number })[]; rate: number }[] = [];
    const evalSha = async (commands: RedisMixCommand[]) => {
      const script = commands.find((c) => c.args[0] === 'EVAL');
      if (!script) return undefined;
      const sha = (await redisAdmin.script('LOAD', script.args[1] as string)) as string;
      return { label: 'EVALSHA (admission)', args: ['EVALSHA', sha, ...script.args.slice(2)] };
    };
    try {
      for (const [name, cost] of [
        ['free conversion', costs[0]!],
        ['pro conversion', costs[1]!],
      ] as const) {
        const { representative } = cost;
        const commands: RedisMixCommand[] = representative.redis.map((call) => ({
          label: call.name === 'eval' ? 'EVAL (admission)' : call.name.toUpperCase(),
          args: benchmarkArgs(call, representative.caller, servicePrefix, benchPrefix),
        }));
        const measured: (RedisMixCommand & { rps: number })[] = [];
        for (const command of commands) {
          console.log(`redis-benchmark ${name}: ${command.label}…`);
          measured.push({ ...command, rps: await redisBenchmark(command.args) });
        }
        redisMixes.push({ name, commands: measured, rate: serialRate(measured.map((c) => c.rps)) });
        if (name === 'free conversion') {
          const sha = await evalSha(commands);
          if (sha) {
            console.log('redis-benchmark: EVALSHA…');
            const withSha = [{ ...sha, rps: await redisBenchmark(sha.args) }, ...measured.filter((c) => c.args[0] !== 'EVAL')];
            redisMixes.push({ name: 'free conversion, admission by EVALSHA', commands: withSha, rate: serialRate(withSha.map((c) => c.rps)) });
          }
        }
      }
    } finally {
      const deleted = await deleteKeys(redisAdmin, root);
      console.log(`removed ${deleted} Redis keys under ${root}`);
    }
    const redisLoad = loadavg()[0] ?? 0;
    for (const mix of redisMixes) console.log(`redis ${mix.name}: ${mix.rate.toFixed(0)} conversions/s`);

    writeFigures({
      costs,
      pgbench,
      redisMixes,
      settings,
      redisVersion,
      redisDisk: aof || rdbSaves.trim() !== '' ? `RDB saves "${rdbSaves}", AOF ${aof ? 'on' : 'off'}` : 'no RDB saves, no AOF',
      load: { start: loadAtStart, redis: redisLoad },
      loadtest: loadtestRates(),
    });
    console.log(`wrote ${REPORT_PATH} and ${SCALING_PATH}`);
  } finally {
    if (service) await service.close();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
    redisAdmin.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// The report.

interface Figures {
  costs: Costs[];
  pgbench: { mix: PgbenchMix; script: string; figures: PgbenchFigures }[];
  redisMixes: { name: string; commands: (RedisMixCommand & { rps: number })[]; rate: number }[];
  settings: Record<string, string>;
  redisVersion: string;
  redisDisk: string;
  /** Load average (1 min) at the start and after redis-benchmark. */
  load: { start: number; redis: number };
  loadtest: { image: string; rate: number }[];
}

function writeFigures(f: Figures): void {
  const [free, pro, result] = f.costs as [Costs, Costs, Costs];
  const [pgFree, pgPro, pgResult] = f.pgbench.map((p) => p.figures) as [PgbenchFigures, PgbenchFigures, PgbenchFigures];
  const redisFree = f.redisMixes.find((m) => m.name === 'free conversion') as Figures['redisMixes'][number];
  const redisPro = f.redisMixes.find((m) => m.name === 'pro conversion') as Figures['redisMixes'][number];
  const cores = availableParallelism();
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const date = new Date().toISOString().slice(0, 10);
  const maxConnections = Number(f.settings.max_connections);
  const reserved = Number(f.settings.superuser_reserved_connections);
  const nodesByConnections = Math.floor((maxConnections - reserved) / POOL_MAX);
  const small = f.loadtest[0] ?? { image: 'the small image', rate: Number.NaN };
  const large = f.loadtest[1];
  const version = f.settings.server_version?.split(' ')[0] ?? '?';
  const loads = `load average ${f.load.start.toFixed(1)} at the start, ${f.pgbench.map((p) => p.figures.load.toFixed(1)).join(', ')} after the pgbench runs, ${f.load.redis.toFixed(1)} after redis-benchmark`;

  const costRow = (c: Costs) =>
    tableRow([
      c.name === 'result' ? 'GET /api/v1/result/{id}' : `POST /api/v1/vectorize, ${c.name} account`,
      round(c.statements),
      round(c.roundTrips),
      `${round(c.transactions)} (${round(c.blocks)} BEGIN…COMMIT)`,
      c.walCommits === undefined ? '?' : round(c.walCommits, 2),
      round(c.tuplesWritten),
      thousands(c.walBytes),
      c.walFpiBytes === undefined ? '?' : `${thousands(c.walFpiBytes)} (${round(c.walFpi, 2)} pages)`,
      round(c.redisCommands),
    ]);
  const statementList = (c: Costs) => c.byStatement.map((s) => `${s.label} ×${round(s.perRequest, 2)}`).join(', ');
  const commandList = (c: Costs) => (c.byCommand.length > 0 ? c.byCommand.map((s) => `${s.name.toUpperCase()} ×${round(s.perRequest, 2)}`).join(', ') : 'none');
  const serverList = (c: Costs) =>
    c.redisServer.length > 0 ? c.redisServer.map((s) => `${s.name} ×${round(s.perRequest, 2)}`).join(', ') : 'none';
  const others = f.costs.reduce((sum, c) => sum + c.otherXacts, 0);
  const fromWaldump = f.costs.every((c) => c.walFromWaldump);

  const costTable = [
    '| request | SQL statements | round trips | transactions | WAL flushes (commit records) | rows written | WAL bytes | of which full-page images | Redis commands |',
    '|---|---|---|---|---|---|---|---|---|',
    costRow(free),
    costRow(pro),
    costRow(result),
  ];
  const capacityRow = (name: string, p: PgbenchFigures, redis: string) =>
    tableRow([name, `**${thousands(p.tps)}/s**`, `${p.latencyMs} ms`, thousands(p.walBytes), redis]);
  const capacityTable = [
    '| mix | PostgreSQL (pgbench) | pgbench latency (8 clients) | WAL bytes per conversion under pgbench | Redis (redis-benchmark) |',
    '|---|---|---|---|---|',
    capacityRow('free conversion', pgFree, `**${thousands(redisFree.rate)}/s**`),
    capacityRow('pro conversion', pgPro, `**${thousands(redisPro.rate)}/s**`),
    capacityRow('result read', pgResult, 'no Redis command'),
  ];
  const redisTable = [
    '| mix | command | requests/s |',
    '|---|---|---|',
    ...f.redisMixes.flatMap((mix) => mix.commands.map((c) => tableRow([mix.name, c.label, thousands(c.rps)]))),
    ...f.redisMixes.map((mix) => tableRow([mix.name, '**conversions/s**', `**${thousands(mix.rate)}**`])),
  ];

  writeReportSection(
    'capacity',
    [
      '## Capacity of the shared parts (`npm run bench:capacity`)',
      '',
      `Run on ${date}: ${cores} × ${cpu}, Node ${process.version}, PostgreSQL ${version} and Redis ${f.redisVersion}`,
      `on the same machine (127.0.0.1), shared with the service and the load generators (${loads}:`,
      'other work on the machine lowers these figures). The service on a throwaway PostgreSQL database and',
      `Redis under a key prefix of its own; ${MEASURED} requests per scenario after ${WARM_UP} not counted, one at a time, uploading`,
      `${IMAGE.split('/').pop()}. A free account converts a minute or more apart (its key's \`last_used_at\` is`,
      'written every time), a pro account back to back (written once a minute). The projection from these',
      'figures is in [`docs/scaling.md`](scaling.md).',
      '',
      '### Per request',
      '',
      ...costTable,
      '',
      `- Free: ${statementList(free)}.`,
      `- Pro: ${statementList(pro)}.`,
      `- Result: ${statementList(result)}.`,
      `- Redis, as sent by the service: free ${commandList(free)}; pro ${commandList(pro)}; result ${commandList(result)}.`,
      `  Server-side (INFO commandstats, all clients of the Redis): free ${serverList(free)}; pro ${serverList(pro)}; result ${serverList(result)}.`,
      `- Every measured request of a scenario sent the same statements: free ${free.sameSequence}/${free.n}, pro ${pro.sameSequence}/${pro.n}, result ${result.sameSequence}/${result.n}.`,
      `- PostgreSQL's \`xact_commit\` for the database per request: free ${round(free.xactCommit)}, pro ${round(pro.xactCommit)}, result ${round(result.xactCommit)}.`,
      '',
      'Statements and round trips are counted as the pg driver sends them (BEGIN and COMMIT are round',
      'trips, not statements); a statement outside BEGIN … COMMIT is a transaction of its own. Read-only',
      'transactions and an UPDATE that matches no row write no commit record, so they wait for no WAL flush.',
      fromWaldump
        ? "WAL bytes are this database's records between the window's two WAL positions, read back with pg_waldump (the other databases' are left out)."
        : `WAL bytes are the advance of the server's WAL position (pg_waldump could not read the WAL): other databases committed ${others} transactions meanwhile.`,
      'Full-page images depend on when the last checkpoint was: a page changed for the first time since',
      'then is logged whole. Rows written are `tup_inserted + tup_updated + tup_deleted` of `pg_stat_database`.',
      `Redis keeps nothing on disk here (${f.redisDisk}).`,
      '',
      '### What PostgreSQL and Redis carry',
      '',
      `pgbench (\`-n -M extended -c ${PGBENCH.clients} -j ${PGBENCH.threads} -T ${PGBENCH.seconds}\`) runs the recorded statements of one request`,
      `as one transaction of its script, over ${thousands(PGBENCH_FREE_ACCOUNTS)} free and ${thousands(PGBENCH_PRO_ACCOUNTS)} pro accounts and ${thousands(PGBENCH_RESULTS)} records;`,
      `\`synchronous_commit\` = ${f.settings.synchronous_commit}, \`fsync\` = ${f.settings.fsync}, \`full_page_writes\` = ${f.settings.full_page_writes}.`,
      `redis-benchmark (\`-n ${REDIS_BENCH.requests} -c ${REDIS_BENCH.clients} -P 1 -r ${REDIS_BENCH.keyspace}\`) runs each recorded command with its keys spread`,
      'over random accounts; a conversion needs each once, so its rate is 1 / Σ(1 / rate of each command).',
      '',
      ...capacityTable,
      '',
      ...redisTable,
      '',
      '<details><summary>The pgbench scripts</summary>',
      '',
      ...f.pgbench.flatMap((p) => ['```sql', p.script.trim(), '```', '']),
      '</details>',
    ].join('\n'),
  );

  const projection = (label: string, capacity: number) => {
    const row = [label, `${thousands(capacity)}/s`, round(capacity / small.rate), thousands(capacity / (small.rate / cores))];
    if (large) row.push(thousands(capacity / large.rate));
    return tableRow(row);
  };
  writeReportSection(
    'capacity',
    [
      `Measured on ${date} by \`npm run bench:capacity\`: ${cores} × ${cpu}, PostgreSQL ${version} and Redis ${f.redisVersion}`,
      `on the same machine as the service and the load generators (${loads}).`,
      'The full figures, and the pgbench scripts, are in',
      '[`docs/benchmarks.md`](benchmarks.md#capacity-of-the-shared-parts-npm-run-benchcapacity).',
      '',
      '### What one request costs the shared parts',
      '',
      ...costTable,
      '',
      `- Free conversion: ${statementList(free)}.`,
      `- Pro conversion: ${statementList(pro)}.`,
      `- Result read: ${statementList(result)}.`,
      `- Redis: ${commandList(free)} per conversion, free and pro alike; none for a result read.`,
      '',
      '### What PostgreSQL and Redis carry on this machine',
      '',
      ...capacityTable,
      '',
      `Redis with the admission script sent by \`EVALSHA\` instead of \`EVAL\`: ${thousands(f.redisMixes.find((m) => m.name.includes('EVALSHA'))?.rate ?? Number.NaN)} free conversions/s.`,
      '',
      '### The node',
      '',
      `The load test measured ${small.rate.toFixed(1)} conversions/s of ${small.image} on ${cores} cores, about`,
      `**${(small.rate / cores).toFixed(1)} per core**${large ? `, and ${large.rate.toFixed(2)}/s of ${large.image}` : ''} (\`docs/benchmarks.md\`, load test).`,
      '',
      '### Where each shared part saturates',
      '',
      `Nodes of ${cores} cores converting the small image flat out (${small.rate.toFixed(1)}/s each), or conversion cores at`,
      `${(small.rate / cores).toFixed(1)}/s each${large ? '; the last column for the large photo' : ''}:`,
      '',
      `| limit | conversions/s | ${cores}-core nodes | conversion cores |${large ? ' nodes converting the large photo |' : ''}`,
      `|---|---|---|---|${large ? '---|' : ''}`,
      projection('PostgreSQL, free conversions', pgFree.tps),
      projection('PostgreSQL, pro conversions', pgPro.tps),
      projection('Redis, free conversions', redisFree.rate),
      projection('Redis, pro conversions', redisPro.rate),
      '',
      `Connections: each node's pool opens up to ${POOL_MAX} (\`DATABASE_POOL_SIZE\`, its default); PostgreSQL here allows \`max_connections\` = ${maxConnections},`,
      `${reserved} of them reserved for superusers, so **${nodesByConnections} nodes** fill it (${nodesByConnections} × ${POOL_MAX} = ${nodesByConnections * POOL_MAX}).`,
    ].join('\n'),
    SCALING_PATH,
  );
}

await main();
