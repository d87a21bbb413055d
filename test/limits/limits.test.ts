// Plan limits over real HTTP, with an injected clock for the burst window and the daily reset.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { findAccountByEmail, updateAccount } from '../../src/accounts/accounts.ts';
import { ledgerSum } from '../../src/accounts/credits.ts';
import { updatePlan } from '../../src/accounts/plans.ts';
import { secondsUntilNextUtcDay } from '../../src/limits/limits.ts';
import { corpusFile, postVectorize, type JsonResponse } from '../helpers/http.ts';
import { startTestService, testClock, type TestService } from '../helpers/service.ts';
import { limitsBackends } from '../helpers/stores.ts';
import { holdUpload, waitFor } from '../helpers/upload.ts';

const PNG = corpusFile('edge/tiny_tango_address_book_32.png');
const FREE_DEFAULTS = { dailyQuota: 5, burstPerSecond: 2, concurrency: 1 };

function assertRefused(res: JsonResponse, kind: string, seconds: number): void {
  assert.equal(res.status, 429, JSON.stringify(res.body));
  assert.equal(res.headers.get('retry-after'), String(seconds));
  assert.match(String(res.body.error), new RegExp(`retry after ${seconds} seconds`));
  assert.match(String(res.body.error), new RegExp(kind === 'daily_quota' ? 'daily quota' : kind));
}

