// GET /api/v1/account: what the key's account may do now: plan, status, credits, today's use
// against the daily quota and when it resets, the burst and concurrency limits. Null where the
// plan sets no limit. The key's own kind and the test keys' limits come with it.
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { countConversionsSince } from '../../conversion/records.ts';
import { startOfUtcDay } from '../../limits/limits.ts';
import { TEST_KEY_LIMITS } from '../../limits/test-keys.ts';
import type { Schema } from '../../store/schema.ts';
import { accountSchema } from './schemas.ts';

const DAY_MS = 86_400_000;

export function accountRoutes(app: FastifyInstance, deps: { db: Kysely<Schema>; now: () => number }): void {
  app.get('/api/v1/account', { schema: accountSchema }, async (request) => {
    const { account } = request;
    const { plan } = account;
    const now = deps.now();
    const today = startOfUtcDay(now);
    const [live, test] = await Promise.all([
      countConversionsSince(deps.db, account.id, today, false),
      countConversionsSince(deps.db, account.id, today, true),
    ]);
    return {
      plan: plan.name,
      status: account.status,
      credits_remaining: plan.metered ? account.credits : null,
      conversions_today: live,
      daily_quota: plan.dailyQuota,
      quota_resets_at: new Date(today + DAY_MS).toISOString(),
      burst_per_second: plan.burstPerSecond,
      concurrency: plan.concurrency,
      test_key: request.testKey,
      test_keys: {
        conversions_today: test,
        daily_cap: TEST_KEY_LIMITS.dailyQuota,
        burst_per_second: TEST_KEY_LIMITS.burstPerSecond,
        concurrency: TEST_KEY_LIMITS.concurrency,
      },
    };
  });
}
