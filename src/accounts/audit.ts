// The audit record: what an admin changed that the ledger does not hold (plan, status, role,
// keys, plan limits), with who did it. Credit changes are in the ledger, with the admin's email
// in their reason.
import type { Kysely } from 'kysely';
import type { Schema } from '../store/schema.ts';

export interface AuditEntry {
  actor: string;
  action: string;
  accountId: string | null;
  detail: string;
  createdAt: number;
}

export async function recordAudit(db: Kysely<Schema>, entry: Omit<AuditEntry, 'createdAt'>, now = Date.now()): Promise<void> {
  await db
    .insertInto('audit')
    .values({ actor: entry.actor, action: entry.action, account_id: entry.accountId, detail: entry.detail, created_at: now })
    .execute();
}

/** Newest first; of one account, or of everything (`accountId` undefined). */
export async function listAudit(db: Kysely<Schema>, accountId?: string, limit = 50): Promise<AuditEntry[]> {
  let query = db.selectFrom('audit').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit);
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  const rows = await query.execute();
  return rows.map((row) => ({
    actor: row.actor,
    action: row.action,
    accountId: row.account_id,
    detail: row.detail,
    createdAt: Number(row.created_at),
  }));
}
