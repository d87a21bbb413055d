// Purchases: each payment as Stripe reported it, and how much of it the ledger has applied.
// Every webhook event only records facts here (paid, amount refunded, disputed, the receipt);
// `reconcilePurchase` then moves the ledger to match them. So the order in which the events
// arrive does not matter: a refund seen before the payment it refunds is applied as soon as
// the payment is, and nothing is ever applied twice (the applied amounts are kept on the row).
import type { Db } from '../store/database.ts';
import type { Schema } from '../store/schema.ts';
import { creditAccount, takeBackCredits } from '../accounts/credits.ts';
import { formatMoney } from './prices.ts';

/** The facts one event brings about one payment; absent members are left as they are. */
export interface PurchaseFacts {
  accountId?: string;
  product?: string;
  credits?: number;
  plan?: string | null;
  amount?: number | null;
  currency?: string | null;
  paid?: boolean;
  /** Cumulative, as Stripe reports it on the charge: the larger of two reports wins. */
  amountRefunded?: number;
  disputed?: boolean;
  checkoutSessionId?: string | null;
  chargeId?: string | null;
  invoiceId?: string | null;
  subscriptionId?: string | null;
  customerId?: string | null;
  receiptUrl?: string | null;
}

/** Inserts the purchase or adds the facts to it. Facts only grow: paid stays paid, refunds only rise. */
export async function recordPurchaseFacts(trx: Db, id: string, facts: PurchaseFacts, now: number): Promise<void> {
  const existing = await trx.selectFrom('purchases').selectAll().where('id', '=', id).executeTakeFirst();
  if (!existing) {
    await trx
      .insertInto('purchases')
      .values({
        id,
        account_id: facts.accountId ?? null,
        product: facts.product ?? null,
        credits: facts.credits ?? 0,
        plan: facts.plan ?? null,
        amount: facts.amount ?? null,
        currency: facts.currency ?? null,
        paid: facts.paid ? 1 : 0,
        amount_refunded: facts.amountRefunded ?? 0,
        disputed: facts.disputed ? 1 : 0,
        credits_granted: 0,
        credits_reversed: 0,
        plan_state: 'none',
        checkout_session_id: facts.checkoutSessionId ?? null,
        charge_id: facts.chargeId ?? null,
        invoice_id: facts.invoiceId ?? null,
        subscription_id: facts.subscriptionId ?? null,
        customer_id: facts.customerId ?? null,
        receipt_url: facts.receiptUrl ?? null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return;
  }
  const values: Partial<Schema['purchases']> = { updated_at: now };
  // What a payment is (its account, product, price) is set once, by the first event that knows it.
  if (facts.accountId && existing.account_id === null) values.account_id = facts.accountId;
  if (facts.product && existing.product === null) {
    values.product = facts.product;
    values.credits = facts.credits ?? 0;
    values.plan = facts.plan ?? null;
  }
  if (facts.amount != null && existing.amount === null) values.amount = facts.amount;
  if (facts.currency && existing.currency === null) values.currency = facts.currency;
  if (facts.paid && Number(existing.paid) === 0) values.paid = 1;
  if (facts.amountRefunded !== undefined && facts.amountRefunded > Number(existing.amount_refunded)) values.amount_refunded = facts.amountRefunded;
  if (facts.disputed && Number(existing.disputed) === 0) values.disputed = 1;
  for (const [fact, column] of [
    ['checkoutSessionId', 'checkout_session_id'],
    ['chargeId', 'charge_id'],
    ['invoiceId', 'invoice_id'],
    ['subscriptionId', 'subscription_id'],
    ['customerId', 'customer_id'],
    ['receiptUrl', 'receipt_url'],
  ] as const) {
    const value = facts[fact];
    if (value && existing[column] !== value) values[column] = value;
  }
  await trx.updateTable('purchases').set(values).where('id', '=', id).execute();
}

/** Stripe's ids of a purchase, for the ledger's `stripe_ref`: the event first, then the payment's objects. */
function stripeRef(eventId: string, row: Schema['purchases']): string {
  return [eventId, row.checkout_session_id, row.id, row.charge_id, row.subscription_id].filter((id, i, all) => id && all.indexOf(id) === i).join(' ');
}

/** The pack's credits to take back for what was refunded: in proportion, rounded up; all of them for a dispute. */
export function creditsToReverse(credits: number, amount: number | null, amountRefunded: number, disputed: boolean): number {
  if (disputed) return credits;
  if (!amount || amountRefunded <= 0) return 0;
  return Math.min(credits, Math.ceil((credits * amountRefunded) / amount));
}

export interface ReconcileOutcome {
  accountId: string | null;
  /** What the ledger was told, in words (empty when nothing changed). */
  applied: string[];
}

/**
 * Applies to the ledger (and the account's plan, for a one-time plan purchase) whatever the
 * purchase's facts call for and the ledger does not have yet. Runs in the event's transaction.
 */
export async function reconcilePurchase(trx: Db, id: string, eventId: string, now: number): Promise<ReconcileOutcome> {
  const row = await trx.selectFrom('purchases').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row || row.account_id === null || Number(row.paid) === 0 || row.product === null) {
    return { accountId: row?.account_id ?? null, applied: [] };
  }
  const accountId = row.account_id;
  const applied: string[] = [];
  const ref = stripeRef(eventId, row);
  const price = row.amount !== null && row.currency ? ` (${formatMoney(Number(row.amount), row.currency)})` : '';
  const credits = Number(row.credits);
  const refunded = Number(row.amount_refunded);
  const disputed = Number(row.disputed) === 1;
  const changes: Partial<Schema['purchases']> = {};

  if (credits > 0) {
    let granted = Number(row.credits_granted);
    if (granted === 0) {
      await creditAccount(trx, accountId, credits, 'pack', `credit pack of ${credits} bought with Stripe${price}`, now, ref);
      granted = credits;
      changes.credits_granted = credits;
      applied.push(`granted ${credits} credits`);
    }
    const target = creditsToReverse(granted, row.amount === null ? null : Number(row.amount), refunded, disputed);
    const reversed = Number(row.credits_reversed);
    if (target > reversed) {
      const why = disputed ? 'payment disputed' : refunded >= Number(row.amount ?? 0) ? 'payment refunded' : 'payment partly refunded';
      const { taken, debtAdded } = await takeBackCredits(trx, accountId, target - reversed, `${why}: credit pack of ${credits}`, now, ref);
      changes.credits_reversed = target;
      applied.push(`took back ${target - reversed} credits (${taken} from the balance${debtAdded > 0 ? `, ${debtAdded} as debt` : ''})`);
    }
  } else if (row.plan !== null && row.subscription_id === null) {
    // A plan bought once (lifetime): on at payment, off again at a full refund or a dispute.
    const revoke = disputed || (row.amount !== null && refunded >= Number(row.amount));
    let state = row.plan_state;
    if (state === 'none') {
      await setPlan(trx, accountId, row.plan, `plan ${row.plan} bought with Stripe${price}`, now, ref);
      state = 'granted';
      applied.push(`plan ${row.plan} started`);
    }
    if (revoke && state === 'granted') {
      await endPlan(trx, accountId, row.plan, `plan ${row.plan} taken back: payment ${disputed ? 'disputed' : 'refunded'}`, now, ref);
      state = 'revoked';
      applied.push(`plan ${row.plan} taken back`);
    }
    if (state !== row.plan_state) changes.plan_state = state;
  } else if (row.plan !== null && row.plan_state === 'none') {
    // A subscription's invoice: the payment is recorded; the plan follows the subscription.
    await recordLedgerNote(trx, accountId, 'payment', `plan ${row.plan}: invoice paid with Stripe${price}`, now, ref);
    changes.plan_state = 'recorded';
    applied.push('payment recorded');
  }
  if (Object.keys(changes).length > 0) await trx.updateTable('purchases').set({ ...changes, updated_at: now }).where('id', '=', id).execute();
  return { accountId, applied };
}

/** A ledger row that changes no balance: a plan payment, a plan started or ended. */
export async function recordLedgerNote(trx: Db, accountId: string, kind: 'payment' | 'plan', reason: string, now: number, ref: string): Promise<void> {
  await trx
    .insertInto('ledger')
    .values({ account_id: accountId, delta: 0, kind, reason, conversion_id: null, created_at: now, stripe_ref: ref })
    .execute();
}

/** Puts the account on `plan` (the next request reads it). */
export async function setPlan(trx: Db, accountId: string, plan: string, reason: string, now: number, ref: string): Promise<void> {
  await trx.updateTable('accounts').set({ plan }).where('id', '=', accountId).execute();
  await recordLedgerNote(trx, accountId, 'plan', reason, now, ref);
}

/** Back to free, unless an admin or another purchase has moved the account to another plan meanwhile. */
export async function endPlan(trx: Db, accountId: string, plan: string, reason: string, now: number, ref: string): Promise<boolean> {
  const result = await trx.updateTable('accounts').set({ plan: 'free' }).where('id', '=', accountId).where('plan', '=', plan).executeTakeFirst();
  const ended = Number(result.numUpdatedRows) === 1;
  await recordLedgerNote(trx, accountId, 'plan', ended ? reason : `${reason} (the account is on another plan now: unchanged)`, now, ref);
  return ended;
}

export interface PurchaseView {
  id: string;
  product: string | null;
  credits: number;
  plan: string | null;
  amount: number | null;
  currency: string | null;
  paid: boolean;
  amountRefunded: number;
  disputed: boolean;
  creditsReversed: number;
  receiptUrl: string | null;
  checkoutSessionId: string | null;
  chargeId: string | null;
  invoiceId: string | null;
  subscriptionId: string | null;
  createdAt: number;
}

function purchaseView(row: Schema['purchases']): PurchaseView {
  return {
    id: row.id,
    product: row.product,
    credits: Number(row.credits),
    plan: row.plan,
    amount: row.amount === null ? null : Number(row.amount),
    currency: row.currency,
    paid: Number(row.paid) === 1,
    amountRefunded: Number(row.amount_refunded),
    disputed: Number(row.disputed) === 1,
    creditsReversed: Number(row.credits_reversed),
    receiptUrl: row.receipt_url,
    checkoutSessionId: row.checkout_session_id,
    chargeId: row.charge_id,
    invoiceId: row.invoice_id,
    subscriptionId: row.subscription_id,
    createdAt: Number(row.created_at),
  };
}

/** The account's paid purchases, newest first. */
export async function listPurchases(db: Db, accountId: string, limit = 50): Promise<PurchaseView[]> {
  const rows = await db
    .selectFrom('purchases')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('paid', '=', 1)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(purchaseView);
}

/** The purchase a Checkout Session of this account paid for, once the webhook has recorded it. */
export async function findPurchaseBySession(db: Db, accountId: string, sessionId: string): Promise<PurchaseView | undefined> {
  const row = await db
    .selectFrom('purchases')
    .selectAll()
    .where('checkout_session_id', '=', sessionId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row ? purchaseView(row) : undefined;
}

/** `paid`, `refunded`, `partly refunded`, `disputed`. */
export function purchaseState(purchase: PurchaseView): string {
  if (purchase.disputed) return 'disputed';
  if (purchase.amountRefunded > 0) return purchase.amount !== null && purchase.amountRefunded >= purchase.amount ? 'refunded' : 'partly refunded';
  return 'paid';
}
