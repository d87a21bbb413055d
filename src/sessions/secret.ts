// The keys that sign the session cookie: SESSION_SECRET when set; otherwise one generated at
// the first start and kept in the store, so restarts and every node sharing the store agree.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Schema } from '../store/schema.ts';

const SETTING = 'session_secret';

export async function sessionSecrets(db: Kysely<Schema>, configured: string[] | undefined): Promise<string[]> {
  if (configured && configured.length > 0) return configured;
  // Two nodes starting at once both try; the first insert wins and both read it back.
  await db
    .insertInto('settings')
    .values({ name: SETTING, value: randomBytes(48).toString('base64url') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('settings').select('value').where('name', '=', SETTING).executeTakeFirstOrThrow();
  return [row.value];
}
