// The admin area: accounts with the admin role only; 404 for everyone else, logged in or not,
// so the area does not announce itself. Every change goes through src/accounts/admin.ts, which
// puts it in the ledger or the audit record with the admin's email.
import type { FastifyInstance } from 'fastify';
import { ACCOUNT_STATUSES, requireAccountById, searchAccounts, type Account } from '../../../accounts/accounts.ts';
import { changeAccount, editPlan, editPrice, grantCredits, revokeKeyOf } from '../../../accounts/admin.ts';
import { listAudit } from '../../../accounts/audit.ts';
import { CREDIT_PACKS, creditDebt, listLedger } from '../../../accounts/credits.ts';
import { listKeys } from '../../../accounts/keys.ts';
import { findPlan, listPlans, type Plan } from '../../../accounts/plans.ts';
import { latestConversions } from '../../../conversion/records.ts';
import { DomainError } from '../../../errors.ts';
import { currencyDigits, findPrice, formatMoney, listPrices, parseMoney, priceText, productName, type Price } from '../../../payments/prices.ts';
import { listPurchases, purchaseState } from '../../../payments/purchases.ts';
import { listSubscriptions } from '../../../payments/subscriptions.ts';
import { fidelityText, formatBytes, formatTime, formFields, queryText, type Pages } from '../pages.ts';

type IdParams = { Params: { id: string } };

/** `''` means no limit; anything else must be a whole number. */
function limitField(label: string, text: string | undefined): number | null {
  const value = (text ?? '').trim();
  if (value === '' || value.toLowerCase() === 'none') return null;
  if (!/^\d+$/.test(value)) throw new DomainError('invalid_input', `${label}: a whole number, or empty for no limit`);
  return Number(value);
}

