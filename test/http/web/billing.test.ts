// Pricing and billing in a real browser (Debian's Chromium through playwright-core), at desktop
// and phone width: the pricing section on the home page, buy buttons that lead (through log-in)
// to the Stripe stand-in's Checkout page, the purchases list with Stripe's receipts after the
// webhook, and, on a service without Stripe, the words on how to get credits from the operator.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { findAccountByEmail, createAccount } from '../../../src/accounts/accounts.ts';
import { hashPassword } from '../../../src/accounts/passwords.ts';
import { auditPage } from '../../helpers/a11y.ts';
import { chromiumSkip, launchBrowser, NAME_SHIM, SCREENSHOTS, VIEWPORTS } from '../../helpers/browser.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { charge, deliver, paidCheckoutSession, startStripeStub, stripeEnv, stripeEvent, type StripeStub } from '../../helpers/stripe.ts';
import { createSqliteDatabase } from '../../helpers/stores.ts';

const skip = chromiumSkip();
const PASSWORD = 'correct horse battery';

describe('pricing and billing in Chromium', { skip }, () => {
  let browser: Browser;
  let stub: StripeStub;
  let paying: TestService;
  let unpaid: TestService;

  before(async () => {
    stub = await startStripeStub();
    paying = await startTestService(createSqliteDatabase(), { env: stripeEnv(stub) });
    unpaid = await startTestService(createSqliteDatabase());
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    for (const service of [paying, unpaid]) {
      await service?.close();
      await service?.database.drop();
    }
    await stub?.close();
  });

  for (const viewport of VIEWPORTS) {
    it(`buys a pack from the home page's pricing section through Checkout, then lists it with its receipt (${viewport.name})`, async () => {
      const email = `shopper-${viewport.name}@example.com`;
      await createAccount(paying.store.db, { email, credits: 0, passwordHash: await hashPassword(PASSWORD) });
      const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
      await context.addInitScript({ content: NAME_SHIM });
      const page = await context.newPage();
      try {
        await page.goto(paying.url);
        const pricing = page.getByRole('heading', { name: 'Pricing' });
        assert.ok(await pricing.isVisible());
        for (const label of ['Buy 50 credits for $5.00', 'Buy 200 credits for $15.00', 'Buy 500 credits for $30.00', 'Subscribe to Pro for $12.00 a month', 'Buy Lifetime for $299.00']) {
          assert.ok(await page.getByRole('button', { name: label }).isVisible(), label);
        }
        assert.ok(await page.getByRole('cell', { name: '$39.00 a month' }).isVisible(), 'the plan list shows the price');
        await page.screenshot({ path: join(SCREENSHOTS, `${viewport.name}-billing-01-pricing.png`), fullPage: true });

        // Signed out, a buy button leads through log-in to the Billing page.
        await page.getByRole('button', { name: 'Buy 200 credits for $15.00' }).click();
        await page.waitForURL(/\/login/);
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Log in' }).click();
        await page.waitForURL(/\/account\/billing$/);
        assert.ok(await page.getByRole('heading', { name: 'Billing', exact: true }).isVisible());
        assert.ok(await page.getByText('No purchases yet.').isVisible());
        const audit = await page.evaluate(auditPage);
        assert.deepEqual(audit, { unlabelled: [], unnamedButtons: [], lowContrast: [], overflow: 0 });

        // Signed in, the home page's button goes straight to Stripe's (the stub's) Checkout.
        await page.goto(paying.url);
        await page.getByRole('button', { name: 'Buy 200 credits for $15.00' }).click();
        await page.waitForURL(new RegExp(`^${stub.url}/pay/cs_test_stub\\d+$`));
        assert.ok(await page.getByRole('heading', { name: /Stub Checkout cs_test_stub/ }).isVisible());
        const session = page.url().split('/').pop() ?? '';

        // Back on the success page before the webhook: nothing granted yet, and it says so.
        await page.goto(`${paying.url}/account/billing/success?session_id=${session}`);
        assert.ok(await page.getByRole('heading', { name: 'Your payment is being confirmed' }).isVisible());
        const account = await findAccountByEmail(paying.store.db, email);
        assert.equal(account?.credits, 0);

        // Stripe's webhook confirms it; the purchase shows with its receipt.
        const paymentIntent = `pi_test_${viewport.name}`;
        const paid = await deliver(paying.url, stripeEvent('checkout.session.completed', paidCheckoutSession(account!.id, 'pack_200', 1500, { session, paymentIntent })));
        assert.equal(paid.body.result, 'applied');
        await deliver(paying.url, stripeEvent('charge.succeeded', charge(paymentIntent, 1500)));
        await page.goto(`${paying.url}/account/billing/success?session_id=${session}`);
        assert.ok(await page.getByRole('heading', { name: 'Payment confirmed' }).isVisible());
        await page.getByRole('link', { name: 'Go to the Billing page' }).click();
        assert.equal(await page.locator('#billing-credits').textContent(), '200');
        const receipt = page.getByRole('link', { name: 'Receipt for 200 credits' });
        assert.equal(await receipt.getAttribute('href'), `https://pay.stripe.com/receipts/payment/ch_${paymentIntent.slice(3)}`);
        const row = page.locator('#purchases tbody tr').first();
        assert.match((await row.textContent()) ?? '', /200 credits\s*\$15\.00\s*paid/);
        assert.ok(await page.getByRole('button', { name: 'Manage subscription and payment details' }).isVisible(), 'the customer portal');
        await page.screenshot({ path: join(SCREENSHOTS, `${viewport.name}-billing-02-purchases.png`), fullPage: true });
        // The dashboard leads to it too.
        await page.goto(`${paying.url}/account`);
        await page.getByRole('link', { name: /Billing: buy credits or a plan/ }).click();
        await page.waitForURL(/\/account\/billing$/);
      } finally {
        await context.close();
      }
    });

    it(`says how to get credits from the operator when Stripe is not configured (${viewport.name})`, async () => {
      const email = `nostripe-${viewport.name}@example.com`;
      await createAccount(unpaid.store.db, { email, credits: 0, passwordHash: await hashPassword(PASSWORD) });
      const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
      const page = await context.newPage();
      try {
        await page.goto(unpaid.url);
        const message = page.locator('#operator-message');
        assert.ok(await message.isVisible());
        assert.match((await message.textContent()) ?? '', /Payments are not set up on this service\. To get credits or a paid plan, contact the service's operator/);
        assert.equal(await page.getByRole('button', { name: /^Buy|^Subscribe/ }).count(), 0, 'no buy buttons');
        assert.ok(await page.getByText('$5.00').isVisible(), 'the prices are still shown');
        await page.getByRole('link', { name: 'Log in' }).click();
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Log in' }).click();
        await page.waitForURL(/\/account$/);
        // The no-credit notice on the dashboard leads to the Billing page, which says the same.
        await page.getByRole('link', { name: 'Buy credits on the Billing page' }).click();
        assert.ok(await page.locator('#operator-message').isVisible());
        assert.equal(await page.getByRole('button', { name: /^Buy|^Subscribe/ }).count(), 0);
        assert.equal(await page.getByRole('button', { name: 'Manage subscription and payment details' }).count(), 0);
        await page.screenshot({ path: join(SCREENSHOTS, `${viewport.name}-billing-03-no-stripe.png`), fullPage: true });
      } finally {
        await context.close();
      }
    });
  }
});
