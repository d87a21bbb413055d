// The attempt throttle of both limits backends: atomic check-and-count over several keys, the
// sliding window, growing delays, and a cancelled attempt that stops counting.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { LimitExceeded, type AttemptRule, type Limits } from '../../src/limits/limits.ts';
import { createMemoryLimits } from '../../src/limits/memory.ts';
import { createRedisLimits } from '../../src/limits/redis.ts';
import { connectRedis, type Redis } from '../../src/store/redis.ts';
import { testClock } from '../helpers/service.ts';
import { redisProblem, REDIS_TEST_URL } from '../helpers/stores.ts';

const redisSkip = (await redisProblem()) ?? false;
if (redisSkip && process.env.REQUIRE_REDIS === '1') throw new Error(`${redisSkip} (REQUIRE_REDIS=1)`);

const backends: { name: string; skip: string | false; open(now: () => number): Promise<{ limits: Limits; close(): Promise<void> }> }[] = [
  {
    name: 'memory',
    skip: false,
    open: async (now) => ({ limits: createMemoryLimits({ now, countSuccessesSince: async () => 0 }), close: async () => {} }),
  },
  {
    name: 'redis',
    skip: redisSkip,
    async open(now) {
      const redis: Redis = await connectRedis(REDIS_TEST_URL);
      const prefix = `vectorize-test-attempts-${process.pid}-${randomBytes(4).toString('hex')}:`;
      return {
        limits: createRedisLimits(redis, prefix, { now, countSuccessesSince: async () => 0 }),
        async close() {
          const keys = await redis.keys(`${prefix}*`);
          if (keys.length > 0) await redis.del(...keys);
          redis.disconnect();
        },
      };
    },
  },
];

const waitOf = async (attempt: Promise<unknown>): Promise<number | 'passed'> => {
  try {
    await attempt;
    return 'passed';
  } catch (error) {
    assert.ok(error instanceof LimitExceeded, String(error));
    return error.retryAfterSeconds;
  }
};

for (const backend of backends) {
  describe(`attempt throttle (${backend.name})`, { skip: backend.skip }, () => {
    const clock = testClock(Date.UTC(2026, 10, 21, 12, 0, 0, 0));
    let limits: Limits;
    let close: () => Promise<void>;
    before(async () => {
      ({ limits, close } = await backend.open(clock.now));
    });
    after(async () => {
      await close();
    });

    it('lets exactly `max` of 50 concurrent attempts through, and the rest wait for the oldest to leave the window', async () => {
      const rule: AttemptRule = { key: 'race', max: 10, windowMs: 60_000 };
      const outcomes = await Promise.all(Array.from({ length: 50 }, () => waitOf(limits.reserveAttempt('attempts', [rule]))));
      assert.equal(outcomes.filter((o) => o === 'passed').length, 10);
      assert.ok(outcomes.filter((o) => o !== 'passed').every((o) => o === 60));
      clock.advance(60_000);
      assert.equal(await waitOf(limits.reserveAttempt('attempts', [rule])), 'passed', 'the window slid');
    });

    it('counts in every key or in none', async () => {
      const full: AttemptRule = { key: 'full', max: 1, windowMs: 10_000 };
      const free: AttemptRule = { key: 'free', max: 1, windowMs: 10_000 };
      await limits.reserveAttempt('attempts', [full]);
      assert.equal(await waitOf(limits.reserveAttempt('signups', [free, full])), 10);
      assert.equal(await waitOf(limits.reserveAttempt('attempts', [free])), 'passed', 'the refused attempt was not counted in `free`');
    });

    it('asks growing delays after the free attempts, capped', async () => {
      const rule: AttemptRule = { key: 'slow', max: 100, windowMs: 3_600_000, delay: { after: 2, baseMs: 1000, maxMs: 5000 } };
      for (let i = 0; i < 2; i++) assert.equal(await waitOf(limits.reserveAttempt('attempts', [rule])), 'passed');
      for (const wait of [1, 2, 4, 5, 5]) {
        assert.equal(await waitOf(limits.reserveAttempt('attempts', [rule])), wait);
        clock.advance(wait * 1000 - 1);
        assert.equal(await waitOf(limits.reserveAttempt('attempts', [rule])), 1, 'a millisecond early');
        clock.advance(1);
        assert.equal(await waitOf(limits.reserveAttempt('attempts', [rule])), 'passed');
      }
    });

    it('forgets a cancelled attempt (a right password), in every key', async () => {
      const rules: AttemptRule[] = [
        { key: 'pair', max: 2, windowMs: 60_000 },
        { key: 'address', max: 2, windowMs: 60_000 },
      ];
      const first = await limits.reserveAttempt('attempts', rules);
      await limits.reserveAttempt('attempts', rules);
      assert.notEqual(await waitOf(limits.reserveAttempt('attempts', rules)), 'passed');
      await first.cancel();
      assert.equal(await waitOf(limits.reserveAttempt('attempts', rules)), 'passed');
    });

    it('names its kind in the refusal', async () => {
      const rule: AttemptRule = { key: 'kind', max: 0, windowMs: 1000 };
      await assert.rejects(limits.reserveAttempt('mails', [rule]), (error) => error instanceof LimitExceeded && error.kind === 'mails' && /too many mails/.test(error.message));
    });
  });
}
