// A named lock that one caller holds at a time across every node sharing the store, for work
// that must not run twice at once (housekeeping). A caller that finds it taken skips; it does
// not wait: the holder is doing the same work.
import { sql } from 'kysely';
import type { Store } from './database.ts';

export type LockOutcome<T> = { ran: true; value: T } | { ran: false };

// SQLite is one node (the config refuses REDIS_URL over it), so a lock in the process is enough.
const heldInProcess = new WeakMap<Store, Set<string>>();

/**
 * Runs `work` under the lock `name`, or returns `{ ran: false }` at once when another caller
 * holds it. On PostgreSQL: a transaction-scoped advisory lock (`pg_try_advisory_xact_lock`) on
 * a connection of its own, held while `work` runs on the pool; the commit releases it, and so
 * does PostgreSQL when the node dies and its connection drops, so a lock is never left behind.
 */
export async function withStoreLock<T>(store: Store, name: string, work: () => Promise<T>): Promise<LockOutcome<T>> {
  if (store.dialect === 'postgres') {
    return store.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(hashtext(${`vectorize:${name}`})) as locked`.execute(trx);
      if (rows[0]?.locked !== true) return { ran: false };
      return { ran: true, value: await work() };
    });
  }
  let held = heldInProcess.get(store);
  if (!held) heldInProcess.set(store, (held = new Set()));
  if (held.has(name)) return { ran: false };
  held.add(name);
  try {
    return { ran: true, value: await work() };
  } finally {
    held.delete(name);
  }
}
