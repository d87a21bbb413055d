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

/**
 * One counter of the pages' attempt throttle (log-ins, sign-ups, password resets, mails): at most
 * `max` attempts of `key` within `windowMs`, sliding. With `delay`, from the `after`-th attempt
 * in the window on, the next must also wait `baseMs × 2^(n − after)` (at most `maxMs`) after
 * the latest: growing delays that slow a guesser long before the hard limit.
 */
export interface AttemptRule {
  key: string;
  max: number;
  windowMs: number;
  delay?: { after: number; baseMs: number; maxMs: number };
}

/** An attempt counted in every rule's window; `cancel` when it turns out not to count (a right password). */
export interface AttemptReservation {
  cancel(): Promise<void>;
}

/** What the pages throttle, for the refusal's words and the metrics' `kind`. */
export type AttemptKind = Extract<LimitKind, 'attempts' | 'signups' | 'resets' | 'mails'>;

export interface Limits {
  /** Admits a conversion for `account` or throws LimitExceeded. */
  admit(account: Account): Promise<Admission>;
  /**
   * Counts one attempt in every rule, atomically (all or none, and no two callers can both take
   * the last place), or throws LimitExceeded(`kind`) with the longest wait any rule asks for.
   * Reserved before the work it guards (a password check), so concurrent attempts cannot all
   * pass a check made before any of them was counted.
   */
  reserveAttempt(kind: AttemptKind, rules: AttemptRule[]): Promise<AttemptReservation>;
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

const ATTEMPT_REFUSALS: Record<AttemptKind, string> = {
  attempts: 'too many failed attempts',
  signups: 'too many sign-ups',
  resets: 'too many password-reset requests',
  mails: 'too many mails to this address',
};

export function attemptsExceeded(kind: AttemptKind, waitMs: number): LimitExceeded {
  return new LimitExceeded(kind, waitSeconds(waitMs), ATTEMPT_REFUSALS[kind]);
}

/**
 * The wait (ms, 0: none) `rule` asks of one more attempt, given the times of those in its
 * window, oldest first. Shared by both backends (the Redis script does the same in Lua).
 */
export function attemptWait(rule: AttemptRule, times: readonly number[], now: number): number {
  const n = times.length;
  if (n >= rule.max) return (times[n - rule.max] ?? now) + rule.windowMs - now;
  if (rule.delay && n >= rule.delay.after && n > 0) {
    const gap = Math.min(rule.delay.maxMs, rule.delay.baseMs * 2 ** (n - rule.delay.after));
    return Math.max(0, (times[n - 1] ?? now) + gap - now);
  }
  return 0;
}
