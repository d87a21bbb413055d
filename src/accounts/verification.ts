// Proving an email: single-use links mailed at sign-up (`verify`) and to a new address
// (`change`). The first proof of an account's email grants its plan's sign-up credits, once per
// address ever (signup_grants keeps the SHA-256 of each address so given), so neither a second
// account nor a deleted and re-created one gets them again.
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { DomainError } from '../errors.ts';
import type { Schema } from '../store/schema.ts';
import { findAccount, type Account } from './accounts.ts';
import { findPlan } from './plans.ts';

/** A link mailed to prove an address works once, for this long. */
export const EMAIL_LINK_VALIDITY_MS = 24 * 60 * 60 * 1000;

export type EmailTokenPurpose = 'verify' | 'change';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The reason the ledger gives for the free credits, granted when the email is verified. */
export const SIGNUP_GRANT_REASON = 'sign-up (email verified)';

/**
 * A new link's token for `email`; the account's earlier links of the same purpose stop
 * working, so only the latest mail counts.
 */
export async function createEmailToken(db: Kysely<Schema>, accountId: string, purpose: EmailTokenPurpose, email: string, now = Date.now()): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('email_tokens')
      .set({ used_at: now })
      .where('account_id', '=', accountId)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .execute();
    await trx
      .insertInto('email_tokens')
      .values({ token_hash: sha256(token), account_id: accountId, purpose, email, created_at: now, expires_at: now + EMAIL_LINK_VALIDITY_MS, used_at: null })
      .execute();
  });
  return token;
}

/** The outcome of a followed link. */
export interface EmailProof {
  account: Account;
  purpose: EmailTokenPurpose;
  /** Sign-up credits granted by this proof (0: none, or given before). */
  credited: number;
  /** The address had been given the free credits before (another account, or a deleted one). */
  grantedBefore: boolean;
  /** A `change` link: the address the account had until now (told of the change). */
  previousEmail?: string;
}

/**
 * Follows a link, once: the token is claimed (`used_at` from null) in the transaction that
 * records the proof. A `change` link moves the account to the new address, unless another
 * account took it meanwhile (conflict). `undefined` for an unknown, used or expired token, or a
 * `verify` link of an address the account no longer has.
 */
export async function followEmailLink(db: Kysely<Schema>, token: string, now = Date.now()): Promise<EmailProof | undefined> {
  const outcome = await db.transaction().execute(async (trx) => {
    const claimed = await trx
      .updateTable('email_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', sha256(token))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning(['account_id', 'purpose', 'email'])
      .executeTakeFirst();
    if (!claimed) return undefined;
    const purpose = claimed.purpose === 'change' ? 'change' : 'verify';
    const row = await trx.selectFrom('accounts').select('email').where('id', '=', claimed.account_id).where('deleted_at', 'is', null).executeTakeFirst();
    if (!row) return undefined;
    if (purpose === 'verify' && row.email !== claimed.email) return undefined;
    const previousEmail = purpose === 'change' ? row.email : undefined;
    if (purpose === 'change' && row.email !== claimed.email) {
      const taken = await trx.selectFrom('accounts').select('id').where('email', '=', claimed.email).executeTakeFirst();
      if (taken) throw new DomainError('conflict', `${claimed.email} is now the email of another account; nothing was changed`);
      await trx.updateTable('accounts').set({ email: claimed.email }).where('id', '=', claimed.account_id).execute();
    }
    const grant = await markEmailVerified(trx, claimed.account_id, now);
    return { accountId: claimed.account_id, purpose, previousEmail, ...grant } as const;
  });
  if (!outcome) return undefined;
  const account = await findAccount(db, outcome.accountId);
  if (!account) return undefined;
  const { credited, grantedBefore, previousEmail } = outcome;
  return { account, purpose: outcome.purpose, credited, grantedBefore, ...(previousEmail && previousEmail !== account.email ? { previousEmail } : {}) };
}

/**
 * Records that the account's current email is proven. The first time, its plan's sign-up
 * credits are granted (a `grant` in the ledger), unless that address was given them before.
 * Runs inside the caller's transaction.
 */
export async function markEmailVerified(trx: Kysely<Schema>, accountId: string, now: number): Promise<{ credited: number; grantedBefore: boolean }> {
  const first = await trx
    .updateTable('accounts')
    .set({ email_verified_at: now })
    .where('id', '=', accountId)
    .where('email_verified_at', 'is', null)
    .returning(['email', 'plan'])
    .executeTakeFirst();
  if (!first) return { credited: 0, grantedBefore: false };
  const credits = (await findPlan(trx, first.plan))?.signupCredits ?? 0;
  if (credits <= 0) return { credited: 0, grantedBefore: false };
  const granted = await trx
    .insertInto('signup_grants')
    .values({ email_hash: sha256(first.email), created_at: now })
    .onConflict((oc) => oc.column('email_hash').doNothing())
    .returning('email_hash')
    .executeTakeFirst();
  if (!granted) return { credited: 0, grantedBefore: true };
  await trx.updateTable('accounts').set((eb) => ({ credits: eb('credits', '+', credits) })).where('id', '=', accountId).execute();
  await trx
    .insertInto('ledger')
    .values({ account_id: accountId, delta: credits, kind: 'grant', reason: SIGNUP_GRANT_REASON, conversion_id: null, created_at: now })
    .execute();
  return { credited: credits, grantedBefore: false };
}

/** A fresh sign-up link for an account whose email is not verified yet; `undefined` once it is. */
export async function renewVerificationLink(db: Kysely<Schema>, accountId: string, now = Date.now()): Promise<{ token: string; email: string } | undefined> {
  const account = await findAccount(db, accountId);
  if (!account || account.emailVerified) return undefined;
  return { token: await createEmailToken(db, accountId, 'verify', account.email, now), email: account.email };
}

export async function purgeExpiredEmailTokens(db: Kysely<Schema>, now = Date.now()): Promise<void> {
  await db.deleteFrom('email_tokens').where('expires_at', '<', now - EMAIL_LINK_VALIDITY_MS).execute();
}