export function adminRoutes(app: FastifyInstance, pages: Pages): void {
  const { render, submit, deps } = pages;

  app.register(async (admin) => {
    admin.addHook('preHandler', async (request, reply) => {
      if (request.signedIn?.role !== 'admin') {
        await render(request, reply, 'message', { title: 'Not found', heading: 'Page not found', text: 'There is no page at this address.' }, { status: 404, session: false });
        return reply;
      }
    });
    const adminOf = (account: Account | undefined) => (account as Account).email;

    admin.get<{ Querystring: { q?: unknown } }>('/admin', async (request, reply) => {
      const query = (queryText(request.query.q) ?? '').trim();
      const [accounts, plans, audit, prices] = await Promise.all([
        query === '' ? Promise.resolve([]) : searchAccounts(deps.db, query),
        listPlans(deps.db),
        listAudit(deps.db, undefined, 20),
        listPrices(deps.db),
      ]);
      return render(request, reply, 'admin', {
        title: 'Admin',
        query,
        accounts,
        plans,
        prices: prices.map((p) => ({ product: p.product, name: productName(p), price: priceText(p), active: p.active })),
        audit: audit.map((e) => ({ ...e, time: formatTime(e.createdAt) })),
      });
    });

    async function accountPage(id: string) {
      const target = await requireAccountById(deps.db, id);
      const [plans, keys, conversions, ledger, audit, purchases, subscriptions, debt] = await Promise.all([
        listPlans(deps.db),
        listKeys(deps.db, id),
        latestConversions(deps.db, id, 10),
        listLedger(deps.db, id, 100),
        listAudit(deps.db, id, 100),
        listPurchases(deps.db, id),
        listSubscriptions(deps.db, id),
        creditDebt(deps.db, id),
      ]);
      // One history, newest first: balance changes from the ledger, the rest from the audit record.
      const history = [
        ...ledger.map((e) => ({
          at: e.createdAt,
          change: `${e.delta > 0 ? '+' : ''}${e.delta} credit${Math.abs(e.delta) === 1 ? '' : 's'}`,
          what: `${e.kind}: ${e.reason}${e.conversionId ? ` (${e.conversionId})` : ''}`,
          by: /(?:added by|grant by) (.+)$/.exec(e.reason)?.[1] ?? (e.stripeRef ? 'Stripe' : ''),
          stripe: e.stripeRef ?? '',
        })),
        ...audit.map((e) => ({ at: e.createdAt, change: e.action, what: e.detail, by: e.actor, stripe: '' })),
      ]
        .sort((a, b) => b.at - a.at)
        .map((h) => ({ ...h, time: formatTime(h.at) }));
      return {
        title: target.email,
        target,
        plans,
        statuses: ACCOUNT_STATUSES,
        packs: CREDIT_PACKS,
        keys: keys.map((k) => ({
          name: k.name,
          prefix: k.prefix,
          created: formatTime(k.createdAt),
          lastUsed: formatTime(k.lastUsedAt),
          revoked: k.revokedAt === null ? null : formatTime(k.revokedAt),
        })),
        conversions: conversions.map((c) => ({ ...c, size: formatBytes(c.fileSize), time: formatTime(c.createdAt), fidelityText: fidelityText(c.fidelity) })),
        history,
        debt,
        purchases: purchases.map((p) => ({
          time: formatTime(p.createdAt),
          what: p.credits > 0 ? `${p.credits} credits` : `plan ${p.plan ?? ''}`,
          amount: p.amount !== null && p.currency ? formatMoney(p.amount, p.currency) : '',
          state: purchaseState(p),
          reversed: p.creditsReversed,
          stripe: [p.checkoutSessionId, p.id, p.chargeId, p.subscriptionId].filter((v, i, all) => v && all.indexOf(v) === i).join(' '),
          receiptUrl: p.receiptUrl && /^https?:\/\//.test(p.receiptUrl) ? p.receiptUrl : null,
        })),
        subscriptions: subscriptions.map((s) => ({
          ...s,
          periodEnd: s.currentPeriodEnd === null ? '' : formatTime(s.currentPeriodEnd),
          ends: s.endsAt === null ? '' : formatTime(s.endsAt),
        })),
      };
    }

    admin.get<IdParams>('/admin/accounts/:id', async (request, reply) => {
      return render(request, reply, 'admin-account', await accountPage(request.params.id));
    });

    /** One admin form on the account page: run it, then show the page again (or the refusal on it). */
    function accountForm(path: string, names: string[], run: (id: string, actor: string, fields: Record<string, string>) => Promise<string>) {
      admin.post<IdParams>(`/admin/accounts/:id/${path}`, async (request, reply) => {
        const fields = formFields(request.body, ['_csrf', ...names]);
        const page = await accountPage(request.params.id);
        return submit(request, reply, { template: 'admin-account', title: page.title, values: fields, data: page, csrfToken: fields._csrf }, async () => {
          const notice = await run(request.params.id, adminOf(request.signedIn), fields);
          return render(request, reply, 'admin-account', { ...(await accountPage(request.params.id)), notice });
        });
      });
    }

    accountForm('plan', ['plan'], async (id, actor, f) => `Plan changed to ${(await changeAccount(deps.db, actor, id, { plan: f.plan }, deps.now())).plan.name}.`);
    accountForm('status', ['status'], async (id, actor, f) => {
      const changed = await changeAccount(deps.db, actor, id, { status: f.status }, deps.now());
      // A ban ends the account's sessions at once (the session hook refuses them anyway).
      if (changed.status === 'banned') await deps.sessionStore.destroyAccount(id);
      return `Status changed to ${changed.status}.`;
    });
    accountForm('credits', ['amount'], async (id, actor, f) => {
      const amount = (f.amount ?? '').trim();
      if (!/^\d+$/.test(amount) || Number(amount) < 1) throw new DomainError('invalid_input', 'credits to add: a whole number of at least 1');
      return `Added ${amount} credits; the balance is ${await grantCredits(deps.db, actor, id, { amount: Number(amount) }, deps.now())}.`;
    });
    accountForm('pack', ['pack'], async (id, actor, f) => {
      const pack = Number(f.pack);
      return `Added a pack of ${pack} credits; the balance is ${await grantCredits(deps.db, actor, id, { pack }, deps.now())}.`;
    });
    accountForm('keys/revoke', ['prefix'], async (id, actor, f) => `Key ${(await revokeKeyOf(deps.db, actor, id, f.prefix ?? '', deps.now())).prefix} revoked.`);

    async function planPage(name: string): Promise<{ title: string; plan: Plan; values: Record<string, string> }> {
      const plan = await findPlan(deps.db, name);
      if (!plan) throw new DomainError('not_found', `no plan named ${JSON.stringify(name)}`);
      const text = (value: number | null) => (value === null ? '' : String(value));
      return {
        title: `The ${plan.name} plan`,
        plan,
        values: { dailyQuota: text(plan.dailyQuota), burstPerSecond: text(plan.burstPerSecond), concurrency: text(plan.concurrency) },
      };
    }

    async function pricePage(product: string): Promise<{ title: string; price: Price; name: string; values: Record<string, string> }> {
      const price = await findPrice(deps.db, product);
      if (!price) throw new DomainError('not_found', `no product named ${JSON.stringify(product)}`);
      const digits = currencyDigits(price.currency);
      return {
        title: `Price of ${productName(price)}`,
        price,
        name: productName(price),
        values: { amount: (price.unitAmount / 10 ** digits).toFixed(digits), currency: price.currency, active: price.active ? 'yes' : 'no' },
      };
    }

    admin.get<{ Params: { product: string } }>('/admin/prices/:product', async (request, reply) => render(request, reply, 'admin-price', await pricePage(request.params.product)));

    admin.post<{ Params: { product: string } }>('/admin/prices/:product', async (request, reply) => {
      const fields = formFields(request.body, ['_csrf', 'amount', 'currency', 'active']);
      const page = await pricePage(request.params.product);
      return submit(request, reply, { template: 'admin-price', title: page.title, values: fields, data: { price: page.price, name: page.name }, csrfToken: fields._csrf }, async () => {
        const currency = (fields.currency ?? '').trim().toLowerCase();
        const price = await editPrice(
          deps.db,
          adminOf(request.signedIn),
          page.price.product,
          { currency, unitAmount: parseMoney(fields.amount ?? '', currency || page.price.currency), active: fields.active === 'yes' },
          deps.now(),
        );
        return render(request, reply, 'admin-price', { ...(await pricePage(price.product)), notice: `${productName(price)} now costs ${priceText(price)}${price.active ? '' : ' (off sale)'}.` });
      });
    });

    admin.get<{ Params: { name: string } }>('/admin/plans/:name', async (request, reply) => render(request, reply, 'admin-plan', await planPage(request.params.name)));

    admin.post<{ Params: { name: string } }>('/admin/plans/:name', async (request, reply) => {
      const fields = formFields(request.body, ['_csrf', 'dailyQuota', 'burstPerSecond', 'concurrency']);
      const page = await planPage(request.params.name);
      return submit(request, reply, { template: 'admin-plan', title: page.title, values: fields, data: { plan: page.plan }, csrfToken: fields._csrf }, async () => {
        const plan = await editPlan(
          deps.db,
          adminOf(request.signedIn),
          page.plan.name,
          {
            dailyQuota: limitField('Daily quota', fields.dailyQuota),
            burstPerSecond: limitField('Burst', fields.burstPerSecond),
            concurrency: limitField('Concurrency', fields.concurrency),
          },
          deps.now(),
        );
        return render(request, reply, 'admin-plan', { ...(await planPage(plan.name)), notice: `The ${plan.name} plan is saved.` });
      });
    });
  });
}
