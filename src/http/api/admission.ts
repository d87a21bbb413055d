// Admission control for uploads: at most `limit` vectorize requests in flight (receiving,
// queued or converting), and at most `perAccount` of them from one account, so that no account
// (a slow client, or one trickling bytes on purpose) can hold every slot. The next one is
// refused at once with 503, before a byte of its body is buffered, so memory stays bounded by
// limit × 10 MB whatever the traffic. The API and the converter page share the same slots.
import type { FastifyReply } from 'fastify';
import { DomainError } from '../../errors.ts';

export interface Admission {
  readonly inFlight: number;
  readonly limit: number;
  readonly perAccount: number;
  /** Uploads in flight of one account. */
  inFlightOf(accountId: string): number;
}

/** Takes an upload slot for the account's request; the slot is given back when the response closes. */
export type AdmitUpload = (accountId: string, reply: FastifyReply) => Promise<void>;

export const ADMISSION_RETRY_AFTER_SECONDS = 2;

export function admitUploads(limit: number, perAccount = limit, onRefused: () => void = () => {}) {
  let inFlight = 0;
  const byAccount = new Map<string, number>();
  const admission: Admission = {
    get inFlight() {
      return inFlight;
    },
    limit,
    perAccount,
    inFlightOf: (accountId) => byAccount.get(accountId) ?? 0,
  };
  const admit: AdmitUpload = async (accountId, reply) => {
    const mine = byAccount.get(accountId) ?? 0;
    if (inFlight >= limit || mine >= perAccount) {
      onRefused();
      throw new DomainError(
        'unavailable',
        mine >= perAccount
          ? `this account already has ${mine} upload${mine === 1 ? '' : 's'} in progress, the most one account may have at once; retry shortly`
          : 'the service is at capacity for uploads; retry shortly',
        { retryAfterSeconds: ADMISSION_RETRY_AFTER_SECONDS },
      );
    }
    inFlight++;
    byAccount.set(accountId, mine + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      inFlight--;
      const left = (byAccount.get(accountId) ?? 1) - 1;
      if (left > 0) byAccount.set(accountId, left);
      else byAccount.delete(accountId);
    };
    reply.raw.once('close', release);
    // A client (or a proxy) that hung up while the request was authenticated and its credit
    // reserved: 'close' has fired already and would never fire again, leaking the slot.
    if (reply.raw.destroyed) release();
  };
  return { admission, admit };
}
