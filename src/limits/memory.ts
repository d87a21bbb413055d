// Limits kept in this process: right for one node (REDIS_URL unset).
import type { Account } from '../accounts/accounts.ts';
import { randomUUID } from 'node:crypto';
import {
  attemptsExceeded,
  attemptWait,
  burstExceeded,
  concurrencyExceeded,
  dailyQuotaExceeded,
  usedToday,
  type AttemptRule,
  type Limits,
  type LimitsDeps,
} from './limits.ts';

/** Past this many keys, a reservation first drops the keys whose window is empty. */
const ATTEMPT_KEYS_BEFORE_SWEEP = 10_000;

interface AttemptEntry {
  id: string;
  at: number;
  /** The window of the rule that counted it (for the sweep of idle keys). */
  windowMs: number;
}

export function createMemoryLimits(deps: LimitsDeps): Limits {
  /** Admission times within the last second, per account: a sliding one-second window. */
  const recent = new Map<string, number[]>();
  const running = new Map<string, number>();
  /** Attempts per throttle key, oldest first. */
  const attempts = new Map<string, AttemptEntry[]>();

  function attemptsWithin(key: string, windowMs: number, now: number): AttemptEntry[] {
    const entries = (attempts.get(key) ?? []).filter((e) => e.at > now - windowMs);
    if (entries.length > 0) attempts.set(key, entries);
    else attempts.delete(key);
    return entries;
  }

  function sweepIdleKeys(now: number): void {
    for (const [key, entries] of attempts) attemptsWithin(key, entries[0]?.windowMs ?? 0, now);
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
    async reserveAttempt(kind, rules: AttemptRule[]) {
      const now = deps.now();
      if (attempts.size > ATTEMPT_KEYS_BEFORE_SWEEP) sweepIdleKeys(now);
      // Check every rule, then count in every rule, with no await between: atomic in process.
      const wait = Math.max(0, ...rules.map((rule) => attemptWait(rule, attemptsWithin(rule.key, rule.windowMs, now).map((e) => e.at), now)));
      if (wait > 0) throw attemptsExceeded(kind, wait);
      const id = randomUUID();
      for (const rule of rules) attempts.set(rule.key, [...(attempts.get(rule.key) ?? []), { id, at: now, windowMs: rule.windowMs }]);
      return {
        async cancel() {
          for (const rule of rules) {
            const left = (attempts.get(rule.key) ?? []).filter((e) => e.id !== id);
            if (left.length > 0) attempts.set(rule.key, left);
            else attempts.delete(rule.key);
          }
        },
      };
    },
    inFlight: async (accountId) => running.get(accountId) ?? 0,
    close: async () => {},
  };
}
