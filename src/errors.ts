// The one error type the domain throws on purpose: a code from a closed set, a public message
// and a few typed details. Each front-end maps the code to its own form in one place: the JSON
// API to a status and headers (src/http/api/errors.ts), the pages to words on a page
// (src/http/web/errors.ts), the CLI to an exit code (src/cli/main.ts). Nothing here knows HTTP.

export const ERROR_CODES = [
  /** The input is wrong; the message names the field and what it accepts. */
  'invalid_input',
  /** An API key is missing, unknown or revoked. */
  'invalid_key',
  /** The account is suspended or banned (details.accountStatus). */
  'account_inactive',
  /** A metered account has no credit left (details.creditsRemaining). */
  'insufficient_credits',
  'not_found',
  /** The thing exists already (an account's email, for the CLI). */
  'conflict',
  'upload_too_large',
  'upload_too_slow',
  /** The client accepts none of the representations the service can give (file formats). */
  'not_acceptable',
  /** A limit refused the request: burst, concurrency, daily quota, or a throttle of the pages (details.limit, details.retryAfterSeconds). */
  'rate_limited',
  /** The engine failed on a decodable image. */
  'engine_failed',
  /** The engine exceeded its time limit. */
  'engine_timeout',
  /** Queue full, store or limits store unreachable, shutting down (details.retryAfterSeconds). */
  'unavailable',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * `attempts`: failed log-ins (and reset links that did not work); `signups`: sign-ups per client
 * address or in total; `resets`: password-reset requests per client address; `mails`: mails one
 * address was sent on request (reset links, sign-up notices).
 */
export type LimitKind = 'burst' | 'concurrency' | 'daily_quota' | 'attempts' | 'signups' | 'resets' | 'mails';

export interface ErrorDetails {
  /** Whole seconds to wait before trying again. */
  retryAfterSeconds?: number;
  limit?: LimitKind;
  creditsRemaining?: number;
  accountStatus?: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export function isDomainError(error: unknown, code?: ErrorCode): error is DomainError {
  return error instanceof DomainError && (code === undefined || error.code === code);
}
