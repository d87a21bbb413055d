// Applying a verified Stripe webhook event, exactly once: its id is inserted into
// `stripe_events` in the same transaction as everything the event changes. A redelivery finds
// the id and changes nothing; two copies at the same moment race for the insert, and the
// loser's insert waits for the winner's commit (PostgreSQL's unique index; SQLite runs one
// transaction at a time) and then finds the id. If applying fails, nothing is recorded and
// the 500 makes Stripe deliver the event again.
//
// The handlers read only the event's own object (the signature vouches for it) and call no
// Stripe API, so a webhook never waits on Stripe. Out-of-order delivery is handled by what they
// record: facts that only grow for payments (purchases.ts) and the newest state for
// subscriptions (subscriptions.ts).
import type Stripe from 'stripe';
import type { Db, Store } from '../store/database.ts';
import { findPrice, type Price } from './prices.ts';
import { reconcilePurchase, recordPurchaseFacts, type PurchaseFacts } from './purchases.ts';
import { reconcileSubscription, recordSubscriptionFacts } from './subscriptions.ts';

/** The events the endpoint should be sent (README, docs/operations.md). */
export const HANDLED_EVENTS = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'invoice.paid',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'charge.succeeded',
  'charge.refunded',
  'charge.dispute.created',
] as const;

export interface EventOutcome {
  /** `applied`, `ignored` (recorded, nothing to do) or `duplicate` (seen before: nothing done). */
  result: 'applied' | 'ignored' | 'duplicate';
  detail: string;
  accountId: string | null;
}

type Fields = Record<string, unknown>;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const fields = (value: unknown): Fields => (value && typeof value === 'object' ? (value as Fields) : {});
/** An expandable field: the id itself, or the object holding it. */
const idOf = (value: unknown): string | undefined => text(value) ?? text(fields(value).id);
const list = (value: unknown): Fields[] => {
  const data = fields(value).data;
  return Array.isArray(data) ? data.map(fields) : [];
};

const ignored = (detail: string, accountId: string | null = null): EventOutcome => ({ result: 'ignored', detail, accountId });

function applied(accountId: string | null, changes: string[], nothing: string): EventOutcome {
  return changes.length > 0 ? { result: 'applied', detail: changes.join('; '), accountId } : { result: 'ignored', detail: nothing, accountId };
}

export async function applyStripeEvent(store: Store, event: Stripe.Event, now: number): Promise<EventOutcome> {
  return store.db.transaction().execute(async (trx) => {
    const claimed = await trx
      .insertInto('stripe_events')
      .values({ id: event.id, type: event.type, account_id: null, outcome: 'applying', event_created_at: eventTime(event), received_at: now })
      .onConflict((oc) => oc.column('id').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!claimed) return { result: 'duplicate', detail: 'already applied', accountId: null } satisfies EventOutcome;
    const outcome = await dispatch(trx, event, now);
    await trx
      .updateTable('stripe_events')
      .set({ outcome: `${outcome.result}: ${outcome.detail}`.slice(0, 500), account_id: outcome.accountId })
      .where('id', '=', event.id)
      .execute();
    return outcome;
  });
}

function eventTime(event: Stripe.Event): number {
  return (count(event.created) ?? 0) * 1000;
}

async function dispatch(trx: Db, event: Stripe.Event, now: number): Promise<EventOutcome> {
  const object = fields(event.data?.object);
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      return checkoutCompleted(trx, event, object, now);
    case 'invoice.paid':
      return invoicePaid(trx, event, object, now);
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      return subscriptionChanged(trx, event, object, now);
    case 'charge.succeeded':
    case 'charge.refunded':
      return chargeChanged(trx, event, object, now);
    case 'charge.dispute.created':
      return disputeCreated(trx, event, object, now);
    default:
      return ignored(`${event.type} is not an event this service handles`);
  }
}

/** The account and product a Checkout Session or subscription was started for (our metadata). */
async function ourPurchase(trx: Db, metadata: unknown, fallbackAccountId?: string): Promise<{ accountId?: string; price?: Price; exists: boolean }> {
  const meta = fields(metadata);
  const accountId = text(meta.account_id) ?? fallbackAccountId;
  const product = text(meta.product);
  const price = product ? await findPrice(trx, product) : undefined;
  const exists = accountId ? (await trx.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst()) !== undefined : false;
  return { accountId, price, exists };
}

