// Every environment variable of the service: typed, defaulted and validated in one place.
// Start-up fails with all problems at once, each naming its variable.
import { availableParallelism } from 'node:os';

export interface Config {
  port: number;
  host: string;
  /** `sqlite:PATH` or `postgres://…`; unset means an embedded SQLite file under ./data/. */
  databaseUrl: string;
  /** Connections each node keeps to PostgreSQL at most (nodes × this must stay under max_connections). */
  databasePoolSize: number;
  redisUrl: string | undefined;
  /** Prefix of every Redis key, so several deployments can share one Redis. */
  redisPrefix: string;
  retentionDays: number;
  /** Upload limit in bytes (the contract's 10 MB). */
  maxUploadBytes: number;
  maxInputPixels: number;
  workers: number;
  queueLimit: number;
  conversionTimeoutMs: number;
  /** How long a credit reservation may stay held before a sweep refunds it (its process died). */
  reservationLeaseMs: number;
  /** How often expired reservations are refunded and old records purged. */
  housekeepingIntervalMs: number;
  logLevel: string;
  /** Operability (docs/operations.md): drain bound on SIGTERM, request timeouts, upload admission. */
  shutdownGraceMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  uploadMinBytesPerSecond: number;
  uploadRateWindowMs: number;
  maxConcurrentUploads: number;
  /** Uploads one account may have in flight on a node, below maxConcurrentUploads: none holds every slot. */
  maxUploadsPerAccount: number;
  /** The pages' throttles (docs/limits.md): sign-ups per client address and in all, per hour. */
  signupsPerAddressPerHour: number;
  signupsPerHour: number;
  /** Mails of one kind (reset links, sign-up links and notices) one address is sent on request, per hour. */
  mailsPerAddressPerHour: number;
  /** scrypt computations (log-in, sign-up, reset) running at once on a node. */
  passwordHashConcurrency: number;
  /** The web application (README "First steps in the browser"). */
  /** Base of the links the service sends (password reset); default http://localhost:PORT. */
  publicUrl: string;
  /** `smtp://user:pass@host:port` (or smtps://); unset: reset links are written to the log. */
  smtpUrl: string | undefined;
  /** Sender of the service's emails. */
  mailFrom: string;
  /** Keys signing the session cookie, newest first (SESSION_SECRET, comma-separated); unset: one kept in the store. */
  sessionSecrets: string[] | undefined;
  /**
   * Which proxies' X-Forwarded-For to believe (Fastify's trustProxy): the client address is what
   * the log-in throttle counts per address, so behind a proxy it must be the client's, not the proxy's.
   */
  trustProxy: boolean | string;
  /** Payments through Stripe Checkout; undefined when STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are unset. */
  stripe: StripeConfig | undefined;
}

export interface StripeConfig {
  secretKey: string;
  /** The webhook endpoint's signing secret (whsec_…). */
  webhookSecret: string;
  /** STRIPE_API_BASE as the stripe library's host, port and protocol options (tests, stubs, proxies). */
  apiBase: { host: string; port: number; protocol: 'http' | 'https' } | undefined;
}

