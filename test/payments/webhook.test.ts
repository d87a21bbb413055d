// Payments against a local stand-in for Stripe's API (STRIPE_API_BASE) and events signed with
// the stripe library's own test-header helper, over real HTTP, on SQLite and PostgreSQL: a pack
// bought once however often its event arrives, signatures and their tolerance, refunds and
// disputes after credits were spent (the debt rule), a subscription's life, out-of-order
// delivery, an account that no longer exists, and the success page that grants nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount, findAccount, type Account } from '../../src/accounts/accounts.ts';
import { creditDebt, ledgerSum, listLedger } from '../../src/accounts/credits.ts';
import { hashPassword } from '../../src/accounts/passwords.ts';
import { corpusFile, postVectorize } from '../helpers/http.ts';
import { PageClient } from '../helpers/pages.ts';
import { startTestService, testClock, type TestService } from '../helpers/service.ts';
import { charge, deliver, paidCheckoutSession, startStripeStub, stripeEnv, stripeEvent, type StripeStub } from '../helpers/stripe.ts';
import { dialects } from '../helpers/stores.ts';
import { createKey } from '../../src/accounts/keys.ts';

const PASSWORD = 'correct horse battery';
const IMAGE = corpusFile('logo/flat_shapes_transparency_300.png');

for (const dialect of await dialects()) {
  describe(`Stripe payments (${dialect.dialect})`, { skip: dialect.skip }, () => {
    let stub: StripeStub;
    let service: TestService;
    // The service's clock, started at the real time so that signatures made now are in tolerance.
    const clock = testClock(Date.now());
    let n = 0;

    before(async () => {
      stub = await startStripeStub();
      service = await startTestService(await dialect.create(), { env: stripeEnv(stub), now: clock.now });
    });
    after(async () => {
      await service?.close();
      await service?.database.drop();
      await stub?.close();
    });

    const db = () => service.store.db;
    const unique = () => `${dialect.dialect}${++n}`;

    async function account(credits = 0): Promise<Account> {
      return createAccount(db(), { email: `buyer-${unique()}@example.com`, credits, passwordHash: await hashPassword(PASSWORD) });
    }
    async function balance(id: string): Promise<number> {
      return (await findAccount(db(), id))?.credits ?? NaN;
    }
    async function plan(id: string): Promise<string | undefined> {
      return (await findAccount(db(), id))?.plan.name;
    }
    /** The ledger still sums to the balance, whatever happened. */
    async function ledgerHolds(id: string): Promise<void> {
      assert.equal(await ledgerSum(db(), id), await balance(id), 'the ledger sums to the balance');
    }
    const now = () => clock.now();
    const send = (event: object, options: Parameters<typeof deliver>[2] = {}) => deliver(service.url, event, { timestampMs: now(), ...options });

    function packCompleted(accountId: string, product = 'pack_50', amount = 500) {
      const id = unique();
      return stripeEvent('checkout.session.completed', paidCheckoutSession(accountId, product, amount, { session: `cs_test_${id}`, paymentIntent: `pi_test_${id}` }), {
        createdMs: now(),
      });
    }

    it('starts Checkout through the stub with the account in its metadata and an idempotency key', async () => {
      const buyer = await account();
      const client = new PageClient(service.url);
      assert.equal((await client.logIn(buyer.email, PASSWORD)).status, 303);
      const page = await client.get('/account/billing');
      const attempt = /name="attempt" value="([^"]+)"/.exec(page.html)?.[1] ?? '';
      const token = /name="_csrf" value="([^"]+)"/.exec(page.html)?.[1] ?? '';
      const first = await client.post('/account/billing/checkout', { _csrf: token, product: 'pack_200', attempt });
      assert.equal(first.status, 303, first.html.slice(0, 300));
      assert.match(first.location ?? '', new RegExp(`^${stub.url}/pay/cs_test_stub\\d+$`));
      const call = stub.requests.at(-1);
      assert.ok(call);
      assert.equal(call.path, '/v1/checkout/sessions');
      assert.equal(call.params.get('mode'), 'payment');
      assert.equal(call.params.get('client_reference_id'), buyer.id);
      assert.equal(call.params.get('metadata[account_id]'), buyer.id);
      assert.equal(call.params.get('metadata[product]'), 'pack_200');
      assert.equal(call.params.get('payment_intent_data[metadata][account_id]'), buyer.id);
      assert.equal(call.params.get('line_items[0][price_data][unit_amount]'), '1500');
      assert.equal(call.params.get('line_items[0][price_data][currency]'), 'usd');
      assert.match(String(call.headers['idempotency-key']), new RegExp(`^checkout-${buyer.id}-pack_200-`));
      assert.equal(call.headers.authorization, 'Bearer sk_test_stubKey123');
      // The same form sent twice is one Checkout Session.
      const again = await client.post('/account/billing/checkout', { _csrf: token, product: 'pack_200', attempt });
      assert.equal(again.location, first.location);
      assert.equal(await balance(buyer.id), 0, 'starting Checkout grants nothing');

      // A plan is a subscription.
      await client.post('/account/billing/checkout', { _csrf: token, product: 'plan_pro', attempt });
      const subscription = stub.requests.at(-1);
      assert.equal(subscription?.params.get('mode'), 'subscription');
      assert.equal(subscription?.params.get('line_items[0][price_data][recurring][interval]'), 'month');
      assert.equal(subscription?.params.get('subscription_data[metadata][account_id]'), buyer.id);
    });

    it('says the payment is being confirmed on the success page, and grants nothing, until the webhook comes', async () => {
      const buyer = await account();
      const client = new PageClient(service.url);
      await client.logIn(buyer.email, PASSWORD);
      const event = packCompleted(buyer.id);
      const sessionId = (event.data.object as { id: string }).id;
      const waiting = await client.get(`/account/billing/success?session_id=${sessionId}`);
      assert.equal(waiting.status, 200);
      assert.match(waiting.html, /Your payment is being confirmed/);
      assert.match(waiting.html, /http-equiv="refresh"/);
      await client.get(`/account/billing/success?session_id=${sessionId}`);
      assert.equal(await balance(buyer.id), 0, 'the success page granted nothing');
      assert.equal((await listLedger(db(), buyer.id)).length, 0);

      assert.equal((await send(event)).status, 200);
      const confirmed = await client.get(`/account/billing/success?session_id=${sessionId}`);
      assert.match(confirmed.html, /Payment confirmed/);
      assert.match(confirmed.html, /50 credits were added/);
      assert.equal(await balance(buyer.id), 50);
    });

    it('grants a pack once, however often and however simultaneously its event arrives', async () => {
      const buyer = await account(10);
      const event = packCompleted(buyer.id, 'pack_200', 1500);
      const first = await send(event);
      assert.deepEqual(first, { status: 200, body: { received: true, result: 'applied' } });
      assert.equal(await balance(buyer.id), 210);
      assert.deepEqual((await send(event)).body, { received: true, result: 'duplicate' }, 'a redelivery');
      assert.equal(await balance(buyer.id), 210);

      // Two copies at the same moment: one applies, the other finds it applied.
      const racing = packCompleted(buyer.id, 'pack_500', 3000);
      const results = await Promise.all(Array.from({ length: 4 }, () => send(racing)));
      assert.deepEqual(results.map((r) => r.status), [200, 200, 200, 200]);
      assert.deepEqual(results.map((r) => r.body.result).sort(), ['applied', 'duplicate', 'duplicate', 'duplicate']);
      assert.equal(await balance(buyer.id), 710);

      // The same payment under another event id (Stripe's completed, then async success) is one purchase.
      const sameSession = stripeEvent('checkout.session.async_payment_succeeded', racing.data.object, { createdMs: now() });
      assert.equal((await send(sameSession)).body.result, 'ignored');
      assert.equal(await balance(buyer.id), 710);

      const packs = (await listLedger(db(), buyer.id)).filter((e) => e.kind === 'pack');
      assert.equal(packs.length, 2);
      const payment = (racing.data.object as { payment_intent: string }).payment_intent;
      assert.ok(packs.some((e) => e.stripeRef?.includes(racing.id) && e.stripeRef.includes(payment)), 'the ledger names Stripe’s event and payment');
      await ledgerHolds(buyer.id);
    });

    it('refuses a bad or missing signature and an event older than the tolerance with 400, granting nothing', async () => {
      const buyer = await account();
      const event = packCompleted(buyer.id);
      const wrongSecret = await send(event, { secret: 'whsec_someoneElse' });
      assert.equal(wrongSecret.status, 400);
      assert.match(String(wrongSecret.body.error), /signature/i);
      const none = await send(event, { signature: null });
      assert.equal(none.status, 400);
      assert.match(String(none.body.error), /Stripe-Signature/);
      const garbage = await send(event, { signature: 't=1,v1=00' });
      assert.equal(garbage.status, 400);
      // Signed properly, but over another body than the one sent.
      const tampered = await send(event, {
        signature: (await import('stripe')).default.webhooks.generateTestHeaderString({
          payload: JSON.stringify({ ...event, id: 'evt_other' }),
          secret: 'whsec_stubSecret123',
          timestamp: Math.floor(now() / 1000),
        }),
      });
      assert.equal(tampered.status, 400);
      // Signed with the right secret 301 seconds ago: past the library's 300 s tolerance.
      const stale = await send(event, { timestampMs: now() - 301_000 });
      assert.equal(stale.status, 400);
      assert.match(String(stale.body.error), /tolerance/i);
      assert.equal(await balance(buyer.id), 0);
      const recorded = await db().selectFrom('stripe_events').select('id').where('id', '=', event.id).executeTakeFirst();
      assert.equal(recorded, undefined, 'a refused event is not recorded');
      // The genuine delivery, later, still applies.
      assert.equal((await send(event)).body.result, 'applied');
      assert.equal(await balance(buyer.id), 50);
    });

    it('takes a refunded pack back after some of it was spent: the balance stops at zero, the rest is debt settled by the next grant', async () => {
      const buyer = await account(0);
      const bought = packCompleted(buyer.id, 'pack_50', 500);
      assert.equal((await send(bought)).body.result, 'applied');
      const paymentIntent = (bought.data.object as { payment_intent: string }).payment_intent;
      await send(stripeEvent('charge.succeeded', charge(paymentIntent, 500), { createdMs: now() }));
      // Two real conversions spend two credits.
      const key = (await createKey(db(), buyer.id, 'spender')).key;
      service.logs.secrets.add(key);
      for (let i = 0; i < 2; i++) {
        const converted = await postVectorize(service.url, key, { image: IMAGE });
        assert.equal(converted.status, 200, JSON.stringify(converted.body));
        clock.advance(1_000);
      }
      assert.equal(await balance(buyer.id), 48);

      const refund = stripeEvent('charge.refunded', charge(paymentIntent, 500, 500), { createdMs: now() });
      assert.equal((await send(refund)).body.result, 'applied');
      assert.equal(await balance(buyer.id), 0, 'never below zero');
      assert.equal(await creditDebt(db(), buyer.id), 2, 'the two spent credits are owed');
      assert.equal((await send(refund)).body.result, 'duplicate');
      assert.equal(await creditDebt(db(), buyer.id), 2);
      const reversal = (await listLedger(db(), buyer.id)).find((e) => e.kind === 'reversal');
      assert.equal(reversal?.delta, -48);
      assert.match(reversal?.reason ?? '', /50 credits taken back, 48 from the balance and 2 recorded as debt/);
      assert.ok(reversal?.stripeRef?.includes(refund.id));

      // A conversion now: no credits.
      const refused = await postVectorize(service.url, key, { image: IMAGE });
      assert.equal(refused.status, 402);

      // The next pack settles the debt first.
      assert.equal((await send(packCompleted(buyer.id, 'pack_200', 1500))).body.result, 'applied');
      assert.equal(await balance(buyer.id), 198);
      assert.equal(await creditDebt(db(), buyer.id), 0);
      const settled = (await listLedger(db(), buyer.id)).find((e) => e.kind === 'debt');
      assert.equal(settled?.delta, -2);
      await ledgerHolds(buyer.id);

      const client = new PageClient(service.url);
      await client.logIn(buyer.email, PASSWORD);
      const billing = await client.get('/account/billing');
      assert.match(billing.html, /<td>refunded<\/td>/);
      assert.ok(billing.html.includes(`https://pay.stripe.com/receipts/payment/ch_${paymentIntent.slice(3)}`), 'the receipt of the refunded purchase');
    });

    it('takes back in proportion to a partial refund, all of it on a dispute, and applies a refund that overtook its payment', async () => {
      const buyer = await account(0);
      const bought = packCompleted(buyer.id, 'pack_200', 1500);
      const paymentIntent = (bought.data.object as { payment_intent: string }).payment_intent;
      await send(bought);
      // A third refunded, then (cumulatively) half: 67, then 100 credits in all (rounded up).
      assert.equal((await send(stripeEvent('charge.refunded', charge(paymentIntent, 1500, 500)))).body.result, 'applied');
      assert.equal(await balance(buyer.id), 133);
      assert.equal((await send(stripeEvent('charge.refunded', charge(paymentIntent, 1500, 750)))).body.result, 'applied');
      assert.equal(await balance(buyer.id), 100);
      // The earlier report, delivered late, changes nothing.
      assert.equal((await send(stripeEvent('charge.refunded', charge(paymentIntent, 1500, 500)))).body.result, 'ignored');
      assert.equal(await balance(buyer.id), 100);
      // A dispute takes back the rest of the pack.
      const dispute = { id: `dp_${unique()}`, object: 'dispute', amount: 1500, charge: `ch_${paymentIntent.slice(3)}`, payment_intent: paymentIntent, status: 'needs_response', reason: 'fraudulent' };
      assert.equal((await send(stripeEvent('charge.dispute.created', dispute))).body.result, 'applied');
      assert.equal(await balance(buyer.id), 0);
      assert.equal(await creditDebt(db(), buyer.id), 0);

      // A refund delivered before the payment it refunds: recorded, then applied with it.
      const early = packCompleted(buyer.id, 'pack_50', 500);
      const earlyIntent = (early.data.object as { payment_intent: string }).payment_intent;
      assert.equal((await send(stripeEvent('charge.refunded', charge(earlyIntent, 500, 500)))).body.result, 'ignored');
      assert.equal(await balance(buyer.id), 0);
      assert.equal((await send(early)).body.result, 'applied');
      assert.equal(await balance(buyer.id), 0, 'granted and taken back in one go');
      const kinds = (await listLedger(db(), buyer.id)).map((e) => `${e.kind} ${e.delta}`);
      assert.ok(kinds.includes('pack 50') && kinds.includes('reversal -50'), kinds.join(', '));
      await ledgerHolds(buyer.id);
    });

    it('starts a subscription, renews it, and ends the plan at the end of the period after cancellation, whatever the order of events', async () => {
      const buyer = await account(3);
      const id = unique();
      const subscriptionId = `sub_test_${id}`;
      const customer = `cus_test_${id}`;
      const metadata = { account_id: buyer.id, product: 'plan_pro' };
      const day = 86_400_000;
      const start = now();
      const subscription = (status: string, periodEnd: number, cancelAtPeriodEnd = false) => ({
        id: subscriptionId,
        object: 'subscription',
        customer,
        status,
        cancel_at_period_end: cancelAtPeriodEnd,
        metadata,
        items: { object: 'list', data: [{ id: `si_${id}`, object: 'subscription_item', current_period_end: Math.floor(periodEnd / 1000) }] },
      });
      const invoice = (invoiceId: string, reason: string, periodEnd: number) => ({
        id: invoiceId,
        object: 'invoice',
        customer,
        amount_paid: 1200,
        currency: 'usd',
        billing_reason: reason,
        status: 'paid',
        hosted_invoice_url: `https://invoice.stripe.com/i/${invoiceId}`,
        parent: { type: 'subscription_details', subscription_details: { subscription: subscriptionId, metadata } },
        lines: { object: 'list', data: [{ id: `il_${invoiceId}`, period: { start: Math.floor((periodEnd - 30 * day) / 1000), end: Math.floor(periodEnd / 1000) } }] },
      });

      // The first invoice's payment can arrive before the Checkout completion.
      assert.equal((await send(stripeEvent('invoice.paid', invoice(`in_first_${id}`, 'subscription_create', start + 30 * day), { createdMs: start }))).body.result, 'applied');
      assert.equal(await plan(buyer.id), 'pro');
      const completed = stripeEvent(
        'checkout.session.completed',
        {
          id: `cs_test_${id}`,
          object: 'checkout.session',
          mode: 'subscription',
          client_reference_id: buyer.id,
          metadata,
          amount_total: 1200,
          currency: 'usd',
          customer,
          subscription: subscriptionId,
          invoice: `in_first_${id}`,
          payment_intent: null,
          payment_status: 'paid',
        },
        { createdMs: start },
      );
      assert.equal((await send(completed)).body.result, 'ignored', 'the plan had started already');
      assert.equal(await plan(buyer.id), 'pro');

      // A month later: renewed.
      clock.advance(30 * day);
      const renewal = stripeEvent('invoice.paid', invoice(`in_second_${id}`, 'subscription_cycle', now() + 30 * day), { createdMs: now() });
      assert.equal((await send(renewal)).body.result, 'applied');
      assert.equal(await plan(buyer.id), 'pro');
      const updatedActive = stripeEvent('customer.subscription.updated', subscription('active', now() + 30 * day), { createdMs: now() });

      // Cancelled at the period's end in the portal; the older "active" update arrives after it.
      clock.advance(day);
      const cancelled = stripeEvent('customer.subscription.updated', subscription('active', now() + 29 * day, true), { createdMs: now() });
      assert.equal((await send(cancelled)).body.result, 'applied');
      assert.equal((await send(updatedActive)).body.result, 'ignored', 'an older event changes nothing');
      assert.equal(await plan(buyer.id), 'pro', 'paid until the period ends');

      // The period ends: Stripe deletes the subscription, the plan goes back to free.
      clock.advance(29 * day);
      const deleted = stripeEvent('customer.subscription.deleted', subscription('canceled', now()), { createdMs: now() });
      assert.equal((await send(deleted)).body.result, 'applied');
      assert.equal(await plan(buyer.id), 'free');
      assert.equal(await balance(buyer.id), 3, 'credits untouched by the plan');
      // A late "updated" after the deletion cannot revive it.
      assert.equal((await send(stripeEvent('customer.subscription.updated', subscription('active', now() + 30 * day), { createdMs: now() + 1000 }))).body.result, 'ignored');
      assert.equal(await plan(buyer.id), 'free');

      const ledger = await listLedger(db(), buyer.id);
      assert.equal(ledger.filter((e) => e.kind === 'payment').length, 2, 'two invoices paid');
      assert.ok(ledger.some((e) => e.kind === 'plan' && /plan pro ended/.test(e.reason) && e.stripeRef?.includes(subscriptionId)));
      await ledgerHolds(buyer.id);

      // The customer portal opens for this customer.
      const client = new PageClient(service.url);
      await client.logIn(buyer.email, PASSWORD);
      const billing = await client.get('/account/billing');
      assert.ok(billing.html.includes(`https://invoice.stripe.com/i/in_second_${id}`), 'the renewal’s receipt');
      const portal = await client.post('/account/billing/portal', { _csrf: /name="_csrf" value="([^"]+)"/.exec(billing.html)?.[1] ?? '' });
      assert.equal(portal.status, 303);
      assert.equal(portal.location, `${stub.url}/portal/${customer}`);
    });

    it('keeps a plan cancelled mid-period until the period ends, then housekeeping ends it', async () => {
      const buyer = await account();
      const id = unique();
      const subscriptionId = `sub_test_${id}`;
      const periodEnd = now() + 10 * 86_400_000;
      const object = (status: string) => ({
        id: subscriptionId,
        object: 'subscription',
        customer: `cus_${id}`,
        status,
        cancel_at_period_end: false,
        metadata: { account_id: buyer.id, product: 'plan_team' },
        items: { object: 'list', data: [{ current_period_end: Math.floor(periodEnd / 1000) }] },
      });
      await send(stripeEvent('customer.subscription.created', object('active'), { createdMs: now() }));
      assert.equal(await plan(buyer.id), 'team');
      clock.advance(1000);
      assert.equal((await send(stripeEvent('customer.subscription.deleted', object('canceled'), { createdMs: now() }))).body.result, 'applied');
      assert.equal(await plan(buyer.id), 'team', 'paid for ten more days');
      clock.set(periodEnd + 1);
      await service.housekeep();
      assert.equal(await plan(buyer.id), 'free');
      clock.set(Date.now());
    });

    it('takes a lifetime plan back on a full refund', async () => {
      const buyer = await account();
      const bought = packCompleted(buyer.id, 'plan_lifetime', 29900);
      assert.equal((await send(bought)).body.result, 'applied');
      assert.equal(await plan(buyer.id), 'lifetime');
      const paymentIntent = (bought.data.object as { payment_intent: string }).payment_intent;
      assert.equal((await send(stripeEvent('charge.refunded', charge(paymentIntent, 29900, 29900)))).body.result, 'applied');
      assert.equal(await plan(buyer.id), 'free');
    });

    it('grants nothing for a Checkout Session whose account no longer exists, and says so', async () => {
      const event = packCompleted('acc_deleted_long_ago', 'pack_500', 3000);
      const delivered = await send(event);
      assert.deepEqual(delivered, { status: 200, body: { received: true, result: 'ignored' } }, 'acknowledged, so Stripe stops retrying');
      const recorded = await db().selectFrom('stripe_events').selectAll().where('id', '=', event.id).executeTakeFirstOrThrow();
      assert.match(recorded.outcome, /account acc_deleted_long_ago no longer exists: nothing granted; refund payment pi_test_/);
      assert.equal(await db().selectFrom('purchases').select('id').where('checkout_session_id', '=', (event.data.object as { id: string }).id).executeTakeFirst(), undefined);
      assert.ok(service.logs.lines.some((line) => line.includes('"level":40') && line.includes(event.id)), 'logged as a warning for the operator');
      assert.equal((await send(event)).body.result, 'duplicate');
    });

    it('acknowledges events it does not handle, shows Stripe’s ids to the admin, and takes the admin’s prices to the next checkout', async () => {
      assert.equal((await send(stripeEvent('customer.created', { id: 'cus_x', object: 'customer' }))).body.result, 'ignored');
      const buyer = await account();
      const event = packCompleted(buyer.id);
      await send(event);
      const admin = await createAccount(db(), { email: `admin-${unique()}@example.com`, passwordHash: await hashPassword(PASSWORD) });
      await db().updateTable('accounts').set({ role: 'admin' }).where('id', '=', admin.id).execute();
      const client = new PageClient(service.url);
      await client.logIn(admin.email, PASSWORD);
      const page = await client.get(`/admin/accounts/${buyer.id}`);
      assert.equal(page.status, 200);
      assert.ok(page.html.includes(event.id), 'the event id in the ledger');
      assert.ok(page.html.includes((event.data.object as { payment_intent: string }).payment_intent), 'the payment id');
      assert.match(page.html, /credit pack of 50 bought with Stripe \(\$5\.00\)/);

      // Prices are data: the admin changes one, and the next checkout charges it.
      const form = await client.get('/admin/prices/pack_500');
      assert.equal(form.status, 200);
      const token = /name="_csrf" value="([^"]+)"/.exec(form.html)?.[1] ?? '';
      const refused = await client.post('/admin/prices/pack_500', { _csrf: token, amount: '27.5x', currency: 'usd', active: 'yes' });
      assert.equal(refused.status, 400);
      assert.match(refused.html, /Amount: a price such as 12\.00 in USD/);
      const saved = await client.post('/admin/prices/pack_500', { _csrf: token, amount: '27.50', currency: 'usd', active: 'yes' });
      assert.equal(saved.status, 200);
      assert.match(saved.html, /500 credits now costs \$27\.50/);
      const audit = await db().selectFrom('audit').selectAll().where('action', '=', 'price pack_500 changed').executeTakeFirstOrThrow();
      assert.equal(audit.detail, 'price $30.00 → $27.50');
      assert.equal(audit.actor, admin.email);
      const shopper = new PageClient(service.url);
      await shopper.logIn(buyer.email, PASSWORD);
      const billing = await shopper.get('/account/billing');
      assert.match(billing.html, /Buy 500 credits for \$27\.50/);
      const checkout = await shopper.post('/account/billing/checkout', { _csrf: /name="_csrf" value="([^"]+)"/.exec(billing.html)?.[1] ?? '', product: 'pack_500' });
      assert.equal(checkout.status, 303);
      assert.equal(stub.requests.at(-1)?.params.get('line_items[0][price_data][unit_amount]'), '2750');
      // Off sale: neither offered nor sold.
      await client.post('/admin/prices/pack_500', { _csrf: token, amount: '27.50', currency: 'usd', active: 'no' });
      assert.doesNotMatch((await shopper.get('/account/billing')).html, /Buy 500 credits/);
      const offSale = await shopper.post('/account/billing/checkout', { _csrf: /name="_csrf" value="([^"]+)"/.exec(billing.html)?.[1] ?? '', product: 'pack_500' });
      assert.equal(offSale.status, 400);
      await client.post('/admin/prices/pack_500', { _csrf: token, amount: '30.00', currency: 'usd', active: 'yes' });
    });
  });
}

