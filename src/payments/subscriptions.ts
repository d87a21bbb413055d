// Subscriptions to a paid plan, as the newest Stripe event described them. The account is on
// the plan while its subscription is live (active, trialing, past due while Stripe retries);
// once it has ended (canceled, unpaid, expired) the account goes back to free at the end of
// the period already paid for. Events older than the newest one applied change nothing, and a
// canceled subscription stays canceled (Stripe never revives one), so delivery order does not matter.
import type { Db } from '../store/database.ts';
import type { Schema } from '../store/schema.ts';
import { endPlan, setPlan } from './purchases.ts';

const LIVE = new Set(['active', 'trialing', 'past_due']);
const ENDED = new Set(['canceled', 'unpaid', 'incomplete_expired']);

export interface SubscriptionFacts {
  accountId: string;
  plan: string;
  /** Stripe's status; undefined when the event does not say (a Checkout completion, an invoice). */
  status?: string;
  /** The status to assume when the subscription is first heard of from such an event. */
  initialStatus?: string;
  cancelAtPeriodEnd?: boolean;
  /** Epoch ms. */
  currentPeriodEnd?: number | null;
  customerId?: string | null;
  /** The event's `created` (ms): the subscription's state is taken only from newer events. */
  eventAt: number;
}

export type SubscriptionUpdate = 'applied' | 'stale';

/**
 * Records what an event says of a subscription. Events that describe its state (the
 * subscription events) apply only when newer than the last one applied; a completion or a paid
 * invoice only says that it exists and is paid for, so it never overwrites a described state.
 */
export async function recordSubscriptionFacts(trx: Db, id: string, facts: SubscriptionFacts, now: number): Promise<SubscriptionUpdate> {
  const existing = await trx.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
  if (!existing) {
    await trx
      .insertInto('subscriptions')
      .values({
        id,
        account_id: facts.accountId,
        plan: facts.plan,
        status: facts.status ?? facts.initialStatus ?? 'active',
        cancel_at_period_end: facts.cancelAtPeriodEnd ? 1 : 0,
        current_period_end: facts.currentPeriodEnd ?? null,
        customer_id: facts.customerId ?? null,
        // A state nobody described yet (a completion): any subscription event may replace it.
        last_event_at: facts.status === undefined ? 0 : facts.eventAt,
        plan_state: 'none',
        ends_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return 'applied';
  }
  const values: Partial<Schema['subscriptions']> = { updated_at: now };
  if (facts.customerId && !existing.customer_id) values.customer_id = facts.customerId;
  if (facts.currentPeriodEnd && facts.currentPeriodEnd > Number(existing.current_period_end ?? 0)) values.current_period_end = facts.currentPeriodEnd;
  let outcome: SubscriptionUpdate = 'applied';
  if (facts.status !== undefined) {
    const stale = facts.eventAt < Number(existing.last_event_at) || (existing.status === 'canceled' && facts.status !== 'canceled');
    if (stale) outcome = 'stale';
    else {
      values.status = facts.status;
      values.cancel_at_period_end = facts.cancelAtPeriodEnd ? 1 : 0;
      values.last_event_at = facts.eventAt;
      // The described period end is the truth, even when shorter (an immediate cancellation).
      if (facts.currentPeriodEnd) values.current_period_end = facts.currentPeriodEnd;
    }
  }
  await trx.updateTable('subscriptions').set(values).where('id', '=', id).execute();
  return outcome;
}

/** Starts or ends the account's plan as the subscription's recorded state calls for. */
export async function reconcileSubscription(trx: Db, id: string, eventId: string, now: number): Promise<string[]> {
  const row = await trx.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return [];
  const ref = `${eventId} ${row.id}`;
  const applied: string[] = [];
  const values: Partial<Schema['subscriptions']> = {};
  if (LIVE.has(row.status) && row.plan_state === 'none') {
    await setPlan(trx, row.account_id, row.plan, `plan ${row.plan} started: subscription paid with Stripe`, now, ref);
    values.plan_state = 'granted';
    applied.push(`plan ${row.plan} started`);
  } else if (ENDED.has(row.status) && row.plan_state !== 'ended') {
    // Paid up to the period's end: the plan stays until then.
    const endsAt = Math.max(now, Number(row.current_period_end ?? 0));
    if (row.ends_at === null || Number(row.ends_at) !== endsAt) values.ends_at = endsAt;
    if (row.plan_state === 'none') values.plan_state = 'ended';
    else if (endsAt <= now) {
      await endPlan(trx, row.account_id, row.plan, `plan ${row.plan} ended: subscription ${row.status}`, now, ref);
      values.plan_state = 'ended';
      applied.push(`plan ${row.plan} ended`);
    } else applied.push(`plan ${row.plan} ends at ${new Date(endsAt).toISOString()}`);
  }
  if (Object.keys(values).length > 0) await trx.updateTable('subscriptions').set({ ...values, updated_at: now }).where('id', '=', id).execute();
  return applied;
}

/** Subscriptions that ended and whose paid period is over, still holding their plan (housekeeping). */
export async function lapsedSubscriptions(db: Db, now: number): Promise<string[]> {
  const rows = await db
    .selectFrom('subscriptions')
    .select('id')
    .where('plan_state', '=', 'granted')
    .where('ends_at', 'is not', null)
    .where('ends_at', '<=', now)
    .execute();
  return rows.map((row) => row.id);
}

export interface SubscriptionView {
  id: string;
  plan: string;
  status: string;
  cancelAtPeriodEnd: boolean;
  currentPeriodEnd: number | null;
  endsAt: number | null;
  live: boolean;
}

/** The account's subscriptions that hold or will hold its plan, newest first. */
export async function listSubscriptions(db: Db, accountId: string): Promise<SubscriptionView[]> {
  const rows = await db.selectFrom('subscriptions').selectAll().where('account_id', '=', accountId).orderBy('created_at', 'desc').execute();
  return rows.map((row) => ({
    id: row.id,
    plan: row.plan,
    status: row.status,
    cancelAtPeriodEnd: Number(row.cancel_at_period_end) === 1,
    currentPeriodEnd: row.current_period_end === null ? null : Number(row.current_period_end),
    endsAt: row.ends_at === null ? null : Number(row.ends_at),
    live: LIVE.has(row.status),
  }));
}
