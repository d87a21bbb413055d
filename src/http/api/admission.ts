// Admission control for uploads: at most `limit` vectorize requests in flight (receiving,
// queued or converting). The next one is refused at once with 503, before a byte of its
// body is buffered, so memory stays bounded by limit × 10 MB whatever the traffic.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../errors.ts';

export interface Admission {
  readonly inFlight: number;
  readonly limit: number;
}

export const ADMISSION_RETRY_AFTER_SECONDS = 2;

export function admitUploads(limit: number, onRefused: () => void = () => {}) {
  let inFlight = 0;
  const admission: Admission = {
    get inFlight() {
      return inFlight;
    },
    limit,
  };
  async function admit(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (inFlight >= limit) {
      onRefused();
      throw new DomainError('unavailable', 'the service is at capacity for uploads; retry shortly', {
        retryAfterSeconds: ADMISSION_RETRY_AFTER_SECONDS,
      });
    }
    inFlight++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      inFlight--;
    };
    reply.raw.once('close', release);
    // A client (or a proxy) that hung up while the request was authenticated and its credit
    // reserved: 'close' has fired already and would never fire again, leaking the slot.
    if (reply.raw.destroyed) release();
  }
  return { admission, admit };
}
