// Limits kept in this process: right for one node (REDIS_URL unset).
import type { Account } from '../accounts/accounts.ts';
import { burstExceeded, concurrencyExceeded, dailyQuotaExceeded, usedToday, type Limits, type LimitsDeps } from './limits.ts';

export function createMemoryLimits(deps: LimitsDeps): Limits {
  /** Admission times within the last second, per account: a sliding one-second window. */
  const recent = new Map<string, number[]>();
  const running = new Map<string, number>();

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
    inFlight: async (accountId) => running.get(accountId) ?? 0,
    close: async () => {},
  };
}
