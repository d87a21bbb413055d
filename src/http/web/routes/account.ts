// The dashboard and the API Keys page of the logged-in account.
import type { FastifyInstance } from 'fastify';
import { createKey, listKeys, revokeAccountKey, type ApiKeyInfo } from '../../../accounts/keys.ts';
import { conversionsPerDay, countConversionsSince, latestConversions } from '../../../conversion/records.ts';
import { downloadableUntil, DOWNLOAD_RETENTION_MS } from '../../../conversion/sources.ts';
import { DomainError } from '../../../errors.ts';
import { secondsUntilNextUtcDay, startOfUtcDay } from '../../../limits/limits.ts';
import { TEST_KEY_LIMITS } from '../../../limits/test-keys.ts';
import { listPrices, priceText } from '../../../payments/prices.ts';
import { conversionsChart } from '../chart.ts';
import { fidelityText, formatBytes, formatTime, formFields, planLabel, type Pages } from '../pages.ts';
import { downloadLinks } from '../download-links.ts';

const CHART_DAYS = 30;

function keyRows(keys: ApiKeyInfo[]) {
  return keys.map((k) => ({
    name: k.name,
    prefix: k.prefix,
    created: formatTime(k.createdAt),
    lastUsed: formatTime(k.lastUsedAt),
    revoked: k.revokedAt === null ? null : formatTime(k.revokedAt),
    test: k.test,
  }));
}

function duration(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return hours > 0 ? `${hours} h ${minutes} min` : `${minutes} min`;
}

export function accountRoutes(app: FastifyInstance, pages: Pages): void {
  const { render, submit, requireSignedIn, deps } = pages;

  app.get('/account', async (request, reply) => {
    const account = requireSignedIn(request, reply);
    if (!account) return reply;
    const now = deps.now();
    const [used, days, latest, prices] = await Promise.all([
      countConversionsSince(deps.db, account.id, startOfUtcDay(now)),
      conversionsPerDay(deps.db, account.id, now, CHART_DAYS),
      latestConversions(deps.db, account.id, 10),
      listPrices(deps.db, { activeOnly: true }),
    ]);
    // The converter's results still kept offer their downloads (issue 20).
    const downloadable = await downloadableUntil(deps.db, account.id, latest.map((c) => c.id), now - DOWNLOAD_RETENTION_MS, DOWNLOAD_RETENTION_MS);
    const resetsIn = secondsUntilNextUtcDay(now);
    return render(request, reply, 'account', {
      title: 'Dashboard',
      account,
      // Free credits wait for the email's proof; the dashboard offers the link again.
      unverified: !account.emailVerified,
      freeCredits: account.plan.signupCredits,
      planLabel: planLabel(account.plan.name),
      today: {
        used,
        quota: account.plan.dailyQuota,
        resetsAt: `${new Date(startOfUtcDay(now) + 86_400_000).toISOString().slice(0, 16).replace('T', ' ')} UTC`,
        resetsIn: duration(resetsIn),
      },
      chart: conversionsChart(days),
      // The prices, in a line: the Billing page has the buttons.
      packPrices: prices.filter((p) => p.kind === 'pack').map((p) => `${p.credits} for ${priceText(p)}`).join(', '),
      conversions: latest.map((c) => ({
        ...c,
        size: formatBytes(c.fileSize),
        time: formatTime(c.createdAt),
        iso: new Date(c.createdAt).toISOString(),
        fidelityText: fidelityText(c.fidelity),
        downloads: downloadable.has(c.id) ? downloadLinks(c.id, c.originalName) : undefined,
        downloadsUntil: downloadable.has(c.id) ? formatTime(downloadable.get(c.id) ?? null) : undefined,
      })),
    });
  });

  async function keysPage(accountId: string) {
    return { title: 'API Keys', script: 'keys.js', keys: keyRows(await listKeys(deps.db, accountId)), testLimits: TEST_KEY_LIMITS };
  }

  app.get<{ Querystring: { revoked?: unknown } }>('/account/keys', async (request, reply) => {
    const account = requireSignedIn(request, reply);
    if (!account) return reply;
    const page = await keysPage(account.id);
    // After a revocation (its redirect): said only of a key of this account that is revoked.
    const revoked = request.query.revoked;
    const key = typeof revoked === 'string' ? page.keys.find((k) => k.prefix === revoked && k.revoked !== null) : undefined;
    return render(request, reply, 'keys', { ...page, ...(key ? { notice: `The key ${key.prefix} is revoked.` } : {}) });
  });

  app.post('/account/keys', async (request, reply) => {
    const account = requireSignedIn(request, reply);
    if (!account) return reply;
    const fields = formFields(request.body, ['_csrf', 'name', 'test']);
    return submit(
      request,
      reply,
      { template: 'keys', title: 'API Keys', values: { name: fields.name ?? '', test: fields.test ?? '' }, data: await keysPage(account.id), csrfToken: fields._csrf },
      async () => {
        // A suspended account keeps its dashboard and may revoke keys, but gets no new ones.
        if (account.status !== 'active') throw new DomainError('account_inactive', `account ${account.status}: it cannot create API keys`, { accountStatus: account.status });
        const { key } = await createKey(deps.db, account.id, fields.name, deps.now(), { test: fields.test === 'yes' });
        // Shown in this answer only: the store keeps its hash, this page is not cached.
        return render(request, reply, 'keys', { ...(await keysPage(account.id)), newKey: key, newKeyName: fields.name?.trim() ?? '', newKeyTest: fields.test === 'yes' });
      },
    );
  });

  app.post('/account/keys/revoke', async (request, reply) => {
    const account = requireSignedIn(request, reply);
    if (!account) return reply;
    const fields = formFields(request.body, ['_csrf', 'prefix', 'confirm']);
    return submit(
      request,
      reply,
      { template: 'keys', title: 'API Keys', values: {}, data: await keysPage(account.id), csrfToken: fields._csrf },
      async () => {
        const key = (await listKeys(deps.db, account.id)).find((k) => k.prefix === fields.prefix && k.revokedAt === null);
        if (!key) throw new DomainError('not_found', 'no such key on this account, or it is already revoked');
        if (fields.confirm !== 'yes') return render(request, reply, 'keys-revoke', { title: 'Revoke this key?', key });
        await revokeAccountKey(deps.db, account.id, key.prefix, deps.now());
        // Post/redirect/get: a reload of the answer shows the list, and posts nothing again.
        return reply.redirect(`/account/keys?revoked=${encodeURIComponent(key.prefix)}`, 303);
      },
    );
  });
}