for (const backend of await limitsBackends()) {
  describe(`plan limits (${backend.name})`, { skip: backend.skip }, () => {
    const clock = testClock(Date.UTC(2026, 10, 21, 12, 0, 0, 0));
    let service: TestService;
    let n = 0;
    let email: string;
    let key: string;

    before(async () => {
      // Node capacity apart: one account's share of the upload slots (half of 32) holds the
      // eight parallel conversions of an unlimited plan below.
      service = await startTestService(await backend.createDatabase(), { now: clock.now, env: { ...backend.env(), MAX_CONCURRENT_UPLOADS: '32' } });
    });
    after(async () => {
      await service.close();
      await service.database.drop();
      await backend.cleanup();
    });
    beforeEach(async () => {
      await updatePlan(service.store.db, 'free', FREE_DEFAULTS);
      await updatePlan(service.store.db, 'pro', { dailyQuota: 100, burstPerSecond: null, concurrency: null });
      clock.advance(86_400_000);
      n += 1;
      email = `limits${n}@example.com`;
      key = await service.accountWithKey(email, { credits: 50 });
    });

    it('refuses the third request within a second on free (burst 2/s), then lets it through', async () => {
      assert.equal((await postVectorize(service.url, key, { image: PNG })).status, 200);
      clock.advance(300);
      assert.equal((await postVectorize(service.url, key, { image: PNG })).status, 200);
      clock.advance(300);
      const refused = await postVectorize(service.url, key, { image: PNG });
      assertRefused(refused, 'burst', 1);
      assert.equal(refused.body.limit, 'burst');
      clock.advance(400); // the first admission leaves the one-second window
      assert.equal((await postVectorize(service.url, key, { image: PNG })).status, 200);
    });

    it('takes a plan change on the very next request', async () => {
      await postVectorize(service.url, key, { image: PNG });
      await postVectorize(service.url, key, { image: PNG });
      assertRefused(await postVectorize(service.url, key, { image: PNG }), 'burst', 1);
      await updatePlan(service.store.db, 'free', { burstPerSecond: 3 });
      assert.equal((await postVectorize(service.url, key, { image: PNG })).status, 200);
      await updatePlan(service.store.db, 'free', { burstPerSecond: null });
      assert.equal((await postVectorize(service.url, key, { image: PNG })).status, 200);
    });

    it('allows one conversion in flight on free and refuses the second with a short wait', async () => {
      const account = await findAccountByEmail(service.store.db, email);
      const held = holdUpload(service.url, key, PNG);
      await waitFor(async () => (await service.limits.inFlight(account!.id)) === 1, 10_000, 'the held upload to be admitted');
      clock.advance(1000);
      assertRefused(await postVectorize(service.url, key, { image: PNG }), 'concurrency', 1);
      const done = await held.finish();
      assert.equal(done.status, 200, JSON.stringify(done.body));
      clock.advance(1000);
      assert.equal((await postVectorize(service.url, key, { image: PNG })).status, 200);
    });

    it('counts only successful conversions toward the daily quota and resets at UTC midnight', async () => {
      await updatePlan(service.store.db, 'free', { burstPerSecond: null });
      const day = Math.floor(clock.now() / 86_400_000) * 86_400_000;
      clock.set(day + 86_400_000 - 10_500); // 23:59:49.500 UTC
      for (let i = 0; i < 5; i += 1) {
        assert.equal((await postVectorize(service.url, key, { image: Buffer.from('not an image') })).status, 400);
        assert.equal((await postVectorize(service.url, key, { image: PNG })).status, 200);
      }
      const refused = await postVectorize(service.url, key, { image: PNG });
      assertRefused(refused, 'daily_quota', 11);
      assert.equal(refused.body.limit, 'daily_quota');
      clock.set(day + 86_400_000); // 00:00:00.000 the next day
      assert.equal((await postVectorize(service.url, key, { image: PNG })).status, 200);
      const account = await findAccountByEmail(service.store.db, email);
      assert.equal(account?.credits, 50 - 6);
      assert.equal(await ledgerSum(service.store.db, account!.id), 50 - 6);
    });

    it('applies the daily quota to pro, without burst or concurrency limits', async () => {
      await updateAccount(service.store.db, (await findAccountByEmail(service.store.db, email))!.id, { plan: 'pro' });
      await updatePlan(service.store.db, 'pro', { dailyQuota: 3 });
      const results = await Promise.all(Array.from({ length: 6 }, () => postVectorize(service.url, key, { image: PNG })));
      assert.equal(results.filter((r) => r.status === 200).length, 3);
      for (const r of results.filter((r) => r.status !== 200)) assert.equal(r.body.limit, 'daily_quota');
      assert.ok(results.every((r) => r.status !== 200 || r.body.credits_remaining === null));
    });

    it('lifts every limit on lifetime', async () => {
      await updateAccount(service.store.db, (await findAccountByEmail(service.store.db, email))!.id, { plan: 'lifetime' });
      const results = await Promise.all(Array.from({ length: 8 }, () => postVectorize(service.url, key, { image: PNG })));
      assert.deepEqual(results.map((r) => r.status), Array(8).fill(200));
    });

    describe('order of checks', () => {
      it('account status comes before burst', async () => {
        await postVectorize(service.url, key, { image: PNG });
        await postVectorize(service.url, key, { image: PNG });
        await updateAccount(service.store.db, (await findAccountByEmail(service.store.db, email))!.id, { status: 'suspended' });
        assert.equal((await postVectorize(service.url, key, { image: PNG })).status, 403);
      });
      it('burst comes before reading the upload', async () => {
        await postVectorize(service.url, key, { image: PNG });
        await postVectorize(service.url, key, { image: PNG });
        assertRefused(await postVectorize(service.url, key, {}), 'burst', 1);
      });
      it('the daily quota comes before credits, and credits before the upload', async () => {
        await updatePlan(service.store.db, 'free', { burstPerSecond: null, dailyQuota: 1 });
        const broke = await service.accountWithKey(`broke${n}@example.com`, { credits: 1 });
        assert.equal((await postVectorize(service.url, broke, { image: PNG })).status, 200);
        assertRefused(await postVectorize(service.url, broke, { image: PNG }), 'daily_quota', secondsUntilNextUtcDay(clock.now()));
        await updatePlan(service.store.db, 'free', { dailyQuota: null });
        const res = await postVectorize(service.url, broke, {});
        assert.equal(res.status, 402);
        assert.deepEqual([res.body.error, res.body.credits_remaining], ['insufficient_credits', 0]);
      });
    });

    it('refunds and frees the slot when the client disconnects mid-upload', async () => {
      const account = await findAccountByEmail(service.store.db, email);
      const held = holdUpload(service.url, key, PNG);
      await waitFor(async () => (await service.limits.inFlight(account!.id)) === 1, 10_000, 'admission');
      held.abort();
      await waitFor(async () => (await service.limits.inFlight(account!.id)) === 0, 10_000, 'the slot to be released');
      const states = await service.store.db.selectFrom('reservations').select('state').where('account_id', '=', account!.id).execute();
      assert.deepEqual(states.map((s) => s.state), ['refunded']);
      assert.equal((await findAccountByEmail(service.store.db, email))?.credits, 50);
      assert.equal(await ledgerSum(service.store.db, account!.id), 50);
      clock.advance(1000);
      assert.equal((await postVectorize(service.url, key, { image: PNG })).status, 200);
    });
  });
}
