// Limits kept in this process: right for one node (REDIS_URL unset).
import type { Account } from '../accounts/accounts.ts';
import {
  attemptsExceeded,
  burstExceeded,
  concurrencyExceeded,
  dailyQuotaExceeded,
  usedToday,
  type AttemptPolicy,
  type Limits,
  type LimitsDeps,
} from './limits.ts';

/** Past this many keys, a recorded failure first drops the keys whose window is empty. */
const ATTEMPT_KEYS_BEFORE_SWEEP = 10_000;

export function createMemoryLimits(deps: LimitsDeps): Limits {
  /** Admission times within the last second, per account: a sliding one-second window. */
  const recent = new Map<string, number[]>();
  const running = new Map<string, number>();
  /** Failure times per key (an email or a client address), oldest first. */
  const failures = new Map<string, number[]>();

  function failuresWithin(key: string, policy: AttemptPolicy, now: number): number[] {
    const times = (failures.get(key) ?? []).filter((t) => t > now - policy.windowMs);
    if (times.length > 0) failures.set(key, times);
    else failures.delete(key);
    return times;
  }

  function checkBurst(account: Account, now: number): void {
    const perSecond = account.plan.burstPerSecond;
    if (perSecond === null) return;
    const window = (recent.get(account.id) ?? []).filter((t) => t > now - 1000);
    if (window.length > 0) recent.set(account.id, window);
    else recent.delete(account.id);
    if (window.length >= perSecond) {
      // A request passes once enough of the window's admissions have left it.
      throw burstExceeded(account.plan, (window[window.length - perSecond] ?? now) + 1000 - now);
    }
  }

  function checkConcurrency(account: Account): void {
    const limit = account.plan.concurrency;
    if (limit !== null && (running.get(account.id) ?? 0) >= limit) throw concurrencyExceeded(account.plan);
  }

  function checkDailyQuota(account: Account, used: number, now: number): void {
    const quota = account.plan.dailyQuota;
    // Conversions in flight may all succeed: count them, so parallel requests cannot overshoot.
    if (quota !== null && used + (running.get(account.id) ?? 0) >= quota) throw dailyQuotaExceeded(account.plan, now);
  }

  return {
    async admit(account) {
      // Cheap checks first, so a refused request costs no query.
      checkBurst(account, deps.now());
      checkConcurrency(account);
      const used = await usedToday(deps, account);
      // From here to the increment all is synchronous: check and admit are atomic in process.
      const now = deps.now();
      checkBurst(account, now);
      checkConcurrency(account);
      checkDailyQuota(account, used, now);
      if (account.plan.burstPerSecond !== null) recent.set(account.id, [...(recent.get(account.id) ?? []), now]);
      running.set(account.id, (running.get(account.id) ?? 0) + 1);
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          const left = (running.get(account.id) ?? 1) - 1;
          if (left > 0) running.set(account.id, left);
          else running.delete(account.id);
        },
      };
    },
    async checkAttempts(keys, policy) {
      const now = deps.now();
      for (const key of keys) {
        const times = failuresWithin(key, policy, now);
        if (times.length >= policy.max) {
          throw attemptsExceeded((times[times.length - policy.max] ?? now) + policy.windowMs - now);
        }
      }
    },
    async recordFailure(keys, policy) {
      const now = deps.now();
      if (failures.size > ATTEMPT_KEYS_BEFORE_SWEEP) for (const key of [...failures.keys()]) failuresWithin(key, policy, now);
      for (const key of keys) failures.set(key, [...failuresWithin(key, policy, now), now]);
    },
    inFlight: async (accountId) => running.get(accountId) ?? 0,
    close: async () => {},
  };
}
