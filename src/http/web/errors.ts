// The pages' one mapping from errors to words: what went wrong and what to do about it, with
// the status the page is sent with. Never a stack trace; unexpected faults get a plain sentence.
import { DomainError } from '../../errors.ts';
import { isStoreUnavailable } from '../../store/database.ts';

/** A form posted without a valid CSRF token (stale, missing, or from another site). */
export class FormExpired extends Error {
  constructor() {
    super('form expired');
    this.name = 'FormExpired';
  }
}

export interface PageError {
  status: number;
  message: string;
  /** Set when the error is a wait: the page says how long. */
  retryAfterSeconds?: number;
  /** Where to go about it (buying credits or a plan), shown under the message. */
  link?: { href: string; text: string };
}

/** The daily-quota and no-credit messages lead to the prices. */
const BUY_LINK = { href: '/account/billing', text: 'See credit packs and plans on the Billing page' };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function pageErrorOf(error: unknown): PageError | undefined {
  if (error instanceof FormExpired) {
    return {
      status: 403,
      message: 'This form had expired (it was opened in another session, or too long ago), so nothing was changed. It is ready again: send it once more.',
    };
  }
  if (isStoreUnavailable(error)) return { status: 503, message: 'The service is briefly unavailable. Wait 5 seconds and try again.', retryAfterSeconds: 5 };
  if (!(error instanceof DomainError)) return undefined;
  const wait = error.details.retryAfterSeconds;
  switch (error.code) {
    case 'invalid_input':
      return { status: 400, message: sentence(error.message) };
    case 'invalid_key':
      return { status: 401, message: 'That API key is missing, unknown or revoked.' };
    case 'account_inactive':
      // What each state may do on the web is in docs/limits.md.
      return {
        status: 403,
        message:
          error.details.accountStatus === 'banned'
            ? "This account is banned: it cannot log in or use the service. Contact the service's operator."
            : `This account is ${error.details.accountStatus ?? 'not active'}: it cannot convert images or create API keys. Contact the service's operator.`,
      };
    case 'insufficient_credits':
      return { status: 402, message: 'No credits left: add a credit pack (50, 200 or 500 credits) to convert more images.', link: BUY_LINK };
    case 'not_found':
      return { status: 404, message: sentence(error.message) };
    case 'conflict':
      return { status: 409, message: sentence(error.message) };
    case 'upload_too_large':
      return { status: 413, message: 'The image is larger than 10 MB. Choose a smaller file.' };
    case 'upload_too_slow':
      return { status: 408, message: 'The upload arrived too slowly. Try again on a faster connection.' };
    case 'not_acceptable':
      return { status: 406, message: sentence(error.message) };
    case 'rate_limited': {
      const seconds = wait ?? 1;
      const why: Record<string, string> = {
        attempts: 'Too many failed attempts',
        signups: 'Too many sign-ups from your network or on the service right now',
        resets: 'Too many password-reset requests from your network',
        mails: 'Enough links were mailed to this address for now: use the latest one',
        burst: 'Too many conversions in a second for your plan',
        concurrency: 'Your plan converts one image at a time and one is still running',
        daily_quota: "You have used today's conversions (the quota resets at midnight UTC)",
      };
      return {
        status: 429,
        message: `${why[error.details.limit ?? ''] ?? 'Too many requests'}: wait ${waitInWords(seconds)} and try again.`,
        retryAfterSeconds: seconds,
        ...(error.details.limit === 'daily_quota' ? { link: BUY_LINK } : {}),
      };
    }
    case 'engine_failed':
      return { status: 502, message: 'The converter could not process this image. Try other settings or another image.' };
    case 'engine_timeout':
      return { status: 502, message: 'The conversion took too long and was stopped. Try a smaller image or fewer colours.' };
    case 'unavailable':
      return { status: 503, message: `The service is busy. Wait ${plural(wait ?? 5, 'second')} and try again.`, retryAfterSeconds: wait ?? 5 };
  }
}

/** `42 seconds`; from two minutes on in minutes (and hours), with the seconds in brackets. */
function waitInWords(seconds: number): string {
  if (seconds < 120) return plural(seconds, 'second');
  const totalMinutes = Math.ceil(seconds / 60);
  const hours = Math.floor(totalMinutes / 60);
  const minutes = totalMinutes % 60;
  const words = [hours > 0 ? plural(hours, 'hour') : '', minutes > 0 ? plural(minutes, 'minute') : ''].filter(Boolean).join(' ');
  return `${words} (${seconds} seconds)`;
}

/** `image: the uploaded file is empty` → `Image: the uploaded file is empty.` */
function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
