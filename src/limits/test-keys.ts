// Test keys' own limits. Their conversions spend no credit and count toward no plan quota, so
// they are limited apart: the limits see an account's test keys as a subject of its own (its
// id with `/test`), with the limits below in place of the plan's. The same backends (memory,
// Redis) enforce them, and the daily cap counts the account's test conversions only.
import type { Account } from '../accounts/accounts.ts';

/** Documented in docs/limits.md ("Test keys"). */
export const TEST_KEY_LIMITS = {
  /** Admitted requests per sliding second, all the account's test keys together. */
  burstPerSecond: 1,
  /** Test conversions of the account at once. */
  concurrency: 1,
  /** Successful test conversions of the account per UTC day. */
  dailyQuota: 50,
} as const;

const TEST_SUBJECT_SUFFIX = '/test';

/** The account as the limits see its test keys. */
export function testKeySubject(account: Account): Account {
  return {
    ...account,
    id: `${account.id}${TEST_SUBJECT_SUFFIX}`,
    plan: { name: 'test key', metered: false, signupCredits: 0, ...TEST_KEY_LIMITS },
  };
}

/** Which account and which of its conversions (live or test) a limits subject counts. */
export function limitsSubjectOf(subjectId: string): { accountId: string; test: boolean } {
  return subjectId.endsWith(TEST_SUBJECT_SUFFIX)
    ? { accountId: subjectId.slice(0, -TEST_SUBJECT_SUFFIX.length), test: true }
    : { accountId: subjectId, test: false };
}
