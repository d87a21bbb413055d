// Plans are rows, editable by an admin; every request reads the current row.
import type { Kysely } from 'kysely';
import type { Schema } from '../store/schema.ts';

export interface Plan {
  name: string;
  metered: boolean;
  signupCredits: number;
  dailyQuota: number | null;
  burstPerSecond: number | null;
  concurrency: number | null;
}

export function planFromRow(row: Schema['plans']): Plan {
  return {
    name: row.name,
    metered: Number(row.metered) === 1,
    signupCredits: Number(row.signup_credits),
    dailyQuota: row.daily_quota === null ? null : Number(row.daily_quota),
    burstPerSecond: row.burst_per_second === null ? null : Number(row.burst_per_second),
    concurrency: row.concurrency === null ? null : Number(row.concurrency),
  };
}

export async function findPlan(db: Kysely<Schema>, name: string): Promise<Plan | undefined> {
  const row = await db.selectFrom('plans').selectAll().where('name', '=', name).executeTakeFirst();
  return row ? planFromRow(row) : undefined;
}

export async function listPlans(db: Kysely<Schema>): Promise<Plan[]> {
  const rows = await db.selectFrom('plans').selectAll().orderBy('name').execute();
  return rows.map(planFromRow);
}

export interface PlanChanges {
  dailyQuota?: number | null;
  burstPerSecond?: number | null;
  concurrency?: number | null;
}

/** Changes a plan's limits; undefined when there is no such plan. */
export async function updatePlan(
  db: Kysely<Schema>,
  name: string,
  changes: PlanChanges,
): Promise<{ before: Plan; after: Plan } | undefined> {
  const before = await findPlan(db, name);
  if (!before) return undefined;
  const values: Partial<Schema['plans']> = {};
  if (changes.dailyQuota !== undefined) values.daily_quota = changes.dailyQuota;
  if (changes.burstPerSecond !== undefined) values.burst_per_second = changes.burstPerSecond;
  if (changes.concurrency !== undefined) values.concurrency = changes.concurrency;
  if (Object.keys(values).length > 0) {
    await db.updateTable('plans').set(values).where('name', '=', name).execute();
  }
  const after = await findPlan(db, name);
  return after ? { before, after } : undefined;
}
