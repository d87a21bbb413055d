// What a converter conversion needs to be written again in any format (issue 20): the upload,
// its effective parameters and the SVG it gave, kept DOWNLOAD_RETENTION_MS. The files are not
// kept: each is written again from the same image and parameters, which give the same result
// (the engine is deterministic), so five formats cost one row, not five files.
import type { Kysely } from 'kysely';
import type { TraceParams } from '../engine/params.ts';
import type { Db } from '../store/database.ts';
import type { Schema } from '../store/schema.ts';

/** 48 hours: the promise is "at least 24 hours", and a result converted late one day is still there the next evening. */
export const DOWNLOAD_RETENTION_MS = 48 * 60 * 60 * 1000;

export interface ConversionSource {
  conversionId: string;
  accountId: string;
  originalName: string;
  image: Buffer;
  params: TraceParams;
  svg: string;
  createdAt: number;
}

export async function insertSource(db: Db, source: Omit<ConversionSource, 'createdAt'>, now: number): Promise<void> {
  await db
    .insertInto('conversion_sources')
    .values({
      conversion_id: source.conversionId,
      account_id: source.accountId,
      original_name: source.originalName,
      image: source.image,
      params: JSON.stringify(source.params),
      svg: source.svg,
      created_at: now,
    })
    .execute();
}

/**
 * The kept source of conversion `id` of `accountId`: `expired` when the account made that
 * conversion but its source is past `notBefore` or purged; undefined when the account has no
 * such conversion (another account's id reads the same as an unknown one).
 */
export async function findSource(
  db: Kysely<Schema>,
  id: string,
  accountId: string,
  notBefore: number,
): Promise<ConversionSource | 'expired' | undefined> {
  const row = await db
    .selectFrom('conversion_sources')
    .selectAll()
    .where('conversion_id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (row) {
    if (Number(row.created_at) < notBefore) return 'expired';
    return {
      conversionId: row.conversion_id,
      accountId: row.account_id,
      originalName: row.original_name,
      image: Buffer.from(row.image),
      params: JSON.parse(row.params) as TraceParams,
      svg: row.svg,
      createdAt: Number(row.created_at),
    };
  }
  // Purged already: the conversion's record (kept longer) tells an expired result from one
  // that was never kept (made through the API) or is not this account's.
  const record = await db
    .selectFrom('conversions')
    .select('created_at')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return record && Number(record.created_at) < notBefore ? 'expired' : undefined;
}

/** Which of `ids` (of `accountId`) can still be downloaded, with when each stops being. */
export async function downloadableUntil(
  db: Kysely<Schema>,
  accountId: string,
  ids: readonly string[],
  notBefore: number,
  retentionMs: number,
): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('conversion_sources')
    .select(['conversion_id', 'created_at'])
    .where('account_id', '=', accountId)
    .where('conversion_id', 'in', ids)
    .where('created_at', '>=', notBefore)
    .execute();
  return new Map(rows.map((row) => [row.conversion_id, Number(row.created_at) + retentionMs]));
}

export async function purgeExpiredSources(db: Kysely<Schema>, notBefore: number): Promise<number> {
  const result = await db.deleteFrom('conversion_sources').where('created_at', '<', notBefore).executeTakeFirst();
  return Number(result.numDeletedRows);
}
