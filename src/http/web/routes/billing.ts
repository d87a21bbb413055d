// The Billing page of the logged-in account: prices with buy buttons (to Stripe Checkout),
// the subscription and the customer portal, the purchases with Stripe's receipts. Credits and
// plans change only when Stripe's webhook says a payment went through: the page Stripe sends
// the buyer back to says so, and grants nothing.
import type { FastifyInstance } from 'fastify';
import type { Account } from '../../../accounts/accounts.ts';
import { creditDebt } from '../../../accounts/credits.ts';
import { DomainError } from '../../../errors.ts';
import { formatMoney, listPrices, priceText, productName, type Price } from '../../../payments/prices.ts';
import { findPurchaseBySession, listPurchases, purchaseState } from '../../../payments/purchases.ts';
import { checkoutAttempt, type Payments } from '../../../payments/stripe.ts';
import { listSubscriptions } from '../../../payments/subscriptions.ts';
import { formatTime, formFields, planLabel, type Pages } from '../pages.ts';

/** What the pages say where a buy button would be, when Stripe is not configured. */
export const OPERATOR_MESSAGE =
  "Payments are not set up on this service. To get credits or a paid plan, contact the service's operator: they can add credits or change your plan for you.";

const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A price as the pricing sections show it, with its button's words. */
export function priceOffer(price: Price) {
  const amount = priceText(price);
  const label =
    price.kind === 'pack'
      ? `Buy ${price.credits} credits for ${amount}`
      : price.billingInterval
        ? `Subscribe to ${planLabel(price.plan ?? '')} for ${amount}`
        : `Buy ${planLabel(price.plan ?? '')} for ${amount}`;
  return { product: price.product, kind: price.kind, credits: price.credits, plan: price.plan, name: productName(price), amount, label };
}

export function billingRoutes(app: FastifyInstance, pages: Pages, payments: Payments | undefined): void {
  const { render, submit, requireSignedIn, deps } = pages;

  async function billingPage(account: Account, selected?: string) {
    const [prices, purchases, subscriptions, debt, customer] = await Promise.all([
      listPrices(deps.db, { activeOnly: true }),
      listPurchases(deps.db, account.id),
      listSubscriptions(deps.db, account.id),
      creditDebt(deps.db, account.id),
      payments?.customerOf(account.id),
    ]);
    const offers = prices.map(priceOffer);
    const subscription = subscriptions.find((s) => s.live || (s.endsAt !== null && s.endsAt > deps.now()));
    return {
      title: 'Billing',
      account,
      planLabel: planLabel(account.plan.name),
      paymentsEnabled: payments !== undefined,
      operatorMessage: OPERATOR_MESSAGE,
      packs: offers.filter((o) => o.kind === 'pack'),
      plans: offers.filter((o) => o.kind === 'plan').map((o) => ({ ...o, current: o.plan === account.plan.name })),
      selected: offers.some((o) => o.product === selected) ? selected : undefined,
      attempt: checkoutAttempt(undefined),
      debt,
      subscription: subscription && {
        plan: planLabel(subscription.plan),
        text: subscription.live
          ? subscription.cancelAtPeriodEnd
            ? `ends on ${subscription.currentPeriodEnd ? date(subscription.currentPeriodEnd) : 'the end of the period'} (cancelled)`
            : `renews${subscription.currentPeriodEnd ? ` on ${date(subscription.currentPeriodEnd)}` : ' every month'}`
          : `ended; the plan stays until ${date(subscription.endsAt ?? deps.now())}`,
      },
      canManage: payments !== undefined && customer !== undefined,
      purchases: purchases.map((p) => ({
        time: formatTime(p.createdAt),
        iso: new Date(p.createdAt).toISOString(),
        what: p.credits > 0 ? `${p.credits} credits` : `${planLabel(p.plan ?? '')} plan${p.subscriptionId ? ' (subscription)' : ''}`,
        amount: p.amount !== null && p.currency ? formatMoney(p.amount, p.currency) : '',
        state: purchaseState(p),
        receiptUrl: p.receiptUrl && /^https?:\/\//.test(p.receiptUrl) ? p.receiptUrl : null,
      })),
    };
  }

  app.get<{ Querystring: { product?: string; canceled?: string } }>('/account/billing', async (request, reply) => {
    const account = requireSignedIn(request, reply);
    if (!account) return reply;
    const notice = request.query.canceled === '1' ? 'Checkout was cancelled: nothing was charged.' : undefined;
    return render(request, reply, 'billing', { ...(await billingPage(account, request.query.product)), notice });
  });

  app.post('/account/billing/checkout', async (request, reply) => {
    const account = requireSignedIn(request, reply);
    if (!account) return reply;
    const fields = formFields(request.body, ['_csrf', 'product', 'attempt']);
    return submit(request, reply, { template: 'billing', title: 'Billing', values: {}, data: await billingPage(account, fields.product), csrfToken: fields._csrf }, async () => {
      if (!payments) throw new DomainError('not_found', OPERATOR_MESSAGE);
      const url = await payments.startCheckout(account, fields.product ?? '', checkoutAttempt(fields.attempt));
      return reply.redirect(url, 303);
    });
  });

  app.post('/account/billing/portal', async (request, reply) => {
    const account = requireSignedIn(request, reply);
    if (!account) return reply;
    const fields = formFields(request.body, ['_csrf']);
    return submit(request, reply, { template: 'billing', title: 'Billing', values: {}, data: await billingPage(account), csrfToken: fields._csrf }, async () => {
      if (!payments) throw new DomainError('not_found', OPERATOR_MESSAGE);
      return reply.redirect(await payments.openPortal(account), 303);
    });
  });

  // Where Stripe sends the buyer back. It reads what the webhook recorded and changes nothing.
  app.get<{ Querystring: { session_id?: string } }>('/account/billing/success', async (request, reply) => {
    const account = requireSignedIn(request, reply);
    if (!account) return reply;
    const sessionId = request.query.session_id ?? '';
    const purchase = /^cs_[A-Za-z0-9_]{1,200}$/.test(sessionId) ? await findPurchaseBySession(deps.db, account.id, sessionId) : undefined;
    const confirmed = purchase !== undefined && purchase.paid;
    return render(request, reply, 'billing-success', {
      title: confirmed ? 'Payment confirmed' : 'Payment being confirmed',
      confirmed,
      what: purchase ? (purchase.credits > 0 ? `${purchase.credits} credits were added to your balance` : `you are on the ${planLabel(purchase.plan ?? '')} plan`) : '',
      // Reload while waiting: the page itself changes nothing, whatever the number of loads.
      refresh: !confirmed,
    });
  });
}
