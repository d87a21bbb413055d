// Web sessions of logged-in accounts live on the server, so any node can serve any request: in
// the database, or in Redis when REDIS_URL is set. Anonymous visitors have none. The cookie carries a random 256-bit id; the store keeps only its
// SHA-256, so a copy of the store does not hold a usable session id.
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Schema } from '../store/schema.ts';

/** A session ends 14 days after it began, or after 24 hours without a request. */
export const SESSION_ABSOLUTE_MS = 14 * 24 * 60 * 60 * 1000;
export const SESSION_IDLE_MS = 24 * 60 * 60 * 1000;
/** `last_seen_at` moves at most this often, so a busy page does not write on every request. */
export const SESSION_TOUCH_INTERVAL_MS = 60 * 1000;

export interface Session {
  /** The id the cookie carries; never stored, never logged. */
  id: string;
  accountId: string;
  csrfSecret: string;
  createdAt: number;
  lastSeenAt: number;
}

export interface SessionStore {
  create(accountId: string, csrfSecret: string, now: number): Promise<Session>;
  /** The live session with this id, or undefined (unknown, ended or expired). */
  find(id: string, now: number): Promise<Session | undefined>;
  /** Marks the session used now, extending its idle expiry (never past the absolute one). */
  touch(session: Session, now: number): Promise<void>;
  destroy(id: string): Promise<void>;
  /** Ends every session of an account (a reset, a ban, a deletion), or every other one (`except`: a password change). */
  destroyAccount(accountId: string, except?: string): Promise<void>;
  purgeExpired(now: number): Promise<number>;
  close(): Promise<void>;
}

export function hashSessionId(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

export function expiryOf(createdAt: number, lastSeenAt: number): number {
  return Math.min(createdAt + SESSION_ABSOLUTE_MS, lastSeenAt + SESSION_IDLE_MS);
}

export function createSqlSessionStore(db: Kysely<Schema>): SessionStore {
  return {
    async create(accountId, csrfSecret, now) {
      const id = newSessionId();
      await db
        .insertInto('sessions')
        .values({
          id_hash: hashSessionId(id),
          account_id: accountId,
          csrf_secret: csrfSecret,
          created_at: now,
          last_seen_at: now,
          expires_at: expiryOf(now, now),
        })
        .execute();
      return { id, accountId, csrfSecret, createdAt: now, lastSeenAt: now };
    },
    async find(id, now) {
      const row = await db
        .selectFrom('sessions')
        .selectAll()
        .where('id_hash', '=', hashSessionId(id))
        .where('expires_at', '>', now)
        .executeTakeFirst();
      // An anonymous row from before sessions began at log-in (the migration removes them).
      if (!row?.account_id) return undefined;
      return {
        id,
        accountId: row.account_id,
        csrfSecret: row.csrf_secret,
        createdAt: Number(row.created_at),
        lastSeenAt: Number(row.last_seen_at),
      };
    },
    async touch(session, now) {
      await db
        .updateTable('sessions')
        .set({ last_seen_at: now, expires_at: expiryOf(session.createdAt, now) })
        .where('id_hash', '=', hashSessionId(session.id))
        .execute();
    },
    async destroy(id) {
      await db.deleteFrom('sessions').where('id_hash', '=', hashSessionId(id)).execute();
    },
    async destroyAccount(accountId, except) {
      let query = db.deleteFrom('sessions').where('account_id', '=', accountId);
      if (except !== undefined) query = query.where('id_hash', '!=', hashSessionId(except));
      await query.execute();
    },
    async purgeExpired(now) {
      const result = await db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    close: async () => {},
  };
}