async function rememberCustomer(trx: Db, accountId: string, customerId: string | undefined, now: number): Promise<void> {
  if (!customerId) return;
  await trx
    .insertInto('stripe_customers')
    .values({ account_id: accountId, customer_id: customerId, created_at: now })
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
}

async function checkoutCompleted(trx: Db, event: Stripe.Event, session: Fields, now: number): Promise<EventOutcome> {
  const sessionId = text(session.id);
  const { accountId, price, exists } = await ourPurchase(trx, session.metadata, text(session.client_reference_id));
  if (!sessionId || !accountId || !price) return ignored('not a Checkout Session of this service');
  if (!exists) {
    return ignored(`account ${accountId} no longer exists: nothing granted; refund payment ${idOf(session.payment_intent) ?? sessionId} in Stripe`);
  }
  const customerId = idOf(session.customer);
  await rememberCustomer(trx, accountId, customerId, now);
  // `unpaid` until an asynchronous payment method (a bank debit) clears: its success is another event.
  const paid = session.payment_status === 'paid' || session.payment_status === 'no_payment_required';
  const facts: PurchaseFacts = {
    accountId,
    product: price.product,
    credits: price.credits,
    plan: price.kind === 'plan' ? price.plan : null,
    amount: count(session.amount_total) ?? null,
    currency: text(session.currency) ?? null,
    paid,
    checkoutSessionId: sessionId,
    customerId: customerId ?? null,
  };
  const changes: string[] = [];
  if (session.mode === 'subscription') {
    const subscriptionId = idOf(session.subscription);
    if (!subscriptionId || !price.plan) return ignored('a subscription Checkout Session without a subscription', accountId);
    await recordSubscriptionFacts(
      trx,
      subscriptionId,
      { accountId, plan: price.plan, initialStatus: paid ? 'active' : 'incomplete', customerId: customerId ?? null, eventAt: eventTime(event) },
      now,
    );
    const invoiceId = idOf(session.invoice);
    if (invoiceId) {
      await recordPurchaseFacts(trx, invoiceId, { ...facts, invoiceId, subscriptionId }, now);
      changes.push(...(await reconcilePurchase(trx, invoiceId, event.id, now)).applied);
    }
    changes.push(...(await reconcileSubscription(trx, subscriptionId, event.id, now)));
  } else {
    // A one-time payment is known by its PaymentIntent, which its charges, refunds and disputes name too.
    const purchaseId = idOf(session.payment_intent) ?? sessionId;
    await recordPurchaseFacts(trx, purchaseId, facts, now);
    changes.push(...(await reconcilePurchase(trx, purchaseId, event.id, now)).applied);
  }
  return applied(accountId, changes, paid ? 'already applied by an earlier event' : 'waiting for the payment to clear');
}

/** The latest end of the periods an invoice's lines bill for (ms). */
function invoicePeriodEnd(invoice: Fields): number | undefined {
  const ends = list(invoice.lines)
    .map((line) => count(fields(line.period).end))
    .filter((end): end is number => end !== undefined);
  return ends.length > 0 ? Math.max(...ends) * 1000 : undefined;
}

async function invoicePaid(trx: Db, event: Stripe.Event, invoice: Fields, now: number): Promise<EventOutcome> {
  const invoiceId = text(invoice.id);
  // The subscription and its metadata: under `parent` since API 2025-03-31, on the invoice before.
  const details = fields(fields(invoice.parent).subscription_details);
  const subscriptionId = idOf(details.subscription) ?? idOf(invoice.subscription);
  if (!invoiceId || !subscriptionId) return ignored('not a subscription invoice');
  const known = await trx.selectFrom('subscriptions').select(['account_id', 'plan']).where('id', '=', subscriptionId).executeTakeFirst();
  const { accountId, price, exists } = await ourPurchase(trx, details.metadata ?? fields(invoice.subscription_details).metadata, known?.account_id);
  const plan = price?.plan ?? known?.plan;
  if (!accountId || !plan) return ignored('not a subscription of this service');
  if (!exists) return ignored(`account ${accountId} no longer exists: nothing granted; refund invoice ${invoiceId} in Stripe`);
  const customerId = idOf(invoice.customer);
  await rememberCustomer(trx, accountId, customerId, now);
  await recordSubscriptionFacts(
    trx,
    subscriptionId,
    { accountId, plan, initialStatus: 'active', currentPeriodEnd: invoicePeriodEnd(invoice) ?? null, customerId: customerId ?? null, eventAt: eventTime(event) },
    now,
  );
  await recordPurchaseFacts(
    trx,
    invoiceId,
    {
      accountId,
      product: price?.product ?? `plan_${plan}`,
      credits: 0,
      plan,
      amount: count(invoice.amount_paid) ?? null,
      currency: text(invoice.currency) ?? null,
      paid: true,
      invoiceId,
      subscriptionId,
      customerId: customerId ?? null,
      receiptUrl: text(invoice.hosted_invoice_url) ?? null,
    },
    now,
  );
  const changes = [...(await reconcilePurchase(trx, invoiceId, event.id, now)).applied, ...(await reconcileSubscription(trx, subscriptionId, event.id, now))];
  return applied(accountId, changes, 'already applied by an earlier event');
}

