// Composition root: builds the store, the engine and the app from a config, and tears them down.
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { refundExpiredReservations } from './accounts/credits.ts';
import type { Config } from './config.ts';
import { countConversionsSince, purgeExpiredConversions, retentionStart } from './conversion/records.ts';
import { createEngine } from './engine/pool.ts';
import type { Engine } from './engine/types.ts';
import { buildApp } from './http/app.ts';
import type { Limits, LimitsDeps } from './limits/limits.ts';
import { createMemoryLimits } from './limits/memory.ts';
import { createRedisLimits } from './limits/redis.ts';
import { openStore, type Store } from './store/database.ts';

export interface Service {
  app: FastifyInstance;
  store: Store;
  engine: Engine;
  limits: Limits;
  /** Base URL the server listens on, e.g. http://127.0.0.1:8080 */
  url: string;
  /** One pass of the housekeeping the timer runs: lease sweep and retention purge. */
  housekeep(): Promise<void>;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  now?: () => number;
  logger?: Logger;
}

export function createLogger(level: string): Logger {
  return pino({
    level,
    // Keys and passwords never reach a log line, wherever they appear.
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'key', '*.key', 'password', '*.password'],
      censor: '[redacted]',
    },
  });
}

export async function startService(config: Config, overrides: ServiceOverrides = {}): Promise<Service> {
  const now = overrides.now ?? Date.now;
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const store = await openStore(config.databaseUrl);
  const limitsDeps: LimitsDeps = {
    now,
    countSuccessesSince: (accountId, since) => countConversionsSince(store.db, accountId, since),
  };
  let limits: Limits;
  try {
    limits = config.redisUrl
      ? await createRedisLimits(config.redisUrl, config.redisPrefix, limitsDeps)
      : createMemoryLimits(limitsDeps);
  } catch (error) {
    await store.close();
    throw error;
  }

  async function housekeep(): Promise<void> {
    const refunded = await refundExpiredReservations(store.db, now());
    const purged = await purgeExpiredConversions(store.db, retentionStart(now(), config.retentionDays));
    if (refunded > 0 || purged > 0) logger.info({ refunded, purged }, 'housekeeping');
  }

  const engine = createEngine({
    workers: config.workers,
    queueLimit: config.queueLimit,
    timeoutMs: config.conversionTimeoutMs,
    maxInputPixels: config.maxInputPixels,
  });
  let app: FastifyInstance;
  try {
    await housekeep();
    app = await buildApp({
      store,
      engine,
      now,
      limits,
      reservationLeaseMs: config.reservationLeaseMs,
      log: logger,
      logger,
      maxUploadBytes: config.maxUploadBytes,
      retentionDays: config.retentionDays,
    });
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await engine.close();
    await limits.close();
    await store.close();
    throw error;
  }

  const timer = setInterval(() => {
    housekeep().catch((error: unknown) => logger.warn({ err: error }, 'housekeeping failed'));
  }, config.housekeepingIntervalMs);
  timer.unref();

  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;

  return {
    app,
    store,
    engine,
    limits,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    housekeep,
    async close() {
      clearInterval(timer);
      await app.close();
      await engine.close();
      await limits.close();
      await store.close();
    },
  };
}
