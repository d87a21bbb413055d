// Conversion records: metadata of each successful conversion, kept RETENTION_DAYS.
import { sql, type Kysely } from 'kysely';
import type { TraceParams } from '../engine/params.ts';
import type { TraceResult } from '../engine/types.ts';
import type { CutReport } from '../engine/check/cut-report.ts';
import type { Schema } from '../store/schema.ts';
import type { Db } from '../store/database.ts';

/** One conversion's record, as kept (the API's result lookup shows it: src/http/api/responses.ts). */
export interface ConversionRecord {
  id: string;
  originalName: string;
  fileSize: number;
  createdAt: number;
  width: number;
  height: number;
  nodeCount: number;
  processingTimeMs: number;
  /** The engine's measure (0–1) of how closely the SVG, rendered, matches the image; null for records older than the measure. */
  fidelity: number | null;
  params: TraceParams;
  resolved: TraceResult['chosen'];
  /** Made with a test key (free, watermarked). */
  test: boolean;
  /** Present when the conversion had a cut report (`unit` not px, or a preset). */
  report?: CutReport;
}

export async function insertConversion(
  db: Db,
  input: { id: string; accountId: string; originalName: string; fileSize: number; params: TraceParams; result: TraceResult; test?: boolean },
  now: number,
): Promise<void> {
  await db
    .insertInto('conversions')
    .values({
      id: input.id,
      account_id: input.accountId,
      original_name: input.originalName,
      file_size: input.fileSize,
      width: input.result.width,
      height: input.result.height,
      node_count: input.result.nodeCount,
      processing_time_ms: input.result.processingTimeMs,
      fidelity: input.result.fidelity,
      params: JSON.stringify(input.params),
      resolved: JSON.stringify(input.result.chosen),
      created_at: now,
      test: input.test ? 1 : 0,
      report: input.result.report ? JSON.stringify(input.result.report) : null,
    })
    .execute();
}

/** The record of `id` if it belongs to `accountId` and has not expired. */
export async function findConversion(
  db: Kysely<Schema>,
  id: string,
  accountId: string,
  notBefore: number,
): Promise<ConversionRecord | undefined> {
  const row = await db
    .selectFrom('conversions')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('created_at', '>=', notBefore)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    originalName: row.original_name,
    fileSize: Number(row.file_size),
    createdAt: Number(row.created_at),
    width: Number(row.width),
    height: Number(row.height),
    nodeCount: Number(row.node_count),
    processingTimeMs: Number(row.processing_time_ms),
    // PostgreSQL's real carries float4 noise: the engine's three decimals are given back.
    fidelity: row.fidelity === null ? null : Math.round(Number(row.fidelity) * 1000) / 1000,
    params: JSON.parse(row.params) as TraceParams,
    resolved: JSON.parse(row.resolved) as TraceResult['chosen'],
    test: Number(row.test) === 1,
    ...(row.report ? { report: JSON.parse(row.report) as CutReport } : {}),
  };
}

export async function purgeExpiredConversions(db: Kysely<Schema>, notBefore: number): Promise<number> {
  const result = await db.deleteFrom('conversions').where('created_at', '<', notBefore).executeTakeFirst();
  // Settled and refunded reservations past retention are history too.
  await db
    .deleteFrom('reservations')
    .where('state', '!=', 'held')
    .where('created_at', '<', notBefore)
    .execute();
  return Number(result.numDeletedRows);
}

export function retentionStart(now: number, retentionDays: number): number {
  return now - retentionDays * 24 * 60 * 60 * 1000;
}

/**
 * Successful conversions of an account since `since`: what the daily quota counts. Test-key
 * conversions count toward no plan quota, only toward the test keys' own cap (`test`).
 */
export async function countConversionsSince(db: Kysely<Schema>, accountId: string, since: number, test = false): Promise<number> {
  const row = await db
    .selectFrom('conversions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('created_at', '>=', since)
    .where('test', '=', test ? 1 : 0)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const DAY_MS = 86_400_000;

/** Successful conversions per UTC day over the `days` days ending today, oldest first (zeros included). */
export async function conversionsPerDay(
  db: Kysely<Schema>,
  accountId: string,
  now: number,
  days: number,
): Promise<{ day: number; count: number }[]> {
  const today = Math.floor(now / DAY_MS);
  const first = today - days + 1;
  const rows = await db
    .selectFrom('conversions')
    // A literal, not a parameter: PostgreSQL must see the same expression in SELECT and GROUP BY.
    .select((eb) => [sql<number>`created_at / ${sql.lit(DAY_MS)}`.as('day'), eb.fn.countAll<number>().as('n')])
    .where('account_id', '=', accountId)
    .where('created_at', '>=', first * DAY_MS)
    .groupBy(sql`created_at / ${sql.lit(DAY_MS)}`)
    .execute();
  const counts = new Map(rows.map((row) => [Math.floor(Number(row.day)), Number(row.n)]));
  return Array.from({ length: days }, (_, i) => ({ day: (first + i) * DAY_MS, count: counts.get(first + i) ?? 0 }));
}

export interface ConversionSummary {
  id: string;
  originalName: string;
  fileSize: number;
  nodeCount: number;
  /** The engine's self-check score, 0 to 1; null for conversions made before it existed. */
  fidelity: number | null;
  createdAt: number;
}

/** The account's latest conversions, newest first. */
export async function latestConversions(db: Kysely<Schema>, accountId: string, limit = 10): Promise<ConversionSummary[]> {
  const rows = await db
    .selectFrom('conversions')
    .select(['id', 'original_name', 'file_size', 'node_count', 'fidelity', 'created_at'])
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    originalName: row.original_name,
    fileSize: Number(row.file_size),
    nodeCount: Number(row.node_count),
    fidelity: row.fidelity === null ? null : Number(row.fidelity),
    createdAt: Number(row.created_at),
  }));
}
