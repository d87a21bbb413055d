// Sessions in Redis (REDIS_URL set): one key per session holding its record, expiring with it,
// and one set per account listing its sessions so that a password change can end them all.
import { Redis } from 'ioredis';
import { DomainError } from '../errors.ts';
import { expiryOf, hashSessionId, newSessionId, SESSION_ABSOLUTE_MS, type Session, type SessionStore } from './sessions.ts';

interface StoredSession {
  accountId: string | null;
  csrfSecret: string;
  createdAt: number;
  lastSeenAt: number;
}

export async function createRedisSessionStore(url: string, prefix: string): Promise<SessionStore> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', () => {
    // Reported per command as 503; ioredis reconnects by itself.
  });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(`REDIS_URL: cannot connect to Redis: ${(error as Error).message}`, { cause: error });
  }
  const sessionKey = (id: string) => `${prefix}session:${hashSessionId(id)}`;
  const accountKey = (accountId: string) => `${prefix}account-sessions:${accountId}`;

  async function command<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch {
      throw new DomainError('unavailable', 'the session store is unavailable; retry shortly', { retryAfterSeconds: 5 });
    }
  }

  async function save(id: string, stored: StoredSession, now: number): Promise<void> {
    const ttl = expiryOf(stored.createdAt, stored.lastSeenAt) - now;
    if (ttl <= 0) return;
    await command(async () => {
      const batch = redis.multi().set(sessionKey(id), JSON.stringify(stored), 'PX', ttl);
      if (stored.accountId) {
        // The list outlives any of its sessions: no session lasts longer than the absolute limit.
        batch.sadd(accountKey(stored.accountId), hashSessionId(id)).pexpire(accountKey(stored.accountId), SESSION_ABSOLUTE_MS);
      }
      await batch.exec();
    });
  }

  return {
    async create(accountId, csrfSecret, now) {
      const id = newSessionId();
      await save(id, { accountId, csrfSecret, createdAt: now, lastSeenAt: now }, now);
      return { id, accountId, csrfSecret, createdAt: now, lastSeenAt: now };
    },
    async find(id, now) {
      const text = await command(() => redis.get(sessionKey(id)));
      if (!text) return undefined;
      const stored = JSON.parse(text) as StoredSession;
      if (expiryOf(stored.createdAt, stored.lastSeenAt) <= now) return undefined;
      return { id, ...stored } satisfies Session;
    },
    async touch(session, now) {
      await save(session.id, { accountId: session.accountId, csrfSecret: session.csrfSecret, createdAt: session.createdAt, lastSeenAt: now }, now);
    },
    async destroy(id) {
      await command(() => redis.del(sessionKey(id)));
    },
    async destroyAccount(accountId) {
      await command(async () => {
        const hashes = await redis.smembers(accountKey(accountId));
        if (hashes.length > 0) await redis.del(...hashes.map((hash) => `${prefix}session:${hash}`));
        await redis.del(accountKey(accountId));
      });
    },
    // Redis expires sessions by itself.
    purgeExpired: async () => 0,
    async close() {
      redis.disconnect();
    },
  };
}
