// Limits shared by several nodes through Redis (REDIS_URL set). One Lua script checks burst,
// concurrency and the daily quota and admits atomically, so nodes cannot race past a limit.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { DomainError } from '../errors.ts';
import { attemptsExceeded, burstExceeded, concurrencyExceeded, dailyQuotaExceeded, usedToday, type Limits, type LimitsDeps } from './limits.ts';

/**
 * KEYS[1] burst window (zset: admission id → time), KEYS[2] in flight (zset: admission id → lease end).
 * ARGV: now, burst (-1: none), concurrency (-1), quota (-1), used today, admission id, lease ms.
 * Returns {0} admitted, {1, wait ms} burst, {2} concurrency, {3} daily quota.
 */
const ADMIT = `
local now = tonumber(ARGV[1])
local burst, concurrency, quota = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if burst >= 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 1000)
  local count = redis.call('ZCARD', KEYS[1])
  if count >= burst then
    local entry = redis.call('ZRANGE', KEYS[1], count - burst, count - burst, 'WITHSCORES')
    return {1, tonumber(entry[2]) + 1000 - now}
  end
end
local running = redis.call('ZCARD', KEYS[2])
if concurrency >= 0 and running >= concurrency then return {2, 0} end
if quota >= 0 and tonumber(ARGV[5]) + running >= quota then return {3, 0} end
if burst >= 0 then
  redis.call('ZADD', KEYS[1], now, ARGV[6])
  redis.call('PEXPIRE', KEYS[1], 60000)
end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[7]), ARGV[6])
redis.call('PEXPIRE', KEYS[2], 86400000)
return {0, 0}
`;

/** An in-flight slot of a node that died frees itself after this; live nodes renew it. */
const SLOT_LEASE_MS = 30_000;
const SLOT_RENEW_MS = 10_000;

function unavailable(): DomainError {
  return new DomainError('unavailable', 'the limits store is unavailable; retry shortly', { retryAfterSeconds: 5 });
}

export async function createRedisLimits(url: string, prefix: string, deps: LimitsDeps): Promise<Limits> {
  // Fail fast while disconnected instead of queueing: a request gets 503, not a hang.
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', () => {
    // Reported per command as 503; ioredis reconnects by itself.
  });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(`REDIS_URL: cannot connect to Redis: ${(error as Error).message}`, { cause: error });
  }
  const burstKey = (accountId: string) => `${prefix}burst:${accountId}`;
  const inFlightKey = (accountId: string) => `${prefix}inflight:${accountId}`;
  const attemptsKey = (key: string) => `${prefix}attempts:${key}`;

  async function command<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch {
      throw unavailable();
    }
  }

  return {
    async admit(account) {
      const used = await usedToday(deps, account);
      const now = deps.now();
      const id = randomUUID();
      const { plan } = account;
      const [outcome, waitMs] = (await command(() =>
        redis.eval(
          ADMIT,
          2,
          burstKey(account.id),
          inFlightKey(account.id),
          now,
          plan.burstPerSecond ?? -1,
          plan.concurrency ?? -1,
          plan.dailyQuota ?? -1,
          used,
          id,
          SLOT_LEASE_MS,
        ),
      )) as [number, number];
      if (outcome === 1) throw burstExceeded(plan, waitMs);
      if (outcome === 2) throw concurrencyExceeded(plan);
      if (outcome === 3) throw dailyQuotaExceeded(plan, now);

      const renew = setInterval(() => {
        redis.zadd(inFlightKey(account.id), 'XX', deps.now() + SLOT_LEASE_MS, id).catch(() => {});
      }, SLOT_RENEW_MS);
      renew.unref();
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          clearInterval(renew);
          // If Redis is away now, the slot's lease frees it.
          await redis.zrem(inFlightKey(account.id), id).catch(() => {});
        },
      };
    },
    async checkAttempts(keys, policy) {
      const now = deps.now();
      for (const key of keys) {
        const oldest = await command(async () => {
          await redis.zremrangebyscore(attemptsKey(key), '-inf', now - policy.windowMs);
          // The failure whose leaving the window frees a place: max-th from the newest.
          return redis.zrevrange(attemptsKey(key), policy.max - 1, policy.max - 1, 'WITHSCORES');
        });
        if (oldest.length === 2) throw attemptsExceeded(Number(oldest[1]) + policy.windowMs - now);
      }
    },
    async recordFailure(keys, policy) {
      const now = deps.now();
      await command(async () => {
        const batch = redis.multi();
        for (const key of keys) {
          batch.zadd(attemptsKey(key), now, randomUUID());
          batch.pexpire(attemptsKey(key), policy.windowMs);
        }
        await batch.exec();
      });
    },
    async inFlight(accountId) {
      return command(async () => {
        await redis.zremrangebyscore(inFlightKey(accountId), '-inf', deps.now());
        return redis.zcard(inFlightKey(accountId));
      });
    },
    async close() {
      redis.disconnect();
    },
  };
}
