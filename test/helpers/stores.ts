// The store dialects a test runs against: SQLite always; PostgreSQL when the server on this
// machine answers (CI sets REQUIRE_POSTGRES=1 so that a missing server fails instead of skipping).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface TestDatabase {
  dialect: 'sqlite' | 'postgres';
  url: string;
  drop(): Promise<void>;
}

export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let postgresAvailable: Promise<string | undefined> | undefined;

/** `undefined` when PostgreSQL answers, else why not. */
export function postgresProblem(): Promise<string | undefined> {
  postgresAvailable ??= (async () => {
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 10_000 });
    try {
      await client.connect();
      await client.query('select 1');
      return undefined;
    } catch (error) {
      return `PostgreSQL not reachable at ${POSTGRES_ADMIN_URL}: ${(error as Error).message}`;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return postgresAvailable;
}

export function createSqliteDatabase(): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'vectorize-test-'));
  return {
    dialect: 'sqlite',
    url: `sqlite:${join(dir, 'test.db')}`,
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function createPostgresDatabase(): Promise<TestDatabase> {
  const name = `vectorize_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    dialect: 'postgres',
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

export interface DialectCase {
  dialect: 'sqlite' | 'postgres';
  /** Set when the dialect cannot run here; the suite is skipped with this reason. */
  skip: string | false;
  create(): Promise<TestDatabase>;
}

/** Both dialects; PostgreSQL is skipped (with a reason) only outside CI when it is not running. */
export async function dialects(): Promise<DialectCase[]> {
  const problem = await postgresProblem();
  if (problem && process.env.REQUIRE_POSTGRES === '1') throw new Error(`${problem} (REQUIRE_POSTGRES=1)`);
  if (problem) process.stderr.write(`# skipping PostgreSQL tests: ${problem}\n`);
  return [
    { dialect: 'sqlite', skip: false, create: async () => createSqliteDatabase() },
    { dialect: 'postgres', skip: problem ?? false, create: createPostgresDatabase },
  ];
}

export const REDIS_TEST_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** `undefined` when Redis answers, else why not. */
export async function redisProblem(): Promise<string | undefined> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(REDIS_TEST_URL, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 2000 });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (error) {
    return `Redis not reachable at ${REDIS_TEST_URL}: ${(error as Error).message}`;
  } finally {
    redis.disconnect();
  }
}

export interface LimitsBackend {
  name: 'memory' | 'redis';
  skip: string | false;
  /**
   * A fresh database this backend can run on: SQLite for in-process limits; PostgreSQL for
   * Redis, since the service refuses REDIS_URL (several nodes) over an SQLite file.
   */
  createDatabase(): Promise<TestDatabase>;
  /** Environment for the service; a fresh key prefix per call. */
  env(): Record<string, string>;
  /** Removes what the backend left behind under the prefixes it handed out. */
  cleanup(): Promise<void>;
}

/**
 * In-process limits always; Redis-backed when Redis and PostgreSQL answer (REQUIRE_REDIS=1 and
 * REQUIRE_POSTGRES=1 make them mandatory).
 */
export async function limitsBackends(): Promise<LimitsBackend[]> {
  const problem = await redisProblem();
  if (problem && process.env.REQUIRE_REDIS === '1') throw new Error(`${problem} (REQUIRE_REDIS=1)`);
  if (problem) process.stderr.write(`# skipping Redis tests: ${problem}\n`);
  const postgres = await postgresProblem();
  if (postgres && process.env.REQUIRE_POSTGRES === '1') throw new Error(`${postgres} (REQUIRE_POSTGRES=1)`);
  if (!problem && postgres) process.stderr.write(`# skipping Redis tests (they need PostgreSQL): ${postgres}\n`);
  const prefixes: string[] = [];
  return [
    { name: 'memory', skip: false, createDatabase: async () => createSqliteDatabase(), env: () => ({}), cleanup: async () => {} },
    {
      name: 'redis',
      skip: problem ?? postgres ?? false,
      createDatabase: createPostgresDatabase,
      env() {
        const prefix = `vectorize-test-${process.pid}-${randomBytes(4).toString('hex')}:`;
        prefixes.push(prefix);
        return { REDIS_URL: REDIS_TEST_URL, REDIS_PREFIX: prefix };
      },
      async cleanup() {
        const { Redis } = await import('ioredis');
        const redis = new Redis(REDIS_TEST_URL);
        for (const prefix of prefixes) {
          const keys = await redis.keys(`${prefix}*`);
          if (keys.length > 0) await redis.del(...keys);
        }
        redis.disconnect();
      },
    },
  ];
}
