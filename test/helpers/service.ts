// Starts the real service on a free port for a test, over a fresh database.
import pino from 'pino';
import { loadConfig, type Config } from '../../src/config.ts';
import { startService, type Service } from '../../src/service.ts';
import { openStore } from '../../src/store/database.ts';
import { createAccount } from '../../src/accounts/accounts.ts';
import { createKey } from '../../src/accounts/keys.ts';
import type { TestDatabase } from './stores.ts';

export interface TestClock {
  now: () => number;
  set(ms: number): void;
  advance(ms: number): void;
}

export function testClock(start = Date.UTC(2026, 10, 21, 4, 25, 13, 123)): TestClock {
  let current = start;
  return {
    now: () => current,
    set: (ms) => {
      current = ms;
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

export interface TestService extends Service {
  database: TestDatabase;
  /** Creates an account and a key for it; returns the key. */
  accountWithKey(email: string, options?: { plan?: string; credits?: number }): Promise<string>;
}

export async function startTestService(
  database: TestDatabase,
  options: { env?: Record<string, string>; now?: () => number } = {},
): Promise<TestService> {
  const config: Config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    WORKERS: '2',
    LOG_LEVEL: 'silent',
    HOUSEKEEPING_INTERVAL_MS: '3600000',
    ...options.env,
  });
  const service = await startService(config, {
    now: options.now,
    logger: pino({ level: 'silent' }),
  });
  return {
    ...service,
    database,
    async accountWithKey(email, accountOptions = {}) {
      await createAccount(service.store.db, { email, ...accountOptions });
      const { key } = await createKey(service.store.db, email, 'test');
      return key;
    },
  };
}

/** Opens a second handle on the same database, as the admin CLI would. */
export async function openSameStore(database: TestDatabase) {
  return openStore(database.url);
}

/** Free stays metered but loses its burst, concurrency and daily limits, for tests about other things. */
export async function liftFreeLimits(service: Service): Promise<void> {
  const { updatePlan } = await import('../../src/accounts/plans.ts');
  await updatePlan(service.store.db, 'free', { dailyQuota: null, burstPerSecond: null, concurrency: null });
}
