// The pages' throttles, as rules for the limits backend (memory, or Redis shared by the nodes;
// src/limits/limits.ts, reserveAttempt). Each form reserves its attempt before the work it
// guards, atomically, so concurrent attempts cannot all slip past a count made before any of
// them was recorded. docs/limits.md explains the numbers.
import { createHash } from 'node:crypto';
import type { AttemptRule } from '../../limits/limits.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Numbers the operator sets (SIGNUPS_PER_ADDRESS_PER_HOUR, SIGNUPS_PER_HOUR, MAILS_PER_ADDRESS_PER_HOUR). */
export interface ThrottleSettings {
  signupsPerAddressPerHour: number;
  signupsPerHour: number;
  mailsPerAddressPerHour: number;
}

/** Failed log-ins of one email from one client address: 10 in 15 minutes, slower from the 3rd. */
export const LOGIN_PER_EMAIL_AND_ADDRESS = { max: 10, windowMs: 15 * MINUTE, delay: { after: 3, baseMs: 1000, maxMs: MINUTE } } as const;
/** Failed log-ins from one client address, whatever the email: 10 in 15 minutes. */
export const LOGIN_PER_ADDRESS = { max: 10, windowMs: 15 * MINUTE } as const;
/**
 * Failed log-ins of one email from anywhere: no lock, but growing delays once 20 are in the
 * window (1 s, 2 s, 4 s … at most 5 minutes), which only an attack from many addresses reaches.
 * A browser that logged in to the account before is exempt, so even then the owner gets in.
 */
export const LOGIN_PER_EMAIL = { max: 100_000, windowMs: 15 * MINUTE, delay: { after: 20, baseMs: 1000, maxMs: 5 * MINUTE } } as const;
/** Reset links that did not work (expired, used, made up), per client address. */
export const LINKS_PER_ADDRESS = { max: 10, windowMs: 15 * MINUTE } as const;
/** Password-reset requests per client address, counted apart from failed log-ins. */
export const RESETS_PER_ADDRESS = { max: 10, windowMs: 15 * MINUTE } as const;

/** Email addresses in keys are digests: the limits store holds no address. */
function digest(text: string): string {
  return createHash('sha256').update(text.trim().toLowerCase()).digest('base64url').slice(0, 22);
}

/** A log-in attempt (or a check of the current password on the settings page). */
export function loginRules(email: string, address: string, knownDevice: boolean): AttemptRule[] {
  const rules: AttemptRule[] = [
    { key: `login:pair:${digest(email)}:${address}`, ...LOGIN_PER_EMAIL_AND_ADDRESS },
    { key: `login:address:${address}`, ...LOGIN_PER_ADDRESS },
  ];
  if (!knownDevice) rules.push({ key: `login:email:${digest(email)}`, ...LOGIN_PER_EMAIL });
  return rules;
}

/** A use of a mailed link that may fail (a password reset). */
export function linkRules(address: string): AttemptRule[] {
  return [{ key: `link:address:${address}`, ...LINKS_PER_ADDRESS }];
}

export function resetRequestRules(address: string): AttemptRule[] {
  return [{ key: `reset:address:${address}`, ...RESETS_PER_ADDRESS }];
}

/** A sign-up, new email or taken: per client address and for the whole service, per hour. */
export function signupRules(address: string, settings: ThrottleSettings): AttemptRule[] {
  return [
    { key: `signup:address:${address}`, max: settings.signupsPerAddressPerHour, windowMs: HOUR },
    { key: 'signup:all', max: settings.signupsPerHour, windowMs: HOUR },
  ];
}

/** What a requested mail is: each kind has its own cap, so one kind flooded leaves the others. */
export type MailKind = 'reset' | 'signup' | 'email-change';

/** Mails of one kind that one address is sent on anyone's request, per hour. */
export function mailRules(kind: MailKind, email: string, settings: ThrottleSettings): AttemptRule[] {
  return [{ key: `mail:${kind}:${digest(email)}`, max: settings.mailsPerAddressPerHour, windowMs: HOUR }];
}
