// Sessions in Redis (REDIS_URL set): one key per session holding its record, expiring with it,
// and one set per account listing its sessions so that a password change can end them all.
import { redisCommand, type Redis } from '../store/redis.ts';
import { expiryOf, hashSessionId, newSessionId, SESSION_ABSOLUTE_MS, type Session, type SessionStore } from './sessions.ts';

interface StoredSession {
  accountId: string;
  csrfSecret: string;
  createdAt: number;
  lastSeenAt: number;
}

/** Sessions on the node's Redis connection (src/store/redis.ts), which its owner closes. */
export function createRedisSessionStore(redis: Redis, prefix: string): SessionStore {
  const sessionKey = (id: string) => `${prefix}session:${hashSessionId(id)}`;
  const accountKey = (accountId: string) => `${prefix}account-sessions:${accountId}`;

  const command = <T>(run: () => Promise<T>) => redisCommand('the session store', run);

  async function save(id: string, stored: StoredSession, now: number): Promise<void> {
    const ttl = expiryOf(stored.createdAt, stored.lastSeenAt) - now;
    if (ttl <= 0) return;
    await command(async () => {
      // The list outlives any of its sessions: no session lasts longer than the absolute limit.
      await redis
        .multi()
        .set(sessionKey(id), JSON.stringify(stored), 'PX', ttl)
        .sadd(accountKey(stored.accountId), hashSessionId(id))
        .pexpire(accountKey(stored.accountId), SESSION_ABSOLUTE_MS)
        .exec();
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
      // An anonymous one from before sessions began at log-in: it expires by itself.
      if (!stored.accountId || expiryOf(stored.createdAt, stored.lastSeenAt) <= now) return undefined;
      return { id, ...stored } satisfies Session;
    },
    async touch(session, now) {
      await save(session.id, { accountId: session.accountId, csrfSecret: session.csrfSecret, createdAt: session.createdAt, lastSeenAt: now }, now);
    },
    async destroy(id) {
      await command(() => redis.del(sessionKey(id)));
    },
    async destroyAccount(accountId, except) {
      const kept = except === undefined ? undefined : hashSessionId(except);
      await command(async () => {
        const hashes = (await redis.smembers(accountKey(accountId))).filter((hash) => hash !== kept);
        if (hashes.length > 0) {
          await redis
            .multi()
            .del(...hashes.map((hash) => `${prefix}session:${hash}`))
            .srem(accountKey(accountId), ...hashes)
            .exec();
        }
      });
    },
    // Redis expires sessions by itself.
    purgeExpired: async () => 0,
    // The connection is the node's, closed by its owner.
    close: async () => {},
  };
}
