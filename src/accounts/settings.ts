// What account holders change themselves: the password, the email (proven by a link to the new
// address) and the account itself (deleted). Each asks for the current password first. Ending
// the account's sessions is the caller's (src/sessions/ may be Redis).
import type { Kysely } from 'kysely';
import { DomainError } from '../errors.ts';
import { listSubscriptions } from '../payments/subscriptions.ts';
import type { Schema } from '../store/schema.ts';
import { findAccount, validEmail } from './accounts.ts';
import { recordAudit } from './audit.ts';
import { invalidateResets } from './credentials.ts';
import { checkNewPassword, type PasswordWork } from './passwords.ts';
import { createEmailToken } from './verification.ts';

/** Who the audit record names for what holders do to their own account. */
export const HOLDER = 'the account holder';

/** Throws `invalid_input` (naming the field) unless `password` is the account's. */
export async function checkCurrentPassword(db: Kysely<Schema>, passwords: PasswordWork, accountId: string, password: string): Promise<void> {
  const row = await db.selectFrom('accounts').select('password_hash').where('id', '=', accountId).where('deleted_at', 'is', null).executeTakeFirst();
  if (!row) throw new DomainError('not_found', 'no such account');
  if (password === '' || !row.password_hash || !(await passwords.verify(password, row.password_hash))) {
    throw new DomainError('invalid_input', 'current password: it is not the password of this account');
  }
}

/** A new password (the current one checked by the caller); every reset link still open dies. */
export async function changePassword(db: Kysely<Schema>, passwords: PasswordWork, accountId: string, password: string, now = Date.now()): Promise<void> {
  checkNewPassword(password);
  const passwordHash = await passwords.hash(password);
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('accounts').set({ password_hash: passwordHash }).where('id', '=', accountId).execute();
    await invalidateResets(trx, accountId, now);
  });
}

export type EmailChangeRequest =
  /** A link to `email`; the account moves there when it is followed. */
  | { kind: 'link'; email: string; token: string }
  /** The address belongs to another account: its holder may be told, nothing else happens. */
  | { kind: 'taken'; email: string };

/** Starts moving the account to `newEmail` (the current password checked by the caller). */
export async function requestEmailChange(db: Kysely<Schema>, accountId: string, newEmail: string, now = Date.now()): Promise<EmailChangeRequest> {
  const email = validEmail(newEmail);
  const account = await findAccount(db, accountId);
  if (!account) throw new DomainError('not_found', 'no such account');
  if (account.email === email) throw new DomainError('invalid_input', 'new email: that is already the email of this account');
  const taken = await db.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirst();
  if (taken) return { kind: 'taken', email };
  return { kind: 'link', email, token: await createEmailToken(db, accountId, 'change', email, now) };
}

/**
 * Deletes the account (the current password checked by the caller), unless a subscription of
 * it still renews (conflict): its keys, conversion records, reservations, links and password
 * go, and its email is freed. Purchases stay, like the ledger, as payment records. The row stays, with no
 * email and no password, so that its ledger rows keep an anonymous trace of every credit given,
 * bought and spent (docs/limits.md); the audit record notes the deletion without the address.
 */
export async function deleteAccount(db: Kysely<Schema>, accountId: string, now = Date.now()): Promise<void> {
  // A subscription that still renews would go on charging an account no one can log in to.
  const renewing = (await listSubscriptions(db, accountId)).find((subscription) => subscription.live && !subscription.cancelAtPeriodEnd);
  if (renewing) {
    throw new DomainError('conflict', `your subscription to the ${renewing.plan} plan still renews: cancel it on the Billing page first, then delete the account`);
  }
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('api_keys').where('account_id', '=', accountId).execute();
    await trx.deleteFrom('conversions').where('account_id', '=', accountId).execute();
    // The converter's kept uploads (issue 20) are the holder's images: they go with the account.
    await trx.deleteFrom('conversion_sources').where('account_id', '=', accountId).execute();
    await trx.deleteFrom('reservations').where('account_id', '=', accountId).execute();
    await trx.deleteFrom('password_resets').where('account_id', '=', accountId).execute();
    await trx.deleteFrom('email_tokens').where('account_id', '=', accountId).execute();
    await trx.deleteFrom('sessions').where('account_id', '=', accountId).execute();
    await trx
      .updateTable('accounts')
      .set({ email: `deleted:${accountId}`, password_hash: null, role: 'user', deleted_at: now })
      .where('id', '=', accountId)
      .execute();
  });
  await recordAudit(db, { actor: HOLDER, action: 'account deleted', accountId, detail: 'deleted by its holder; the ledger is kept without the email' }, now);
}
