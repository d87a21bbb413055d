// Composition root: builds the store, the engine and the app from a config, and tears them down.
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { refundExpiredReservations } from './accounts/credits.ts';
import type { Config } from './config.ts';
import { countConversionsSince, purgeExpiredConversions, retentionStart } from './conversion/records.ts';
import { DOWNLOAD_RETENTION_MS, purgeExpiredSources } from './conversion/sources.ts';
import { createEngine } from './engine/runtime/pool.ts';
import type { Engine } from './engine/types.ts';
import { buildApp } from './http/app.ts';
import { createLifecycle, type Lifecycle } from './http/lifecycle.ts';
import type { Limits, LimitsDeps } from './limits/limits.ts';
import { createMemoryLimits } from './limits/memory.ts';
import { createRedisLimits } from './limits/redis.ts';
import { limitsSubjectOf } from './limits/test-keys.ts';
import { createMetrics, engineObserver, instrumentEngine, type Metrics } from './metrics/metrics.ts';
import { openStore, type Store } from './store/database.ts';
import { withStoreLock, type LockOutcome } from './store/lock.ts';
import { purgeExpiredResets } from './accounts/credentials.ts';
import { passwordWork } from './accounts/passwords.ts';
import { purgeExpiredEmailTokens } from './accounts/verification.ts';
import { createMailer } from './mail/mailer.ts';
import { createPayments, endLapsedSubscriptions } from './payments/stripe.ts';
import { createRedisSessionStore } from './sessions/redis.ts';
import { connectRedis, type Redis } from './store/redis.ts';
import { sessionSecrets } from './sessions/secret.ts';
import { createSqlSessionStore, type SessionStore } from './sessions/sessions.ts';

/** Password checks that may wait per slot of PASSWORD_HASH_CONCURRENCY before the next is refused (503). */
const PASSWORD_QUEUE_PER_SLOT = 16;

const SERVICE_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

export interface Service {
  app: FastifyInstance;
  store: Store;
  engine: Engine;
  limits: Limits;
  /** Base URL the server listens on, e.g. http://127.0.0.1:8080 */
  url: string;
  /**
   * One pass of the housekeeping the timer runs (lease sweep, retention purge, expired sessions
   * and reset links), under the store's lock: 'skipped' when another node was running it.
   */
  housekeep(): Promise<HousekeepingOutcome>;
  close(): Promise<void>;
  metrics: Metrics;
  lifecycle: Lifecycle;
  /**
   * Graceful stop (SIGTERM): drain — new requests 503, /readyz 503 — until the requests in
   * flight finish or `graceMs` passes, then close. Resolves true when nothing was cut short.
   */
  shutdown(graceMs?: number): Promise<boolean>;
}

export type HousekeepingOutcome = 'ran' | 'skipped';

export interface ServiceOverrides {
  now?: () => number;
  logger?: Logger;
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    // Keys and passwords never reach a log line, wherever they appear.
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'key', '*.key', 'password', '*.password'],
      censor: '[redacted]',
    },
    hooks: {
      // Last line of defence for values no path above names (a key pasted into a URL or a
      // message): nothing shaped like an API key or a bearer credential is written.
      streamWrite: scrubSecrets,
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Query parameters whose values are secrets wherever a URL is logged: mailed links' tokens, form tokens. */
const SECRET_PARAMETERS = new Set(['token', '_csrf']);

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return name.toLowerCase();
  }
}

