// Plan limits on conversions, checked in the contract's order: burst, concurrency, daily quota.
// Two implementations fill the interface: in process (one node) and Redis (several nodes).
import type { Account } from '../accounts/accounts.ts';
import type { Plan } from '../accounts/plans.ts';
import { DomainError, type LimitKind } from '../errors.ts';

export type { LimitKind };

/** A refusal by a limit: which one, and the wait in whole seconds. */
export class LimitExceeded extends DomainError {
  constructor(
    readonly kind: LimitKind,
    readonly retryAfterSeconds: number,
    description: string,
  ) {
    super('rate_limited', `${description}; retry after ${retryAfterSeconds} seconds`, { limit: kind, retryAfterSeconds });
  }
}

/** A conversion admitted past the limits; `release` when it ends, however it ends. */
export interface Admission {
  release(): Promise<void>;
}

/** At most `max` failures per key within `windowMs` (log-in, sign-up and password reset of the pages). */
export interface AttemptPolicy {
  max: number;
  windowMs: number;
}

export interface Limits {
  /** Admits a conversion for `account` or throws LimitExceeded. */
  admit(account: Account): Promise<Admission>;
  /**
   * Throws LimitExceeded (`attempts`) when any of `keys` (an email, a client address) already
   * has `policy.max` failures in the window; the wait is until the oldest of them leaves it.
   */
  checkAttempts(keys: string[], policy: AttemptPolicy): Promise<void>;
  /** Counts one failure against each of `keys`. */
  recordFailure(keys: string[], policy: AttemptPolicy): Promise<void>;
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

export function attemptsExceeded(waitMs: number): LimitExceeded {
  return new LimitExceeded('attempts', waitSeconds(waitMs), 'too many failed attempts');
}
