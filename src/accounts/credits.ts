// The credit ledger. A conversion on a metered plan reserves one credit before the upload is
// read (debit), then settles it on success or gives it back on failure (refund). The balance
// and the ledger change in one transaction, so the ledger's sum always equals the balance.
// Payments add `pack` rows, refunds and disputes `reversal` rows (and a debt when the balance
// cannot cover them, settled by the next grants as `debt` rows); see docs/limits.md.
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

export type GrantKind = 'grant' | 'pack';

export async function addCredits(
  db: Kysely<Schema>,
  accountId: string,
  amount: number,
  kind: GrantKind,
  reason: string,
  now = Date.now(),
): Promise<number> {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new DomainError('invalid_input', 'amount must be a positive integer');
  if (kind === 'pack' && !(CREDIT_PACKS as readonly number[]).includes(amount)) {
    throw new DomainError('invalid_input', `a credit pack holds ${CREDIT_PACKS.join(', ')} credits, not ${amount}`);
  }
  return db.transaction().execute(async (trx) => (await creditAccount(trx, accountId, amount, kind, reason, now)).balance);
}

/**
 * Adds `amount` credits inside the caller's transaction. A debt left by a refund or dispute is
 * settled first: the grant is in the ledger whole, and the part that settles the debt as a
 * `debt` row beside it, so the ledger's sum stays the balance.
 */
export async function creditAccount(
  trx: Db,
  accountId: string,
  amount: number,
  kind: GrantKind,
  reason: string,
  now: number,
  stripeRef: string | null = null,
): Promise<{ balance: number; debtSettled: number; debtLeft: number }> {
  let debtSettled = 0;
  let debtLeft = 0;
  // Optimistic: the debt row changes only if no one changed it since it was read (no FOR UPDATE on SQLite).
  for (;;) {
    const debt = await trx.selectFrom('credit_debts').select('amount').where('account_id', '=', accountId).executeTakeFirst();
    const owed = debt ? Number(debt.amount) : 0;
    if (owed === 0) break;
    const settle = Math.min(owed, amount);
    const changed = await trx
      .updateTable('credit_debts')
      .set({ amount: owed - settle, updated_at: now })
      .where('account_id', '=', accountId)
      .where('amount', '=', owed)
      .executeTakeFirst();
    if (Number(changed.numUpdatedRows) === 1) {
      debtSettled = settle;
      debtLeft = owed - settle;
      break;
    }
  }
  const row = await trx
    .updateTable('accounts')
    .set((eb) => ({ credits: eb('credits', '+', amount - debtSettled) }))
    .where('id', '=', accountId)
    .returning('credits')
    .executeTakeFirst();
  if (!row) throw new DomainError('not_found', 'no such account');
  await trx
    .insertInto('ledger')
    .values({ account_id: accountId, delta: amount, kind, reason, conversion_id: null, created_at: now, stripe_ref: stripeRef })
    .execute();
  if (debtSettled > 0) {
    await trx
      .insertInto('ledger')
      .values({
        account_id: accountId,
        delta: -debtSettled,
        kind: 'debt',
        reason: `settles ${debtSettled} credit${debtSettled === 1 ? '' : 's'} of debt left by a refund or dispute${debtLeft > 0 ? ` (${debtLeft} still owed)` : ''}`,
        conversion_id: null,
        created_at: now,
        stripe_ref: stripeRef,
      })
      .execute();
  }
  return { balance: Number(row.credits), debtSettled, debtLeft };
}

/**
 * Takes `amount` credits back (a refunded or disputed pack) inside the caller's transaction. The
 * balance never goes below zero: what it cannot cover is recorded as debt, which later grants
 * settle first. The ledger row holds what was actually taken from the balance.
 */
export async function takeBackCredits(
  trx: Db,
  accountId: string,
  amount: number,
  reason: string,
  now: number,
  stripeRef: string | null = null,
): Promise<{ taken: number; debtAdded: number; balance: number }> {
  for (;;) {
    const account = await trx.selectFrom('accounts').select('credits').where('id', '=', accountId).executeTakeFirst();
    if (!account) throw new DomainError('not_found', 'no such account');
    const balance = Number(account.credits);
    const taken = Math.min(balance, amount);
    // Conversions may reserve credits meanwhile: the update holds only against the balance read.
    const changed = await trx
      .updateTable('accounts')
      .set({ credits: balance - taken })
      .where('id', '=', accountId)
      .where('credits', '=', balance)
      .executeTakeFirst();
    if (Number(changed.numUpdatedRows) !== 1) continue;
    const debtAdded = amount - taken;
    if (debtAdded > 0) {
      await trx
        .insertInto('credit_debts')
        .values({ account_id: accountId, amount: debtAdded, updated_at: now })
        .onConflict((oc) => oc.column('account_id').doUpdateSet((eb) => ({ amount: eb('credit_debts.amount', '+', debtAdded), updated_at: now })))
        .execute();
    }
    await trx
      .insertInto('ledger')
      .values({
        account_id: accountId,
        delta: -taken,
        kind: 'reversal',
        reason: debtAdded > 0 ? `${reason}: ${amount} credits taken back, ${taken} from the balance and ${debtAdded} recorded as debt` : `${reason}: ${amount} credits taken back`,
        conversion_id: null,
        created_at: now,
        stripe_ref: stripeRef,
      })
      .execute();
    return { taken, debtAdded, balance: balance - taken };
  }
}

/** Credits the account owes from refunds and disputes (0 when none). */
export async function creditDebt(db: Db, accountId: string): Promise<number> {
  const row = await db.selectFrom('credit_debts').select('amount').where('account_id', '=', accountId).executeTakeFirst();
  return row ? Number(row.amount) : 0;
}

export interface LedgerEntry {
  delta: number;
  kind: string;
  reason: string;
  conversionId: string | null;
  createdAt: number;
  /** Stripe's ids (event, payment, charge, invoice, subscription) behind a payment entry. */
  stripeRef: string | null;
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
    stripeRef: row.stripe_ref,
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
