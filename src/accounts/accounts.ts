// Accounts: an email, a plan, a status and a credit balance whose every change is in the ledger.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Schema } from '../store/schema.ts';
import { findPlan, planFromRow, type Plan } from './plans.ts';

export const ACCOUNT_STATUSES = ['active', 'suspended', 'banned'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

export interface Account {
  id: string;
  email: string;
  plan: Plan;
  status: AccountStatus;
  credits: number;
  createdAt: number;
}

export class AccountError extends Error {}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function createAccount(
  db: Kysely<Schema>,
  input: { email: string; plan?: string; credits?: number },
  now = Date.now(),
): Promise<Account> {
  const email = normaliseEmail(input.email);
  if (!EMAIL.test(email)) throw new AccountError(`not an email address: ${JSON.stringify(input.email)}`);
  const plan = await findPlan(db, input.plan ?? 'free');
  if (!plan) throw new AccountError(`unknown plan: ${JSON.stringify(input.plan)}`);
  const credits = input.credits ?? plan.signupCredits;
  if (!Number.isSafeInteger(credits) || credits < 0) throw new AccountError('credits must be a non-negative integer');
  const id = `acc_${randomBytes(9).toString('base64url')}`;
  await db.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirst();
    if (existing) throw new AccountError(`an account with email ${email} already exists`);
    await trx
      .insertInto('accounts')
      .values({ id, email, plan: plan.name, status: 'active', credits, created_at: now })
      .execute();
    if (credits > 0) {
      await trx
        .insertInto('ledger')
        .values({ account_id: id, delta: credits, kind: 'grant', reason: 'sign-up', conversion_id: null, created_at: now })
        .execute();
    }
  });
  return { id, email, plan, status: 'active', credits, createdAt: now };
}

/** The account columns to select beside `plans.*` when reading an account with its plan. */
export const ACCOUNT_COLUMNS = [
  'accounts.id as account_id',
  'accounts.email',
  'accounts.status',
  'accounts.credits',
  'accounts.created_at',
] as const;

type AccountRow = Schema['plans'] & { account_id: string; email: string; status: string; credits: number; created_at: number };

export function accountFromRow(row: AccountRow): Account {
  return {
    id: row.account_id,
    email: row.email,
    plan: planFromRow(row),
    status: row.status as AccountStatus,
    credits: Number(row.credits),
    createdAt: Number(row.created_at),
  };
}

export async function findAccountByEmail(db: Kysely<Schema>, email: string): Promise<Account | undefined> {
  const row = await db
    .selectFrom('accounts')
    .innerJoin('plans', 'plans.name', 'accounts.plan')
    .selectAll('plans')
    .select(ACCOUNT_COLUMNS)
    .where('accounts.email', '=', normaliseEmail(email))
    .executeTakeFirst();
  return row ? accountFromRow(row) : undefined;
}

export async function requireAccount(db: Kysely<Schema>, email: string): Promise<Account> {
  const account = await findAccountByEmail(db, email);
  if (!account) throw new AccountError(`no account with email ${normaliseEmail(email)}`);
  return account;
}

export async function updateAccount(
  db: Kysely<Schema>,
  email: string,
  changes: { plan?: string; status?: string },
): Promise<Account> {
  const account = await requireAccount(db, email);
  const values: Partial<Schema['accounts']> = {};
  if (changes.plan !== undefined) {
    const plan = await findPlan(db, changes.plan);
    if (!plan) throw new AccountError(`unknown plan: ${JSON.stringify(changes.plan)}`);
    values.plan = plan.name;
  }
  if (changes.status !== undefined) {
    if (!(ACCOUNT_STATUSES as readonly string[]).includes(changes.status)) {
      throw new AccountError(`unknown status: ${JSON.stringify(changes.status)}; use ${ACCOUNT_STATUSES.join(', ')}`);
    }
    values.status = changes.status;
  }
  if (Object.keys(values).length > 0) {
    await db.updateTable('accounts').set(values).where('id', '=', account.id).execute();
  }
  return requireAccount(db, email);
}
