// GET /api/v1/account over real HTTP: the key's account, its plan's limits (null where none),
// today's conversions and when the quota resets, for live and test keys; 401 and 403 as for the
// other endpoints.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount, updateAccount } from '../../src/accounts/accounts.ts';
import { createKey } from '../../src/accounts/keys.ts';
import { corpusFile, postVectorize } from '../helpers/http.ts';
import { startTestService, testClock, type TestService } from '../helpers/service.ts';
import { createSqliteDatabase } from '../helpers/stores.ts';

const IMAGE = corpusFile('edge/tiny_tango_address_book_32.png');

describe('GET /api/v1/account', () => {
  const clock = testClock(Date.UTC(2026, 10, 21, 22, 15, 0, 0));
  let service: TestService;

  before(async () => {
    service = await startTestService(createSqliteDatabase(), { now: clock.now });
  });
  after(async () => {
    await service?.close();
    await service?.database.drop();
  });

  async function account(key: string) {
    const response = await fetch(`${service.url}/api/v1/account`, { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
  }

  it('describes a free account, and counts today’s conversions', async () => {
    const key = await service.accountWithKey('free@example.com', { credits: 7 });
    const before = await account(key);
    assert.equal(before.status, 200);
    assert.deepEqual(before.body, {
      plan: 'free',
      status: 'active',
      credits_remaining: 7,
      conversions_today: 0,
      daily_quota: 5,
      quota_resets_at: '2026-11-22T00:00:00.000Z',
      burst_per_second: 2,
      concurrency: 1,
      test_key: false,
      test_keys: { conversions_today: 0, daily_cap: 50, burst_per_second: 1, concurrency: 1 },
    });
    assert.equal((await postVectorize(service.url, key, { image: IMAGE })).status, 200);
    const afterOne = await account(key);
    assert.equal(afterOne.body.conversions_today, 1);
    assert.equal(afterOne.body.credits_remaining, 6);
    // Past midnight UTC the count starts again.
    clock.advance(2 * 3_600_000);
    const tomorrow = await account(key);
    assert.equal(tomorrow.body.conversions_today, 0);
    assert.equal(tomorrow.body.quota_resets_at, '2026-11-23T00:00:00.000Z');
  });

  it('has nulls where a plan is unlimited', async () => {
    const pro = await account(await service.accountWithKey('pro@example.com', { plan: 'pro' }));
    assert.equal(pro.body.plan, 'pro');
    assert.equal(pro.body.credits_remaining, null);
    assert.equal(pro.body.daily_quota, 100);
    assert.equal(pro.body.burst_per_second, null);
    assert.equal(pro.body.concurrency, null);
    const lifetime = await account(await service.accountWithKey('lifetime@example.com', { plan: 'lifetime' }));
    assert.equal(lifetime.body.daily_quota, null);
    assert.equal(lifetime.body.credits_remaining, null);
  });

  it('answers a test key, with the test conversions apart', async () => {
    const holder = await createAccount(service.store.db, { email: 'tests@example.com', credits: 3 });
    const { key } = await createKey(service.store.db, holder.id, 'ci', clock.now(), { test: true });
    service.logs.secrets.add(key);
    assert.equal((await postVectorize(service.url, key, { image: IMAGE })).status, 200);
    const seen = await account(key);
    assert.equal(seen.body.test_key, true);
    assert.equal(seen.body.conversions_today, 0, 'test conversions count toward no plan quota');
    assert.deepEqual(seen.body.test_keys, { conversions_today: 1, daily_cap: 50, burst_per_second: 1, concurrency: 1 });
    assert.equal(seen.body.credits_remaining, 3);
  });

  it('refuses a missing or revoked key with 401 and a suspended account with 403', async () => {
    const missing = await fetch(`${service.url}/api/v1/account`);
    assert.equal(missing.status, 401);
    assert.equal(missing.headers.get('www-authenticate'), 'Bearer');
    assert.equal((await account('vk_notAKeyAtAll1234567890')).status, 401);
    const holder = await createAccount(service.store.db, { email: 'suspended@example.com' });
    const { key } = await createKey(service.store.db, holder.id, undefined);
    service.logs.secrets.add(key);
    await updateAccount(service.store.db, holder.id, { status: 'suspended' });
    const refused = await account(key);
    assert.equal(refused.status, 403);
    assert.match(String(refused.body.error), /suspended/);
  });
});
