// Limits shared by several nodes through Redis (REDIS_URL set). One Lua script checks burst,
// concurrency and the daily quota and admits atomically, so nodes cannot race past a limit.
import { randomUUID } from 'node:crypto';
import { redisCommand, type Redis } from '../store/redis.ts';
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

/**
 * The attempt throttle's check-and-count, atomic over all its keys (src/limits/limits.ts,
 * attemptWait, is the same rule in TypeScript). KEYS: one sorted set per rule (member: attempt
 * id, score: time). ARGV: now, attempt id, then five per rule: max, window ms, delay after
 * (-1: no delay), delay base ms, delay cap ms. Returns 0 when counted, else the wait in ms.
 */
const RESERVE_ATTEMPT = `
local now = tonumber(ARGV[1])
local worst = 0
for i, key in ipairs(KEYS) do
  local at = 2 + (i - 1) * 5
  local max, window = tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2])
  local after, base, cap = tonumber(ARGV[at + 3]), tonumber(ARGV[at + 4]), tonumber(ARGV[at + 5])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local n = redis.call('ZCARD', key)
  local wait = 0
  if n >= max then
    local entry = redis.call('ZRANGE', key, n - max, n - max, 'WITHSCORES')
    wait = (tonumber(entry[2]) or now) + window - now
  elseif after >= 0 and n >= after and n > 0 then
    local latest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
    wait = tonumber(latest[2]) + math.min(cap, base * 2 ^ (n - after)) - now
  end
  if wait > worst then worst = wait end
end
if worst > 0 then return math.ceil(worst) end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, ARGV[2])
  redis.call('PEXPIRE', key, tonumber(ARGV[2 + (i - 1) * 5 + 2]))
end
return 0
`;

/** An in-flight slot of a node that died frees itself after this; live nodes renew it. */
const SLOT_LEASE_MS = 30_000;
const SLOT_RENEW_MS = 10_000;

/** Limits on the node's Redis connection (src/store/redis.ts), which its owner closes. */
export function createRedisLimits(redis: Redis, prefix: string, deps: LimitsDeps): Limits {
  const burstKey = (accountId: string) => `${prefix}burst:${accountId}`;
  const inFlightKey = (accountId: string) => `${prefix}inflight:${accountId}`;
  const attemptsKey = (key: string) => `${prefix}attempts:${key}`;

  const command = <T>(run: () => Promise<T>) => redisCommand('the limits store', run);

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
    async reserveAttempt(kind, rules) {
      const id = randomUUID();
      const keys = rules.map((rule) => attemptsKey(rule.key));
      const args = rules.flatMap((rule) => [rule.max, rule.windowMs, rule.delay?.after ?? -1, rule.delay?.baseMs ?? 0, rule.delay?.maxMs ?? 0]);
      const wait = Number(await command(() => redis.eval(RESERVE_ATTEMPT, keys.length, ...keys, deps.now(), id, ...args)));
      if (wait > 0) throw attemptsExceeded(kind, wait);
      return {
        async cancel() {
          await command(async () => {
            const batch = redis.multi();
            for (const key of keys) batch.zrem(key, id);
            await batch.exec();
          });
        },
      };
    },
    async inFlight(accountId) {
      return command(async () => {
        await redis.zremrangebyscore(inFlightKey(accountId), '-inf', deps.now());
        return redis.zcard(inFlightKey(accountId));
      });
    },
    // The connection is the node's, closed by its owner.
    close: async () => {},
  };
}
