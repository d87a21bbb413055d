// Signing up, checking a password and resetting it: the account side of the web pages.
// Sessions are the pages' business (src/sessions/); these work on accounts and passwords only.
// Every scrypt computation goes through the caller's PasswordWork, which bounds them.
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { DomainError } from '../errors.ts';
import type { Schema } from '../store/schema.ts';
import { createAccount, findAccount, normaliseEmail, validEmail, type Account } from './accounts.ts';
import { checkNewPassword, decoyHash, type PasswordWork } from './passwords.ts';
import { createEmailToken, markEmailVerified } from './verification.ts';

export const RESET_LINK_VALIDITY_MS = 60 * 60 * 1000;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * A new free account with this password, unverified and without credits, and the token of the
 * link that verifies it (and grants its sign-up credits). `undefined` when the email is taken:
 * the caller answers as for a fresh sign-up, so the page never tells that an email exists. The
 * password is hashed either way, so both take the same time.
 */
export async function signUp(
  db: Kysely<Schema>,
  passwords: PasswordWork,
  input: { email: string; password: string },
  now = Date.now(),
): Promise<{ account: Account; token: string } | undefined> {
  const email = validEmail(input.email);
  checkNewPassword(input.password);
  const passwordHash = await passwords.hash(input.password);
  let account: Account;
  try {
    account = await createAccount(db, { email, passwordHash, credits: 0, verified: false }, now);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'conflict') return undefined;
    throw error;
  }
  return { account, token: await createEmailToken(db, account.id, 'verify', email, now) };
}

/**
 * The account whose email and password these are, or `undefined`. Unknown emails and accounts
 * without a password verify against a decoy hash: the same work, the same time, the same answer.
 */
export async function checkCredentials(db: Kysely<Schema>, passwords: PasswordWork, email: string, password: string): Promise<Account | undefined> {
  const row = await db
    .selectFrom('accounts')
    .select(['id', 'password_hash'])
    .where('email', '=', normaliseEmail(email))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  const stored = row?.password_hash ?? (await decoyHash());
  const matches = await passwords.verify(password, stored);
  if (!row?.password_hash || !matches) return undefined;
  return findAccount(db, row.id);
}

/** A single-use reset token for the account with this email, or `undefined` when there is none. */
export async function createPasswordReset(
  db: Kysely<Schema>,
  email: string,
  now = Date.now(),
): Promise<{ token: string; account: Account } | undefined> {
  const row = await db
    .selectFrom('accounts')
    .select('id')
    .where('email', '=', normaliseEmail(email))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
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
 * guard, in the transaction that changes the password. Every other link of the account dies
 * with it, and the email counts as verified (the link was opened from its mailbox). Returns
 * the account id.
 */
export async function resetPassword(
  db: Kysely<Schema>,
  passwords: PasswordWork,
  token: string,
  password: string,
  now = Date.now(),
): Promise<string> {
  checkNewPassword(password);
  // Cheap refusal first: a dead link costs no hash.
  if (!(await isResetTokenValid(db, token, now))) throw new DomainError('not_found', 'this reset link has expired or was already used');
  const passwordHash = await passwords.hash(password);
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
    await invalidateResets(trx, claimed.account_id, now);
    await markEmailVerified(trx, claimed.account_id, now);
    return claimed.account_id;
  });
}

/** Every reset link of the account still open stops working (one was used, or the password changed). */
export async function invalidateResets(db: Kysely<Schema>, accountId: string, now: number): Promise<void> {
  await db.updateTable('password_resets').set({ used_at: now }).where('account_id', '=', accountId).where('used_at', 'is', null).execute();
}

export async function purgeExpiredResets(db: Kysely<Schema>, now = Date.now()): Promise<void> {
  await db.deleteFrom('password_resets').where('expires_at', '<', now - RESET_LINK_VALIDITY_MS).execute();
}