export const DEFAULT_SQLITE_URL = 'sqlite:data/vectorize.db';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];

  function integer(name: string, fallback: number, min: number, max: number): number {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    const value = Number(raw);
    if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
      return fallback;
    }
    return value;
  }

  function oneOf(name: string, fallback: string, values: string[]): string {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    if (!values.includes(raw)) {
      problems.push(`${name} must be one of ${values.join(', ')}, got ${JSON.stringify(raw)}`);
      return fallback;
    }
    return raw;
  }

  const databaseUrl = env.DATABASE_URL?.trim() || DEFAULT_SQLITE_URL;
  if (!/^sqlite:.+/.test(databaseUrl) && !/^postgres(ql)?:\/\/.+/.test(databaseUrl)) {
    problems.push(`DATABASE_URL must be sqlite:PATH or postgres://…, got ${JSON.stringify(databaseUrl)}`);
  }
  const redisUrl = env.REDIS_URL?.trim() || undefined;
  if (redisUrl !== undefined && !/^rediss?:\/\/.+/.test(redisUrl)) {
    problems.push(`REDIS_URL must be redis://…, got ${JSON.stringify(redisUrl)}`);
  }
  if (redisUrl !== undefined && databaseUrl.startsWith('sqlite:')) {
    // REDIS_URL means several nodes; an SQLite file lives on one machine and cannot be shared
    // between them (its locking does not hold over network file systems).
    problems.push(
      'REDIS_URL is set but DATABASE_URL is SQLite: REDIS_URL is for several nodes, and SQLite cannot be shared between nodes; set DATABASE_URL to postgres://… or unset REDIS_URL',
    );
  }
  const host = env.HOST?.trim() || '0.0.0.0';

  const config: Config = {
    port: integer('PORT', 8080, 0, 65535),
    host,
    databaseUrl,
    databasePoolSize: integer('DATABASE_POOL_SIZE', 10, 2, 1000),
    redisUrl,
    redisPrefix: env.REDIS_PREFIX?.trim() || 'vectorize:',
    retentionDays: integer('RETENTION_DAYS', 30, 1, 36500),
    maxUploadBytes: 10 * 1024 * 1024,
    maxInputPixels: integer('MAX_INPUT_PIXELS', 100_000_000, 1, 1_000_000_000),
    workers: integer('WORKERS', Math.max(1, availableParallelism()), 1, 256),
    queueLimit: integer('QUEUE_LIMIT', 32, 0, 100_000),
    conversionTimeoutMs: integer('CONVERSION_TIMEOUT_MS', 30_000, 100, 600_000),
    reservationLeaseMs: integer('RESERVATION_LEASE_MS', 15 * 60_000, 1000, 7 * 86_400_000),
    housekeepingIntervalMs: integer('HOUSEKEEPING_INTERVAL_MS', 60_000, 100, 86_400_000),
    logLevel: oneOf('LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    shutdownGraceMs: integer('SHUTDOWN_GRACE_MS', 25_000, 0, 600_000),
    headersTimeoutMs: integer('HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    requestTimeoutMs: integer('REQUEST_TIMEOUT_MS', 120_000, 100, 3_600_000),
    uploadMinBytesPerSecond: integer('UPLOAD_MIN_BYTES_PER_SECOND', 4096, 0, 1_000_000_000),
    uploadRateWindowMs: integer('UPLOAD_RATE_WINDOW_MS', 10_000, 100, 600_000),
    // 0 = automatic, resolved below from WORKERS.
    maxConcurrentUploads: integer('MAX_CONCURRENT_UPLOADS', 0, 0, 100_000),
    // 0 = automatic, resolved below: half of MAX_CONCURRENT_UPLOADS.
    maxUploadsPerAccount: integer('MAX_UPLOADS_PER_ACCOUNT', 0, 0, 100_000),
    signupsPerAddressPerHour: integer('SIGNUPS_PER_ADDRESS_PER_HOUR', 5, 1, 1_000_000),
    signupsPerHour: integer('SIGNUPS_PER_HOUR', 100, 1, 10_000_000),
    mailsPerAddressPerHour: integer('MAILS_PER_ADDRESS_PER_HOUR', 3, 1, 1000),
    passwordHashConcurrency: integer('PASSWORD_HASH_CONCURRENCY', 2, 1, 64),
    publicUrl: '',
    smtpUrl: undefined,
    mailFrom: '',
    sessionSecrets: undefined,
    trustProxy: false,
    stripe: undefined,
  };
  const publicUrl = (env.PUBLIC_URL?.trim() || `http://localhost:${config.port}`).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/\s]+(\/\S*)?$/.test(publicUrl)) {
    problems.push(`PUBLIC_URL must be http://… or https://…, got ${JSON.stringify(publicUrl)}`);
  }
  config.publicUrl = publicUrl;
  const smtpUrl = env.SMTP_URL?.trim() || undefined;
  if (smtpUrl !== undefined && !/^smtps?:\/\/[^/\s]+/.test(smtpUrl)) {
    // Not echoed: the URL may hold the SMTP password.
    problems.push('SMTP_URL must be smtp://user:pass@host:port or smtps://…');
  }
  config.smtpUrl = smtpUrl;
  config.mailFrom = env.MAIL_FROM?.trim() || `vectorize <no-reply@${hostOf(publicUrl)}>`;
  const secrets = env.SESSION_SECRET?.split(',').map((part) => part.trim()).filter((part) => part !== '');
  if (secrets && secrets.some((secret) => secret.length < 32)) {
    // Not echoed: it is a secret.
    problems.push('SESSION_SECRET must be at least 32 characters (each, when several are separated by commas)');
  }
  config.sessionSecrets = secrets && secrets.length > 0 ? secrets : undefined;
  const trustProxy = env.TRUST_PROXY?.trim() ?? '';
  config.trustProxy = trustProxy === '' || trustProxy === 'false' ? false : trustProxy === 'true' ? true : trustProxy;
  config.stripe = stripeConfig(env, problems);
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    problems.push(`HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS (${config.requestTimeoutMs})`);
  }
  // Enough uploads to keep every worker busy with a few waiting; each may hold 10 MB.
  if (config.maxConcurrentUploads === 0) config.maxConcurrentUploads = Math.max(8, 4 * config.workers);
  if (config.maxUploadsPerAccount === 0) config.maxUploadsPerAccount = Math.max(1, Math.floor(config.maxConcurrentUploads / 2));
  else if (config.maxUploadsPerAccount >= config.maxConcurrentUploads && config.maxConcurrentUploads > 1) {
    problems.push(
      `MAX_UPLOADS_PER_ACCOUNT must be below MAX_CONCURRENT_UPLOADS (${config.maxConcurrentUploads}), so that one account cannot hold every upload slot; got ${config.maxUploadsPerAccount}`,
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** Both secrets or neither; their values are never echoed in a message. */
function stripeConfig(env: Env, problems: string[]): StripeConfig | undefined {
  const secretKey = env.STRIPE_SECRET_KEY?.trim() || undefined;
  const webhookSecret = env.STRIPE_WEBHOOK_SECRET?.trim() || undefined;
  const base = env.STRIPE_API_BASE?.trim() || undefined;
  if (secretKey === undefined && webhookSecret === undefined) {
    if (base !== undefined) problems.push('STRIPE_API_BASE is set but STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are not: set both to enable payments');
    return undefined;
  }
  if (secretKey === undefined) problems.push('STRIPE_SECRET_KEY must be set when STRIPE_WEBHOOK_SECRET is (both enable payments)');
  else if (!/^(sk|rk)_(test|live)_\S+$/.test(secretKey)) problems.push('STRIPE_SECRET_KEY must be a Stripe secret key (sk_test_…, sk_live_… or a restricted rk_…)');
  if (webhookSecret === undefined) problems.push('STRIPE_WEBHOOK_SECRET must be set when STRIPE_SECRET_KEY is (both enable payments)');
  else if (!/^whsec_\S+$/.test(webhookSecret)) problems.push('STRIPE_WEBHOOK_SECRET must be the webhook endpoint\'s signing secret (whsec_…)');
  let apiBase: StripeConfig['apiBase'];
  if (base !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(base);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '' || (url.pathname !== '/' && url.pathname !== '') || url.search !== '') {
      problems.push(`STRIPE_API_BASE must be http(s)://host[:port] with no path, got ${JSON.stringify(base)}`);
    } else {
      const protocol = url.protocol === 'http:' ? 'http' : 'https';
      apiBase = { host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443, protocol };
    }
  }
  if (secretKey === undefined || webhookSecret === undefined) return undefined;
  return { secretKey, webhookSecret, apiBase };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname || 'localhost';
  } catch {
    return 'localhost';
  }
}
