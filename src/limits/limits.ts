// Plan limits on conversions, checked in the contract's order: burst, concurrency, daily quota.
// The interface is what a Redis-backed implementation for several nodes will fill; the one
// here keeps its state in process.
import type { Account } from '../accounts/accounts.ts';
import { ApiError } from '../errors.ts';

export type LimitKind = 'burst' | 'concurrency' | 'daily_quota';

/** A 429: which limit, and the wait in whole seconds (also in Retry-After). */
export class LimitExceeded extends ApiError {
  constructor(
    readonly kind: LimitKind,
    readonly retryAfterSeconds: number,
    description: string,
  ) {
    super(429, `${description}; retry after ${retryAfterSeconds} seconds`, { limit: kind }, { 'retry-after': String(retryAfterSeconds) });
  }
}

/** A conversion admitted past the limits; `release` when it ends, however it ends. */
export interface Admission {
  release(): void;
}

export interface Limits {
  /** Admits a conversion for `account` or throws LimitExceeded. */
  admit(account: Account): Promise<Admission>;
  /** Conversions of the account now in flight (admitted, not yet released). */
  inFlight(accountId: string): number;
}

export interface LimitsDeps {
  now: () => number;
  /** Successful conversions of the account since `since` (epoch ms), from the store. */
  countSuccessesSince(accountId: string, since: number): Promise<number>;
}

const DAY_MS = 86_400_000;
/** The wait suggested when the account's concurrency slots are all taken. */
const CONCURRENCY_RETRY_SECONDS = 1;

export function startOfUtcDay(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS;
}

export function secondsUntilNextUtcDay(now: number): number {
  return Math.max(1, Math.ceil((startOfUtcDay(now) + DAY_MS - now) / 1000));
}

export function createMemoryLimits(deps: LimitsDeps): Limits {
  /** Admission times of the last second, per account: a sliding one-second window. */
  const recent = new Map<string, number[]>();
  const running = new Map<string, number>();

  function checkBurst(account: Account, now: number): void {
    const perSecond = account.plan.burstPerSecond;
    if (perSecond === null) return;
    const window = (recent.get(account.id) ?? []).filter((t) => t > now - 1000);
    recent.set(account.id, window);
    if (window.length >= perSecond) {
      // The oldest admission in the window leaves it at oldest + 1000.
      const waitMs = (window[window.length - perSecond] ?? now) + 1000 - now;
      throw new LimitExceeded(
        'burst',
        Math.max(1, Math.ceil(waitMs / 1000)),
        `rate limit exceeded (burst): the ${account.plan.name} plan allows ${perSecond} requests per second`,
      );
    }
  }

  function checkConcurrency(account: Account): void {
    const limit = account.plan.concurrency;
    if (limit === null) return;
    if ((running.get(account.id) ?? 0) >= limit) {
      throw new LimitExceeded(
        'concurrency',
        CONCURRENCY_RETRY_SECONDS,
        `rate limit exceeded (concurrency): the ${account.plan.name} plan allows ${limit} conversion${limit === 1 ? '' : 's'} at a time`,
      );
    }
  }

  function checkDailyQuota(account: Account, usedToday: number, now: number): void {
    const quota = account.plan.dailyQuota;
    if (quota === null) return;
    // Conversions in flight may all succeed: count them, so parallel requests cannot overshoot.
    if (usedToday + (running.get(account.id) ?? 0) >= quota) {
      throw new LimitExceeded(
        'daily_quota',
        secondsUntilNextUtcDay(now),
        `rate limit exceeded (daily quota): the ${account.plan.name} plan allows ${quota} conversions per UTC day`,
      );
    }
  }

  return {
    async admit(account) {
      checkBurst(account, deps.now());
      checkConcurrency(account);
      const usedToday =
        account.plan.dailyQuota === null ? 0 : await deps.countSuccessesSince(account.id, startOfUtcDay(deps.now()));
      // Everything from here to the increment is synchronous, so checks and admission are atomic in process.
      const now = deps.now();
      checkBurst(account, now);
      checkConcurrency(account);
      checkDailyQuota(account, usedToday, now);
      if (account.plan.burstPerSecond !== null) recent.set(account.id, [...(recent.get(account.id) ?? []), now]);
      running.set(account.id, (running.get(account.id) ?? 0) + 1);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          const left = (running.get(account.id) ?? 1) - 1;
          if (left > 0) running.set(account.id, left);
          else running.delete(account.id);
        },
      };
    },
    inFlight: (accountId) => running.get(accountId) ?? 0,
  };
}
