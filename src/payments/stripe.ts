// Payments through Stripe, with the official `stripe` library: Checkout Sessions for packs
// (one-time) and paid plans (subscriptions, or one-time for lifetime), the customer portal,
// and the webhook's signature check. Built only when STRIPE_SECRET_KEY and
// STRIPE_WEBHOOK_SECRET are set; without them the pages say how to get credits from the operator.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import Stripe from 'stripe';
import type { Account } from '../accounts/accounts.ts';
import type { StripeConfig } from '../config.ts';
import { DomainError } from '../errors.ts';
import type { Store } from '../store/database.ts';
import { applyStripeEvent, type EventOutcome } from './events.ts';
import { findPrice, productName } from './prices.ts';
import { lapsedSubscriptions, listSubscriptions, reconcileSubscription } from './subscriptions.ts';

export interface Payments {
  /** Checks the `Stripe-Signature` header against the endpoint secret and the library's tolerance; a DomainError (`invalid_input`) when it fails. */
  verifyEvent(payload: Buffer, signature: string | undefined): Promise<Stripe.Event>;
  applyEvent(event: Stripe.Event): Promise<EventOutcome>;
  /** Creates a Checkout Session for `product` and returns its URL. `attempt` makes a double submit one session. */
  startCheckout(account: Account, product: string, attempt: string): Promise<string>;
  /** A customer portal session for the account's Stripe customer; its URL. */
  openPortal(account: Account): Promise<string>;
  /** The account's Stripe customer, once a payment made one. */
  customerOf(accountId: string): Promise<string | undefined>;
  /** Origins the pages' buy and portal forms redirect to (the pages' CSP form-action must name them). */
  formTargets: string[];
}

/** Where Stripe's hosted Checkout and customer portal live. */
const STRIPE_PAGE_ORIGINS = ['https://checkout.stripe.com', 'https://billing.stripe.com'];

export interface PaymentsDeps {
  store: Store;
  publicUrl: string;
  now: () => number;
  log: Logger;
}

/** The library's own client, pointed at STRIPE_API_BASE when set (a stub in tests). */
export function createStripeClient(config: StripeConfig): Stripe {
  return new Stripe(config.secretKey, {
    ...(config.apiBase ? { host: config.apiBase.host, port: config.apiBase.port, protocol: config.apiBase.protocol } : {}),
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    appInfo: { name: 'vectorize' },
  });
}

/** An idempotency key part from the form: a fresh one when missing or malformed. */
export function checkoutAttempt(value: string | undefined): string {
  return value && /^[A-Za-z0-9_-]{16,64}$/.test(value) ? value : randomBytes(16).toString('base64url');
}

/** Stripe unreachable or refusing: the page says to try again; the log has Stripe's own words. */
function providerUnavailable(log: Logger, error: unknown, what: string): DomainError {
  log.error({ err: error, stripeRequestId: (error as { requestId?: string }).requestId }, `Stripe: ${what} failed`);
  return new DomainError('unavailable', 'the payment provider could not be reached; try again in a moment', { retryAfterSeconds: 5 });
}

export function createPayments(config: StripeConfig, deps: PaymentsDeps): Payments {
  const stripe = createStripeClient(config);
  const { db } = deps.store;

  async function customerOf(accountId: string): Promise<string | undefined> {
    const row = await db.selectFrom('stripe_customers').select('customer_id').where('account_id', '=', accountId).executeTakeFirst();
    return row?.customer_id;
  }

  return {
    async verifyEvent(payload, signature) {
      if (!signature) throw new DomainError('invalid_input', 'missing Stripe-Signature header');
      try {
        // The service's clock decides the tolerance, so a test clock applies here too.
        return await stripe.webhooks.constructEventAsync(payload, signature, config.webhookSecret, undefined, undefined, deps.now());
      } catch (error) {
        const reason = error instanceof Error ? error.message.split('.')[0] : 'invalid';
        throw new DomainError('invalid_input', `invalid Stripe signature: ${reason}`);
      }
    },

    applyEvent: (event) => applyStripeEvent(deps.store, event, deps.now()),

    async startCheckout(account, product, attempt) {
      const price = await findPrice(db, product);
      if (!price || !price.active) throw new DomainError('invalid_input', `product: ${JSON.stringify(product)} is not for sale`);
      if (price.kind === 'plan') {
        if (account.plan.name === price.plan) throw new DomainError('conflict', `you are on the ${price.plan} plan already`);
        const live = (await listSubscriptions(db, account.id)).find((s) => s.live);
        if (live) {
          throw new DomainError('conflict', `you have a ${live.plan} subscription: change or cancel it in the customer portal (Manage subscription) first`);
        }
        if (account.plan.name === 'lifetime') throw new DomainError('conflict', 'you are on the lifetime plan: no other plan is needed');
      }
      const customer = await customerOf(account.id);
      const metadata = { account_id: account.id, product: price.product };
      const base = deps.publicUrl;
      const params: Stripe.Checkout.SessionCreateParams = {
        mode: price.billingInterval ? 'subscription' : 'payment',
        client_reference_id: account.id,
        metadata,
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: price.currency,
              unit_amount: price.unitAmount,
              product_data: { name: productName(price) },
              ...(price.billingInterval ? { recurring: { interval: price.billingInterval } } : {}),
            },
          },
        ],
        success_url: `${base}/account/billing/success?session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${base}/account/billing?canceled=1`,
        ...(customer ? { customer } : { customer_email: account.email }),
        // The metadata travels to the payment and the subscription, so their own events name the account too.
        ...(price.billingInterval
          ? { subscription_data: { metadata } }
          : { payment_intent_data: { metadata }, ...(customer ? {} : { customer_creation: 'always' as const }) }),
      };
      try {
        const session = await stripe.checkout.sessions.create(params, { idempotencyKey: `checkout-${account.id}-${price.product}-${attempt}` });
        if (!session.url) throw new Error('Stripe returned a Checkout Session without a URL');
        deps.log.info({ accountId: account.id, product: price.product, checkoutSession: session.id }, 'checkout started');
        return session.url;
      } catch (error) {
        throw providerUnavailable(deps.log, error, 'creating a Checkout Session');
      }
    },

    async openPortal(account) {
      const customer = await customerOf(account.id);
      if (!customer) throw new DomainError('not_found', 'there is nothing to manage yet: the customer portal opens once you have paid with Stripe');
      try {
        const session = await stripe.billingPortal.sessions.create({ customer, return_url: `${deps.publicUrl}/account/billing` });
        return session.url;
      } catch (error) {
        throw providerUnavailable(deps.log, error, 'opening the customer portal');
      }
    },

    customerOf,
    // A stand-in reached through STRIPE_API_BASE serves its Checkout pages from its own origin.
    formTargets: [...STRIPE_PAGE_ORIGINS, ...(config.apiBase ? [new URL(`${config.apiBase.protocol}://${config.apiBase.host.includes(':') ? `[${config.apiBase.host}]` : config.apiBase.host}:${config.apiBase.port}`).origin] : [])],
  };
}

/**
 * Housekeeping: subscriptions that ended and whose paid period is now over give back their
 * plan. Needs no Stripe client: it acts on what the webhook recorded.
 */
export async function endLapsedSubscriptions(store: Store, now: number): Promise<number> {
  let ended = 0;
  for (const id of await lapsedSubscriptions(store.db, now)) {
    const changes = await store.db.transaction().execute((trx) => reconcileSubscription(trx, id, 'housekeeping', now));
    if (changes.length > 0) ended += 1;
  }
  return ended;
}
