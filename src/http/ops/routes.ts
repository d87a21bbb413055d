// The operator's routes: liveness, readiness and Prometheus metrics. Unauthenticated and
// logged at warn only, so probes and scrapes do not flood the logs.
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Engine } from '../../engine/types.ts';
import { DomainError } from '../../errors.ts';
import type { Metrics } from '../../metrics/metrics.ts';
import type { Store } from '../../store/database.ts';
import type { Lifecycle } from '../lifecycle.ts';
import { healthSchema, metricsSchema, readySchema } from './schemas.ts';

export interface OperationsDeps {
  store: Store;
  engine: Engine;
  lifecycle: Lifecycle;
  metrics: Metrics;
}

/** A readiness probe must answer within its own timeout even when the store hangs. */
const STORE_CHECK_TIMEOUT_MS = 2_000;

async function storeReachable(store: Store): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), STORE_CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([sql`select 1`.execute(store.db).then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function operationsRoutes(app: FastifyInstance, deps: OperationsDeps): void {
  app.get('/healthz', { logLevel: 'warn', schema: healthSchema }, async () => ({ status: 'ok' }));

  app.get('/readyz', { logLevel: 'warn', schema: readySchema }, async (request, reply) => {
    const store = (await storeReachable(deps.store)) ? 'ok' : 'unreachable';
    const workers = deps.engine.load().workers;
    const draining = deps.lifecycle.draining;
    const checks = { store, workers, draining };
    if (store !== 'ok' || workers === 0 || draining) {
      const why = draining ? 'the service is draining' : store !== 'ok' ? 'the store is unreachable' : 'no worker is up';
      // The checks say which part is not ready: the one error body that carries more than `error`.
      return reply.code(503).header('retry-after', '5').send({ error: `not ready: ${why}`, request_id: request.id, checks });
    }
    return { status: 'ready', checks };
  });

  app.get('/metrics', { logLevel: 'warn', schema: metricsSchema }, async (_request, reply) => {
    const text = await deps.metrics.registry.metrics();
    return reply.type(deps.metrics.registry.contentType).send(text);
  });
}

/** Counts every response by route pattern (not raw URL, which would explode the label set). */
export function countResponses(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route };
    metrics.httpRequests.inc({ ...labels, status: String(reply.statusCode) });
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
  });
}

/**
 * Limit refusals by kind: no credit left is `credits`; a rate limit names its own (`burst`,
 * `concurrency`, `daily_quota`; the pages' throttles `attempts`, `signups`, `resets`, `mails`).
 */
export function countRefusals(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onError', async (_request, _reply, error) => countRefusal(metrics, error));
}

export function countRefusal(metrics: Metrics, error: unknown): void {
  if (!(error instanceof DomainError)) return;
  if (error.code === 'insufficient_credits') metrics.countLimitRefusal('credits');
  if (error.code === 'rate_limited') metrics.countLimitRefusal(error.details.limit ?? 'unspecified');
}
