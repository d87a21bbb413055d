// What an admin does to accounts and plans, from the admin pages or the command line: the same
// operations as everywhere, each leaving a trace with the admin's name (`actor`): credit
// changes in the ledger's reason, everything else in the audit record.
import type { Kysely } from 'kysely';
import { DomainError } from '../errors.ts';
import type { Schema } from '../store/schema.ts';
import { updateAccount, type Account, type AccountChanges } from './accounts.ts';
import { recordAudit } from './audit.ts';
import { addCredits, CREDIT_PACKS } from './credits.ts';
import { revokeAccountKey, type ApiKeyInfo } from './keys.ts';
import { updatePlan, type Plan, type PlanChanges } from './plans.ts';
import { formatMoney, updatePrice, type Price, type PriceChanges } from '../payments/prices.ts';

const limitText = (value: number | null) => (value === null ? 'none' : String(value));

export async function changeAccount(
  db: Kysely<Schema>,
  actor: string,
  accountId: string,
  changes: AccountChanges,
  now = Date.now(),
): Promise<Account> {
  const { before, after } = await updateAccount(db, accountId, changes);
  const described: string[] = [];
  if (before.plan.name !== after.plan.name) described.push(`plan ${before.plan.name} → ${after.plan.name}`);
  if (before.status !== after.status) described.push(`status ${before.status} → ${after.status}`);
  if (before.role !== after.role) described.push(`role ${before.role} → ${after.role}`);
  if (described.length > 0) {
    await recordAudit(db, { actor, action: 'account changed', accountId, detail: described.join(', ') }, now);
  }
  return after;
}

/** A grant of any amount, or one of the credit packs; the ledger row names the actor. */
export async function grantCredits(
  db: Kysely<Schema>,
  actor: string,
  accountId: string,
  grant: { amount: number } | { pack: number },
  now = Date.now(),
): Promise<number> {
  if ('pack' in grant) {
    if (!(CREDIT_PACKS as readonly number[]).includes(grant.pack)) {
      throw new DomainError('invalid_input', `pack: one of ${CREDIT_PACKS.join(', ')}`);
    }
    return addCredits(db, accountId, grant.pack, 'pack', `credit pack of ${grant.pack}, added by ${actor}`, now);
  }
  return addCredits(db, accountId, grant.amount, 'grant', `grant by ${actor}`, now);
}

export async function revokeKeyOf(db: Kysely<Schema>, actor: string, accountId: string, prefix: string, now = Date.now()): Promise<ApiKeyInfo> {
  const key = await revokeAccountKey(db, accountId, prefix, now);
  await recordAudit(db, { actor, action: 'key revoked', accountId, detail: `key ${key.prefix}${key.name ? ` (${key.name})` : ''}` }, now);
  return key;
}

export async function editPlan(db: Kysely<Schema>, actor: string, name: string, changes: PlanChanges, now = Date.now()): Promise<Plan> {
  for (const [member, value] of Object.entries(changes)) {
    if (value !== undefined && value !== null && (!Number.isSafeInteger(value) || value < (member === 'dailyQuota' ? 0 : 1))) {
      throw new DomainError('invalid_input', `${member}: a whole number of at least ${member === 'dailyQuota' ? 0 : 1}, or none`);
    }
  }
  const result = await updatePlan(db, name, changes);
  if (!result) throw new DomainError('invalid_input', `unknown plan: ${JSON.stringify(name)}`);
  const { before, after } = result;
  const described: string[] = [];
  if (before.dailyQuota !== after.dailyQuota) described.push(`daily quota ${limitText(before.dailyQuota)} → ${limitText(after.dailyQuota)}`);
  if (before.burstPerSecond !== after.burstPerSecond) described.push(`burst ${limitText(before.burstPerSecond)} → ${limitText(after.burstPerSecond)}`);
  if (before.concurrency !== after.concurrency) described.push(`concurrency ${limitText(before.concurrency)} → ${limitText(after.concurrency)}`);
  if (described.length > 0) {
    await recordAudit(db, { actor, action: `plan ${name} changed`, accountId: null, detail: described.join(', ') }, now);
  }
  return after;
}

/** Changes what a pack or plan costs, or takes it off sale; in the audit record. New checkouts use it at once. */
export async function editPrice(db: Kysely<Schema>, actor: string, product: string, changes: PriceChanges, now = Date.now()): Promise<Price> {
  const { before, after } = await updatePrice(db, product, changes);
  const described: string[] = [];
  const money = (price: Price) => formatMoney(price.unitAmount, price.currency);
  if (money(before) !== money(after) || before.currency !== after.currency) described.push(`price ${money(before)} → ${money(after)}`);
  if (before.active !== after.active) described.push(after.active ? 'on sale' : 'off sale');
  if (described.length > 0) await recordAudit(db, { actor, action: `price ${product} changed`, accountId: null, detail: described.join(', ') }, now);
  return after;
}