/** The end of the period being paid for: on the items since API 2025-03-31, on the subscription before. */
function subscriptionPeriodEnd(subscription: Fields): number | undefined {
  const ends = [...list(subscription.items).map((item) => count(item.current_period_end)), count(subscription.current_period_end)].filter(
    (end): end is number => end !== undefined,
  );
  return ends.length > 0 ? Math.max(...ends) * 1000 : undefined;
}

async function subscriptionChanged(trx: Db, event: Stripe.Event, subscription: Fields, now: number): Promise<EventOutcome> {
  const subscriptionId = text(subscription.id);
  if (!subscriptionId) return ignored('a subscription event without a subscription');
  const known = await trx.selectFrom('subscriptions').select(['account_id', 'plan']).where('id', '=', subscriptionId).executeTakeFirst();
  const { accountId, price, exists } = await ourPurchase(trx, subscription.metadata, known?.account_id);
  const plan = price?.plan ?? known?.plan;
  if (!accountId || !plan) return ignored('not a subscription of this service');
  if (!exists) return ignored(`account ${accountId} no longer exists`);
  const status = event.type === 'customer.subscription.deleted' ? 'canceled' : (text(subscription.status) ?? 'active');
  const update = await recordSubscriptionFacts(
    trx,
    subscriptionId,
    {
      accountId,
      plan,
      status,
      cancelAtPeriodEnd: subscription.cancel_at_period_end === true,
      currentPeriodEnd: subscriptionPeriodEnd(subscription) ?? null,
      customerId: idOf(subscription.customer) ?? null,
      eventAt: eventTime(event),
    },
    now,
  );
  if (update === 'stale') return ignored('older than the state already applied', accountId);
  const changes = await reconcileSubscription(trx, subscriptionId, event.id, now);
  return applied(accountId, changes.length > 0 ? changes : [`subscription ${status}${subscription.cancel_at_period_end === true ? ', cancels at the period end' : ''}`], '');
}

async function chargeChanged(trx: Db, event: Stripe.Event, charge: Fields, now: number): Promise<EventOutcome> {
  const paymentIntentId = idOf(charge.payment_intent);
  if (!paymentIntentId) return ignored('a charge without a PaymentIntent is not a Checkout payment');
  const facts: PurchaseFacts = { chargeId: text(charge.id) ?? null, receiptUrl: text(charge.receipt_url) ?? null };
  if (event.type === 'charge.refunded') facts.amountRefunded = count(charge.amount_refunded) ?? count(charge.amount) ?? 0;
  // Recorded even before the payment is known, so a refund that overtakes it is applied after it.
  await recordPurchaseFacts(trx, paymentIntentId, facts, now);
  const { accountId, applied: changes } = await reconcilePurchase(trx, paymentIntentId, event.id, now);
  return applied(accountId, changes, accountId ? 'nothing to change' : 'recorded for a payment not seen yet');
}

async function disputeCreated(trx: Db, event: Stripe.Event, dispute: Fields, now: number): Promise<EventOutcome> {
  const paymentIntentId = idOf(dispute.payment_intent);
  if (!paymentIntentId) return ignored('a dispute without a PaymentIntent is not of a Checkout payment');
  await recordPurchaseFacts(trx, paymentIntentId, { disputed: true, chargeId: idOf(dispute.charge) ?? null }, now);
  const { accountId, applied: changes } = await reconcilePurchase(trx, paymentIntentId, event.id, now);
  return applied(accountId, changes, accountId ? 'nothing to change' : 'recorded for a payment not seen yet');
}
