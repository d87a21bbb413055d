// Draining on shutdown: the service stops taking work (new requests get 503 with Retry-After,
// /readyz turns 503) while the requests already in flight run to completion, within a bound.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../errors.ts';

export interface Lifecycle {
  readonly draining: boolean;
  /** Requests being handled now (probes excluded). */
  readonly inFlight: number;
  startDraining(): void;
  /** Resolves true once nothing is in flight, or false when `timeoutMs` passed first. */
  whenIdle(timeoutMs: number): Promise<boolean>;
  track(): () => void;
}

export function createLifecycle(): Lifecycle {
  let draining = false;
  let inFlight = 0;
  const waiters = new Set<() => void>();

  return {
    get draining() {
      return draining;
    },
    get inFlight() {
      return inFlight;
    },
    startDraining() {
      draining = true;
    },
    track() {
      inFlight++;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        inFlight--;
        if (inFlight === 0) for (const wake of waiters) wake();
      };
    },
    whenIdle(timeoutMs) {
      if (inFlight === 0) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const finish = (idle: boolean) => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(idle);
        };
        const wake = () => finish(true);
        const timer = setTimeout(() => finish(false), timeoutMs);
        waiters.add(wake);
      });
    },
  };
}

/** Probes and metrics keep answering while draining: the orchestrator must see the state. */
const ALWAYS_OPEN = new Set(['/healthz', '/readyz', '/metrics']);

export const DRAINING_RETRY_AFTER_SECONDS = 5;

export function drainingGuard(app: FastifyInstance, lifecycle: Lifecycle): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (ALWAYS_OPEN.has(request.routeOptions.url ?? '')) return;
    if (lifecycle.draining) {
      // No `Connection: close` here: closing while a client still sends its upload turns this
      // clear 503 into a connection reset. Idle connections are closed when the app closes.
      throw new DomainError('unavailable', 'the service is shutting down; retry shortly', { retryAfterSeconds: DRAINING_RETRY_AFTER_SECONDS });
    }
    // 'close' fires once the response is sent or the client went away, whichever comes first.
    const untrack = lifecycle.track();
    reply.raw.once('close', untrack);
  });
}
