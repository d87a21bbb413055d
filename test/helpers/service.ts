// Starts the real service on a free port for a test, over a fresh database.
import { Writable } from 'node:stream';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger, startService, type Service } from '../../src/service.ts';
import { openStore } from '../../src/store/database.ts';
import { createAccount } from '../../src/accounts/accounts.ts';
import { createKey } from '../../src/accounts/keys.ts';
import { updatePlan } from '../../src/accounts/plans.ts';
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

/**
 * Every service a test starts logs at trace level into memory, and its close() fails the
 * test if any line holds an API key or a credential: this checks the logs of the whole run.
 */
export interface CapturedLogs {
  lines: string[];
  /** Values that must never be logged (the keys this service handed out). */
  secrets: Set<string>;
}

export function captureLogs(): { stream: Writable; logs: CapturedLogs } {
  const logs: CapturedLogs = { lines: [], secrets: new Set() };
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logs.lines.push(line);
      done();
    },
  });
  return { stream, logs };
}

/** Lines that leak a key handed out in the test, anything shaped like a key, or a bearer credential. */
export function leakingLines(logs: CapturedLogs): string[] {
  return logs.lines.filter(
    (line) =>
      [...logs.secrets].some((secret) => line.includes(secret)) ||
      /vk_(?:test_)?[A-Za-z0-9]{16,}/.test(line) ||
      /Bearer\s+(?!\[redacted\])\S/i.test(line),
  );
}

export interface TestService extends Service {
  database: TestDatabase;
  logs: CapturedLogs;
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
  const { stream, logs } = captureLogs();
  const service = await startService(config, {
    now: options.now,
    logger: createLogger('trace', stream),
  });
  return {
    ...service,
    database,
    logs,
    async accountWithKey(email, accountOptions = {}) {
      const account = await createAccount(service.store.db, { email, ...accountOptions });
      const { key } = await createKey(service.store.db, account.id, 'test');
      logs.secrets.add(key);
      return key;
    },
    async close() {
      await service.close();
      const leaks = leakingLines(logs);
      if (leaks.length > 0) throw new Error(`${leaks.length} log line(s) hold a key or credential, e.g. ${leaks[0]}`);
    },
  };
}

/** Opens a second handle on the same database, as the admin CLI would. */
export async function openSameStore(database: TestDatabase) {
  return openStore(database.url);
}

/** Free stays metered but loses its burst, concurrency and daily limits, for tests about other things. */
export async function liftFreeLimits(service: Service): Promise<void> {
  await updatePlan(service.store.db, 'free', { dailyQuota: null, burstPerSecond: null, concurrency: null });
}
