// Signing up, checking a password and resetting it: the account side of the web pages.
// Sessions are the pages' business (src/sessions/); these work on accounts and passwords only.
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { DomainError } from '../errors.ts';
import type { Schema } from '../store/schema.ts';
import { createAccount, findAccount, normaliseEmail, validEmail, type Account } from './accounts.ts';
import { checkNewPassword, decoyHash, hashPassword, verifyPassword } from './passwords.ts';

export const RESET_LINK_VALIDITY_MS = 60 * 60 * 1000;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * A new free account with its sign-up credits and this password. `undefined` when the email is
 * taken: the caller answers as for a fresh sign-up, so the page never tells that an email exists.
 */
export async function signUp(db: Kysely<Schema>, input: { email: string; password: string }, now = Date.now()): Promise<Account | undefined> {
  const email = validEmail(input.email);
  checkNewPassword(input.password);
  const passwordHash = await hashPassword(input.password);
  try {
    return await createAccount(db, { email, passwordHash }, now);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'conflict') return undefined;
    throw error;
  }
}

/**
 * The account whose email and password these are, or `undefined`. Unknown emails and accounts
 * without a password verify against a decoy hash: the same work, the same time, the same answer.
 */
export async function checkCredentials(db: Kysely<Schema>, email: string, password: string): Promise<Account | undefined> {
  const row = await db
    .selectFrom('accounts')
    .select(['id', 'password_hash'])
    .where('email', '=', normaliseEmail(email))
    .executeTakeFirst();
  const stored = row?.password_hash ?? (await decoyHash());
  const matches = await verifyPassword(password, stored);
  if (!row?.password_hash || !matches) return undefined;
  return findAccount(db, row.id);
}

/** A single-use reset token for the account with this email, or `undefined` when there is none. */
export async function createPasswordReset(
  db: Kysely<Schema>,
  email: string,
  now = Date.now(),
): Promise<{ token: string; account: Account } | undefined> {
  const row = await db.selectFrom('accounts').select('id').where('email', '=', normaliseEmail(email)).executeTakeFirst();
  const account = row ? await findAccount(db, row.id) : undefined;
  if (!account) return undefined;
  const token = randomBytes(32).toString('base64url');
  await db
    .insertInto('password_resets')
    .values({ token_hash: sha256(token), account_id: account.id, created_at: now, expires_at: now + RESET_LINK_VALIDITY_MS, used_at: null })
    .execute();
  return { token, account };
}

/** True when the token can still be used (shown before asking for the new password). */
export async function isResetTokenValid(db: Kysely<Schema>, token: string, now = Date.now()): Promise<boolean> {
  const row = await db
    .selectFrom('password_resets')
    .select('token_hash')
    .where('token_hash', '=', sha256(token))
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Sets a new password with a reset token, once: claiming the token (`used_at` from null) is the
 * guard, in the transaction that changes the password. Returns the account id.
 */
export async function resetPassword(db: Kysely<Schema>, token: string, password: string, now = Date.now()): Promise<string> {
  checkNewPassword(password);
  const passwordHash = await hashPassword(password);
  return db.transaction().execute(async (trx) => {
    const claimed = await trx
      .updateTable('password_resets')
      .set({ used_at: now })
      .where('token_hash', '=', sha256(token))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('account_id')
      .executeTakeFirst();
    if (!claimed) throw new DomainError('not_found', 'this reset link has expired or was already used');
    await trx.updateTable('accounts').set({ password_hash: passwordHash }).where('id', '=', claimed.account_id).execute();
    return claimed.account_id;
  });
}

export async function purgeExpiredResets(db: Kysely<Schema>, now = Date.now()): Promise<void> {
  await db.deleteFrom('password_resets').where('expires_at', '<', now - RESET_LINK_VALIDITY_MS).execute();
}
