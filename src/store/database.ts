// Opens the store named by DATABASE_URL: SQLite (embedded default) or PostgreSQL, one Kysely API.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import type SQLiteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type Transaction } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from './migrations.ts';
import type { Schema } from './schema.ts';

export type Dialect = 'sqlite' | 'postgres';

/** A database handle or an open transaction: repositories accept either. */
export type Db = Kysely<Schema> | Transaction<Schema>;

export interface Store {
  db: Kysely<Schema>;
  dialect: Dialect;
  close(): Promise<void>;
}

// int8 (COUNT, SUM, bigint columns) as numbers: every value we keep fits in 2^53.
pg.types.setTypeParser(20, (value) => Number(value));

/**
 * better-sqlite3 for the running Node. 13 is built on Node-API 10 (Node ≥ 22.14) and crashes
 * on Node 20, which lacks it; 12 is built for one Node ABI and aborts on Node ≥ 24.19, where
 * its statements' finalizers trip Node's new ObjectWrap cleanup hook. So both are installed, 12
 * as the optional `better-sqlite3-node20`, and each runtime loads the one that works on it.
 * Loaded on first use, so a PostgreSQL deployment never loads either.
 */
export function sqliteDriver(): typeof SQLiteDatabase {
  const require = createRequire(import.meta.url);
  if (Number(process.versions.napi) >= 10) return require('better-sqlite3') as typeof SQLiteDatabase;
  try {
    return require('better-sqlite3-node20') as typeof SQLiteDatabase;
  } catch (error) {
    // An optional package: its install (a download, else a compile) may have failed.
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new Error(`SQLite on Node ${process.versions.node} needs better-sqlite3-node20, which cannot be loaded (${reason}): run npm ci again under this Node, or use Node 24`, { cause: error });
  }
}

export function sqlitePath(databaseUrl: string): string {
  return resolve(databaseUrl.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, ''));
}

export async function openStore(databaseUrl: string, options: { migrate?: boolean; poolSize?: number } = {}): Promise<Store> {
  let db: Kysely<Schema>;
  let dialect: Dialect;
  if (databaseUrl.startsWith('sqlite:')) {
    const path = sqlitePath(databaseUrl);
    mkdirSync(dirname(path), { recursive: true });
    const SQLite = sqliteDriver();
    const database = new SQLite(path);
    database.pragma('journal_mode = WAL');
    database.pragma('busy_timeout = 5000');
    database.pragma('foreign_keys = ON');
    database.pragma('synchronous = NORMAL');
    db = new Kysely<Schema>({ dialect: new SqliteDialect({ database }) });
    dialect = 'sqlite';
  } else {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: options.poolSize ?? 10, connectionTimeoutMillis: 5000 });
    // An idle client losing its server must not crash the process; the next query reports it.
    pool.on('error', () => {});
    db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
    dialect = 'postgres';
  }
  if (options.migrate !== false) {
    try {
      await migrateToLatest(db as Kysely<unknown>, dialect);
    } catch (error) {
      await db.destroy();
      throw error;
    }
  }
  return { db, dialect, close: () => db.destroy() };
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '08000',
  '08001',
  '08003',
  '08006',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_READONLY',
  'SQLITE_FULL',
]);

/** True when an error means the store cannot be reached or used right now (503, not 500). */
export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('SQLITE_IOERR'))) return true;
  return /Connection terminated|timeout exceeded when trying to connect|driver has already been destroyed|Client has encountered a connection error/i.test(
    error.message,
  );
}