describe('payments not configured', () => {
  it('answers the webhook 404 and every page says how to get credits from the operator', async () => {
    const { createSqliteDatabase } = await import('../helpers/stores.ts');
    const service = await startTestService(createSqliteDatabase());
    try {
      const delivered = await deliver(service.url, stripeEvent('checkout.session.completed', { id: 'cs_x' }));
      assert.equal(delivered.status, 404);
      assert.match(String(delivered.body.error), /payments are not configured/);
      const home = await (await fetch(service.url)).text();
      assert.match(home, /Payments are not set up on this service/);
      assert.doesNotMatch(home, /action="\/account\/billing\/checkout"/);
      const buyer = await createAccount(service.store.db, { email: 'nopay@example.com', credits: 0, passwordHash: await hashPassword(PASSWORD) });
      const client = new PageClient(service.url);
      await client.logIn(buyer.email, PASSWORD);
      const billing = await client.get('/account/billing');
      assert.match(billing.html, /contact the service&#39;s operator|contact the service's operator/);
      const refused = await client.post('/account/billing/checkout', { _csrf: /name="_csrf" value="([^"]+)"/.exec(billing.html)?.[1] ?? '', product: 'pack_50' });
      assert.equal(refused.status, 404);
      assert.match(refused.html, /Payments are not set up/);
      // The dashboard shows the packs' prices and its no-credit notice leads to the Billing page.
      const dashboard = await client.get('/account');
      assert.match(dashboard.html, /Credit packs: 50 for \$5\.00, 200 for \$15\.00, 500 for \$30\.00/);
      assert.match(dashboard.html, /No credits left[^<]*<a href="\/account\/billing">Buy credits on the Billing page<\/a>/);
      // So does the converter's no-credit refusal (the form posted without the script).
      const form = new FormData();
      form.append('_csrf', /name="_csrf" value="([^"]+)"/.exec((await client.get('/try')).html)?.[1] ?? '');
      form.append('image', new Blob([new Uint8Array(corpusFile('edge/tiny_tango_address_book_32.png'))], { type: 'image/png' }), 'icon.png');
      const noCredit = await client.postMultipart('/try', form);
      assert.equal(noCredit.status, 402);
      assert.match(noCredit.text, /No credits left[\s\S]*<a href="\/account\/billing">See credit packs and plans on the Billing page<\/a>/);
    } finally {
      await service.close();
      await service.database.drop();
    }
  });
});
