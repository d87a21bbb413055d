// The credit ledger. A conversion on a metered plan reserves one credit before the upload is
// read (debit), then settles it on success or gives it back on failure (refund). The balance
// and the ledger change in one transaction, so the ledger's sum always equals the balance.
import type { Kysely } from 'kysely';
import type { Db } from '../store/database.ts';
import type { Schema } from '../store/schema.ts';
import { DomainError } from '../errors.ts';

export const CREDIT_PACKS = [50, 200, 500] as const;

export interface Reservation {
  id: string;
  accountId: string;
  amount: number;
  /** Balance right after the debit. */
  balance: number;
}

/** Takes one credit if the balance allows it; `undefined` when it does not. */
export async function reserveCredit(
  db: Kysely<Schema>,
  accountId: string,
  conversionId: string,
  leaseMs: number,
  now = Date.now(),
): Promise<Reservation | undefined> {
  return db.transaction().execute(async (trx) => {
    const debited = await trx
      .updateTable('accounts')
      .set((eb) => ({ credits: eb('credits', '-', 1) }))
      .where('id', '=', accountId)
      .where('credits', '>=', 1)
      .returning('credits')
      .executeTakeFirst();
    if (!debited) return undefined;
    await trx
      .insertInto('ledger')
      .values({ account_id: accountId, delta: -1, kind: 'debit', reason: 'conversion', conversion_id: conversionId, created_at: now })
      .execute();
    await trx
      .insertInto('reservations')
      .values({ id: conversionId, account_id: accountId, amount: 1, state: 'held', created_at: now, lease_expires_at: now + leaseMs })
      .execute();
    return { id: conversionId, accountId, amount: 1, balance: Number(debited.credits) };
  });
}

/**
 * Pushes a held reservation's lease forward while its conversion is still running, so that only
 * the reservations of a process that died run out. False when it is no longer held.
 */
export async function renewReservation(db: Kysely<Schema>, reservationId: string, leaseMs: number, now = Date.now()): Promise<boolean> {
  const result = await db
    .updateTable('reservations')
    .set({ lease_expires_at: now + leaseMs })
    .where('id', '=', reservationId)
    .where('state', '=', 'held')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Marks a held reservation spent. Runs inside the transaction that records the conversion. */
export async function settleReservation(trx: Db, reservationId: string): Promise<boolean> {
  const result = await trx
    .updateTable('reservations')
    .set({ state: 'settled' })
    .where('id', '=', reservationId)
    .where('state', '=', 'held')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Gives a held reservation back, once: the state change from `held` is the guard, so a refund
 * racing a settle or another refund does nothing.
 */
export async function refundReservation(
  db: Kysely<Schema>,
  reservationId: string,
  reason: string,
  now = Date.now(),
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const claimed = await trx
      .updateTable('reservations')
      .set({ state: 'refunded' })
      .where('id', '=', reservationId)
      .where('state', '=', 'held')
      .returning(['account_id', 'amount'])
      .executeTakeFirst();
    if (!claimed) return false;
    await trx
      .updateTable('accounts')
      .set((eb) => ({ credits: eb('credits', '+', claimed.amount) }))
      .where('id', '=', claimed.account_id)
      .execute();
    await trx
      .insertInto('ledger')
      .values({
        account_id: claimed.account_id,
        delta: Number(claimed.amount),
        kind: 'refund',
        reason,
        conversion_id: reservationId,
        created_at: now,
      })
      .execute();
    return true;
  });
}

/** Refunds every held reservation whose lease has run out (its process died). */
export async function refundExpiredReservations(db: Kysely<Schema>, now = Date.now()): Promise<number> {
  const expired = await db
    .selectFrom('reservations')
    .select('id')
    .where('state', '=', 'held')
    .where('lease_expires_at', '<', now)
    .execute();
  let refunded = 0;
  for (const { id } of expired) {
    if (await refundReservation(db, id, 'lease expired', now)) refunded += 1;
  }
  return refunded;
}

export async function addCredits(
  db: Kysely<Schema>,
  accountId: string,
  amount: number,
  kind: 'grant' | 'pack',
  reason: string,
  now = Date.now(),
): Promise<number> {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new DomainError('invalid_input', 'amount must be a positive integer');
  if (kind === 'pack' && !(CREDIT_PACKS as readonly number[]).includes(amount)) {
    throw new DomainError('invalid_input', `a credit pack holds ${CREDIT_PACKS.join(', ')} credits, not ${amount}`);
  }
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('accounts')
      .set((eb) => ({ credits: eb('credits', '+', amount) }))
      .where('id', '=', accountId)
      .returning('credits')
      .executeTakeFirst();
    if (!row) throw new DomainError('not_found', 'no such account');
    await trx
      .insertInto('ledger')
      .values({ account_id: accountId, delta: amount, kind, reason, conversion_id: null, created_at: now })
      .execute();
    return Number(row.credits);
  });
}

export interface LedgerEntry {
  delta: number;
  kind: string;
  reason: string;
  conversionId: string | null;
  createdAt: number;
}

/** The latest ledger rows of an account, newest first. */
export async function listLedger(db: Kysely<Schema>, accountId: string, limit = 50): Promise<LedgerEntry[]> {
  const rows = await db
    .selectFrom('ledger')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    delta: Number(row.delta),
    kind: row.kind,
    reason: row.reason,
    conversionId: row.conversion_id,
    createdAt: Number(row.created_at),
  }));
}

export async function ledgerSum(db: Kysely<Schema>, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('ledger')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('delta'), eb.lit(0)).as('total'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.total);
}
