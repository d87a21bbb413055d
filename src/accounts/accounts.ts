// Accounts: an email, a plan, a status, a role and a credit balance whose every change is in
// the ledger. Operations are keyed by account id; finding an account by email is for the
// front-ends that start from one (log-in, the admin search, the CLI).
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { DomainError } from '../errors.ts';
import type { Db } from '../store/database.ts';
import type { Schema } from '../store/schema.ts';
import { findPlan, planFromRow, type Plan } from './plans.ts';

export const ACCOUNT_STATUSES = ['active', 'suspended', 'banned'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

export const ACCOUNT_ROLES = ['user', 'admin'] as const;
export type AccountRole = (typeof ACCOUNT_ROLES)[number];

export interface Account {
  id: string;
  email: string;
  plan: Plan;
  status: AccountStatus;
  role: AccountRole;
  credits: number;
  createdAt: number;
  /** The email was proven by a mailed link (or the operator created the account). */
  emailVerified: boolean;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const EMAIL_MAX_LENGTH = 254;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The email as stored, or a DomainError saying what is wrong with it. */
export function validEmail(input: string): string {
  const email = normaliseEmail(input);
  if (!EMAIL.test(email) || email.length > EMAIL_MAX_LENGTH) {
    throw new DomainError('invalid_input', `email: not an email address: ${JSON.stringify(input)}`);
  }
  return email;
}

/**
 * A new account. The operator's (the CLI, the tests' helpers) is verified and gets its plan's
 * sign-up credits at once; a web sign-up passes `verified: false` and `credits: 0`, and its
 * credits wait for the mailed link (src/accounts/verification.ts).
 */
export async function createAccount(
  db: Kysely<Schema>,
  input: { email: string; plan?: string; credits?: number; passwordHash?: string; verified?: boolean },
  now = Date.now(),
): Promise<Account> {
  const email = validEmail(input.email);
  const plan = await findPlan(db, input.plan ?? 'free');
  if (!plan) throw new DomainError('invalid_input', `unknown plan: ${JSON.stringify(input.plan)}`);
  const verified = input.verified ?? true;
  const credits = input.credits ?? plan.signupCredits;
  if (!Number.isSafeInteger(credits) || credits < 0) throw new DomainError('invalid_input', 'credits must be a non-negative integer');
  const id = `acc_${randomBytes(9).toString('base64url')}`;
  await db.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirst();
    if (existing) throw new DomainError('conflict', `an account with email ${email} already exists`);
    await trx
      .insertInto('accounts')
      .values({
        id,
        email,
        plan: plan.name,
        status: 'active',
        role: 'user',
        credits,
        created_at: now,
        password_hash: input.passwordHash ?? null,
        email_verified_at: verified ? now : null,
        deleted_at: null,
      })
      .execute();
    if (credits > 0) {
      await trx
        .insertInto('ledger')
        .values({ account_id: id, delta: credits, kind: 'grant', reason: 'sign-up', conversion_id: null, created_at: now })
        .execute();
    }
  });
  return { id, email, plan, status: 'active', role: 'user', credits, createdAt: now, emailVerified: verified };
}

/** The account columns to select beside `plans.*` when reading an account with its plan. */
export const ACCOUNT_COLUMNS = [
  'accounts.id as account_id',
  'accounts.email',
  'accounts.status',
  'accounts.role',
  'accounts.credits',
  'accounts.created_at',
  'accounts.email_verified_at',
] as const;

type AccountRow = Schema['plans'] & {
  account_id: string;
  email: string;
  status: string;
  role: string;
  credits: number;
  created_at: number;
  email_verified_at: number | null;
};

export function accountFromRow(row: AccountRow): Account {
  return {
    id: row.account_id,
    email: row.email,
    plan: planFromRow(row),
    status: row.status as AccountStatus,
    role: row.role === 'admin' ? 'admin' : 'user',
    credits: Number(row.credits),
    createdAt: Number(row.created_at),
    emailVerified: row.email_verified_at !== null,
  };
}

/** Live accounts with their plan; a deleted account's anonymous row is found by nothing. */
function accountQuery(db: Db) {
  return db
    .selectFrom('accounts')
    .innerJoin('plans', 'plans.name', 'accounts.plan')
    .selectAll('plans')
    .select(ACCOUNT_COLUMNS)
    .where('accounts.deleted_at', 'is', null);
}

export async function findAccount(db: Db, id: string): Promise<Account | undefined> {
  const row = await accountQuery(db).where('accounts.id', '=', id).executeTakeFirst();
  return row ? accountFromRow(row) : undefined;
}

export async function findAccountByEmail(db: Db, email: string): Promise<Account | undefined> {
  const row = await accountQuery(db).where('accounts.email', '=', normaliseEmail(email)).executeTakeFirst();
  return row ? accountFromRow(row) : undefined;
}

/** Accounts whose email contains `text`, for the admin's search; at most `limit`. */
export async function searchAccounts(db: Db, text: string, limit = 50): Promise<Account[]> {
  // `%` and `_` in the text are literal; SQLite needs ESCAPE spelt out, PostgreSQL accepts it.
  const pattern = `%${normaliseEmail(text).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await accountQuery(db)
    .where(sql<boolean>`accounts.email like ${pattern} escape '\\'`)
    .orderBy('accounts.email')
    .limit(limit)
    .execute();
  return rows.map(accountFromRow);
}

export async function requireAccountById(db: Db, id: string): Promise<Account> {
  const account = await findAccount(db, id);
  if (!account) throw new DomainError('not_found', 'no such account');
  return account;
}

export interface AccountChanges {
  plan?: string;
  status?: string;
  role?: string;
}

/** Changes plan, status or role; returns the account before and after, for the audit record. */
export async function updateAccount(
  db: Kysely<Schema>,
  accountId: string,
  changes: AccountChanges,
): Promise<{ before: Account; after: Account }> {
  const before = await requireAccountById(db, accountId);
  const values: Partial<Schema['accounts']> = {};
  if (changes.plan !== undefined) {
    const plan = await findPlan(db, changes.plan);
    if (!plan) throw new DomainError('invalid_input', `unknown plan: ${JSON.stringify(changes.plan)}`);
    values.plan = plan.name;
  }
  if (changes.status !== undefined) {
    if (!(ACCOUNT_STATUSES as readonly string[]).includes(changes.status)) {
      throw new DomainError('invalid_input', `unknown status: ${JSON.stringify(changes.status)}; use ${ACCOUNT_STATUSES.join(', ')}`);
    }
    values.status = changes.status;
  }
  if (changes.role !== undefined) {
    if (!(ACCOUNT_ROLES as readonly string[]).includes(changes.role)) {
      throw new DomainError('invalid_input', `unknown role: ${JSON.stringify(changes.role)}; use ${ACCOUNT_ROLES.join(', ')}`);
    }
    values.role = changes.role;
  }
  if (Object.keys(values).length > 0) {
    await db.updateTable('accounts').set(values).where('id', '=', accountId).execute();
  }
  return { before, after: await requireAccountById(db, accountId) };
}