/** A URL's secret parameters blanked, whatever their name's spelling (`t%6Fken` is `token` to the server too). */
function scrubUrl(url: string): string {
  return url.replace(/([?&;])([^=&;#]*)=([^&;#]*)/g, (whole, separator: string, name: string) =>
    SECRET_PARAMETERS.has(decodedName(name)) ? `${separator}${name}=[redacted]` : whole,
  );
}

export function scrubSecrets(line: string): string {
  return line
    .replace(/vk_(?:test_)?[A-Za-z0-9]{16,}/g, 'vk_[redacted]')
    // Stripe's secret key and webhook secret, should a library error ever quote them.
    .replace(/\b(sk|rk)_(test|live)_[A-Za-z0-9]+/g, '$1_$2_[redacted]')
    .replace(/\bwhsec_[A-Za-z0-9]+/g, 'whsec_[redacted]')
    .replace(/(Bearer|Basic)(\s|%20|\+)+[^\s"',;]+/gi, '$1 [redacted]')
    // A mailed link's token in a request's URL (the link itself is logged on purpose when SMTP_URL is unset).
    .replace(/("url":")((?:[^"\\]|\\.)*)"/g, (_whole, head: string, url: string) => `${head}${scrubUrl(url)}"`);
}

export async function startService(config: Config, overrides: ServiceOverrides = {}): Promise<Service> {
  const now = overrides.now ?? Date.now;
  const logger = overrides.logger ?? createLogger(config.logLevel);
  // Read at scrape time, once the engine below exists.
  const metrics = createMetrics({ engineLoad: () => engine.load() });
  const lifecycle = createLifecycle();
  const store = await openStore(config.databaseUrl, { poolSize: config.databasePoolSize });
  const limitsDeps: LimitsDeps = {
    now,
    // An account's test keys are a subject of their own (src/limits/test-keys.ts).
    countSuccessesSince: (subjectId, since) => {
      const { accountId, test } = limitsSubjectOf(subjectId);
      return countConversionsSince(store.db, accountId, since, test);
    },
  };
  // One Redis connection (REDIS_URL) for the limits and the pages' sessions; without it the
  // limits live in this process and the sessions in the store.
  let redis: Redis | undefined;
  try {
    redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined;
  } catch (error) {
    await store.close();
    throw error;
  }
  const limits: Limits = redis ? createRedisLimits(redis, config.redisPrefix, limitsDeps) : createMemoryLimits(limitsDeps);
  const sessionStore: SessionStore = redis ? createRedisSessionStore(redis, config.redisPrefix) : createSqlSessionStore(store.db);
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, log: logger });
  const payments = config.stripe ? createPayments(config.stripe, { store, publicUrl: config.publicUrl, now, log: logger }) : undefined;

  // One node at a time sweeps (the lock); each step is safe twice over anyway, since a refund
  // is a once-only state change, but one sweeper keeps the nodes from racing for the same rows.
  async function housekeep(): Promise<HousekeepingOutcome> {
    let outcome: LockOutcome<void>;
    try {
      outcome = await withStoreLock(store, 'housekeeping', async () => {
        const refunded = await refundExpiredReservations(store.db, now());
        metrics.leaseRefunds.inc(refunded);
        const purged = await purgeExpiredConversions(store.db, retentionStart(now(), config.retentionDays));
        // The converter's kept uploads go first (48 hours), the records later (RETENTION_DAYS).
        const sourcesPurged = await purgeExpiredSources(store.db, now() - DOWNLOAD_RETENTION_MS);
        await sessionStore.purgeExpired(now());
        await purgeExpiredResets(store.db, now());
        await purgeExpiredEmailTokens(store.db, now());
        const plansEnded = await endLapsedSubscriptions(store, now());
        if (refunded > 0 || purged > 0 || sourcesPurged > 0 || plansEnded > 0) logger.info({ refunded, purged, sourcesPurged, plansEnded }, 'housekeeping');
      });
    } catch (error) {
      metrics.housekeepingPasses.inc({ outcome: 'failed' });
      throw error;
    }
    metrics.housekeepingPasses.inc({ outcome: outcome.ran ? 'ran' : 'skipped' });
    if (!outcome.ran) logger.debug('housekeeping skipped: another node holds the lock');
    return outcome.ran ? 'ran' : 'skipped';
  }

  const engine = createEngine(
    {
      workers: config.workers,
      queueLimit: config.queueLimit,
      timeoutMs: config.conversionTimeoutMs,
      maxInputPixels: config.maxInputPixels,
    },
    { observer: engineObserver(metrics) },
  );
  let app: FastifyInstance;
  try {
    await housekeep();
    app = await buildApp({
      store,
      engine: instrumentEngine(engine, metrics),
      now,
      limits,
      reservationLeaseMs: config.reservationLeaseMs,
      log: logger,
      maxUploadBytes: config.maxUploadBytes,
      retentionDays: config.retentionDays,
      metrics,
      lifecycle,
      maxConcurrentUploads: config.maxConcurrentUploads,
      maxUploadsPerAccount: config.maxUploadsPerAccount,
      uploadPace: { minBytesPerSecond: config.uploadMinBytesPerSecond, windowMs: config.uploadRateWindowMs },
      headersTimeoutMs: config.headersTimeoutMs,
      requestTimeoutMs: config.requestTimeoutMs,
      version: SERVICE_VERSION,
      web: {
        sessionStore,
        sessionSecrets: await sessionSecrets(store.db, config.sessionSecrets),
        mailer,
        publicUrl: config.publicUrl,
        passwords: passwordWork({ slots: config.passwordHashConcurrency, queueLimit: PASSWORD_QUEUE_PER_SLOT * config.passwordHashConcurrency }),
        throttle: {
          signupsPerAddressPerHour: config.signupsPerAddressPerHour,
          signupsPerHour: config.signupsPerHour,
          mailsPerAddressPerHour: config.mailsPerAddressPerHour,
        },
      },
      trustProxy: config.trustProxy,
      payments,
    });
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await engine.close();
    await limits.close();
    await sessionStore.close();
    redis?.disconnect();
    mailer.close();
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

  async function close(): Promise<void> {
    lifecycle.startDraining();
    clearInterval(timer);
    await app.close();
    await engine.close();
    await limits.close();
    await sessionStore.close();
    redis?.disconnect();
    mailer.close();
    await store.close();
  }

  return {
    app,
    store,
    engine,
    limits,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    housekeep,
    close,
    metrics,
    lifecycle,
    async shutdown(graceMs = config.shutdownGraceMs) {
      lifecycle.startDraining();
      logger.info({ inFlight: lifecycle.inFlight, graceMs }, 'draining');
      const drained = await lifecycle.whenIdle(graceMs);
      if (!drained) {
        logger.warn({ inFlight: lifecycle.inFlight }, 'grace period over; closing with requests in flight');
        // Past the bound: stop the conversions still running (503) and drop the connections
        // still open (an upload still arriving), so the app's close is not held up by them.
        await engine.close();
        app.server.closeAllConnections();
      }
      await close();
      return drained;
    },
  };
}
