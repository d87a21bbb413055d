// Plan limits on conversions, checked in the contract's order: burst, concurrency, daily quota.
// Two implementations fill the interface: in process (one node) and Redis (several nodes).
import type { Account } from '../accounts/accounts.ts';
import type { Plan } from '../accounts/plans.ts';
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
  release(): Promise<void>;
}

export interface Limits {
  /** Admits a conversion for `account` or throws LimitExceeded. */
  admit(account: Account): Promise<Admission>;
  /** Conversions of the account now in flight (admitted, not yet released). */
  inFlight(accountId: string): Promise<number>;
  close(): Promise<void>;
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

/** Whole seconds to wait, from milliseconds: rounded up, at least 1. */
export function waitSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

export function secondsUntilNextUtcDay(now: number): number {
  return waitSeconds(startOfUtcDay(now) + DAY_MS - now);
}

/** Successful conversions today, or 0 when the plan has no daily quota (no query then). */
export async function usedToday(deps: LimitsDeps, account: Account): Promise<number> {
  if (account.plan.dailyQuota === null) return 0;
  return deps.countSuccessesSince(account.id, startOfUtcDay(deps.now()));
}

export function burstExceeded(plan: Plan, waitMs: number): LimitExceeded {
  return new LimitExceeded(
    'burst',
    waitSeconds(waitMs),
    `rate limit exceeded (burst): the ${plan.name} plan allows ${plan.burstPerSecond} requests per second`,
  );
}

export function concurrencyExceeded(plan: Plan): LimitExceeded {
  const limit = plan.concurrency;
  return new LimitExceeded(
    'concurrency',
    CONCURRENCY_RETRY_SECONDS,
    `rate limit exceeded (concurrency): the ${plan.name} plan allows ${limit} conversion${limit === 1 ? '' : 's'} at a time`,
  );
}

export function dailyQuotaExceeded(plan: Plan, now: number): LimitExceeded {
  return new LimitExceeded(
    'daily_quota',
    secondsUntilNextUtcDay(now),
    `rate limit exceeded (daily quota): the ${plan.name} plan allows ${plan.dailyQuota} conversions per UTC day`,
  );
}
