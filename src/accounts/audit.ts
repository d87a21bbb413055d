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

/** An entry as listed: with the email of the account it concerns (null: a plan, or a deleted account). */
export interface ListedAuditEntry extends AuditEntry {
  accountEmail: string | null;
}

export async function recordAudit(db: Kysely<Schema>, entry: Omit<AuditEntry, 'createdAt'>, now = Date.now()): Promise<void> {
  await db
    .insertInto('audit')
    .values({ actor: entry.actor, action: entry.action, account_id: entry.accountId, detail: entry.detail, created_at: now })
    .execute();
}

/** Newest first; of one account, or of everything (`accountId` undefined). */
export async function listAudit(db: Kysely<Schema>, accountId?: string, limit = 50): Promise<ListedAuditEntry[]> {
  let query = db
    .selectFrom('audit')
    .leftJoin('accounts', 'accounts.id', 'audit.account_id')
    .selectAll('audit')
    .select(['accounts.email as account_email', 'accounts.deleted_at as account_deleted_at'])
    .orderBy('audit.created_at', 'desc')
    .orderBy('audit.id', 'desc')
    .limit(limit);
  if (accountId !== undefined) query = query.where('audit.account_id', '=', accountId);
  const rows = await query.execute();
  return rows.map((row) => ({
    actor: row.actor,
    action: row.action,
    accountId: row.account_id,
    detail: row.detail,
    createdAt: Number(row.created_at),
    accountEmail: row.account_deleted_at === null ? row.account_email : null,
  }));
}
