// Starts the real service on a free port for a test, over a fresh database.
import { Writable } from 'node:stream';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger, startService, type Service } from '../../src/service.ts';
import { openStore } from '../../src/store/database.ts';
import { createAccount } from '../../src/accounts/accounts.ts';
import { createKey } from '../../src/accounts/keys.ts';
import { updatePlan } from '../../src/accounts/plans.ts';
import type { Mailbox } from './pages.ts';
import { PageClient } from './pages.ts';
import type { SmtpSink } from './smtp.ts';
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
  /** The mails the service wrote to its log (SMTP_URL unset), as a mailbox. */
  mailbox: Mailbox;
  /** A page client that can follow mailed links. */
  pages(): PageClient;
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
    // Every test signs up from 127.0.0.1: the sign-up throttle's own tests set their numbers.
    SIGNUPS_PER_ADDRESS_PER_HOUR: '1000',
    ...options.env,
  });
  const { stream, logs } = captureLogs();
  const service = await startService(config, {
    now: options.now,
    logger: createLogger('trace', stream),
  });
  const mailbox = logMailbox(logs);
  return {
    ...service,
    database,
    logs,
    mailbox,
    pages: () => new PageClient(service.url, mailbox),
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

const LINK = /https?:\/\/[^\s"]+/g;

function firstLink(text: string, path: string): string | undefined {
  // A link that ends a sentence leaves its full stop behind.
  return [...text.matchAll(LINK)].map((m) => m[0].replace(/[.,;:)]+$/, '')).find((link) => new URL(link).pathname === path);
}

async function poll<T>(find: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Mail written to the log (SMTP_URL unset): `{"mail":{"to","subject","text"}}` lines. */
export function logMailbox(logs: CapturedLogs): Mailbox {
  return {
    mark: () => logs.lines.length,
    linkTo: (email, path, since = 0) =>
      poll(() => {
        for (const line of logs.lines.slice(since)) {
          if (!line.includes('"mail":')) continue;
          const mail = (JSON.parse(line) as { mail?: { to: string; text: string } }).mail;
          const link = mail?.to === email ? firstLink(mail.text, path) : undefined;
          if (link) return link;
        }
        return undefined;
      }, `mail to ${email} with a link to ${path}`),
  };
}

/** A test SMTP server's mail, as a mailbox. */
export function smtpMailbox(smtp: SmtpSink): Mailbox {
  return {
    mark: () => smtp.mails.length,
    linkTo: (email, path, since = 0) =>
      poll(() => {
        for (const mail of smtp.mails.slice(since)) {
          const link = mail.to.includes(email) ? firstLink(mail.text, path) : undefined;
          if (link) return link;
        }
        return undefined;
      }, `mail to ${email} with a link to ${path}`),
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
