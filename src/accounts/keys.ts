// API keys: 32 random bytes behind a short public prefix. Only the SHA-256 hash is stored;
// the key itself is shown once, at creation. A test key (`vk_test_…`) converts for free, with a
// watermark and limits of its own (src/limits/test-keys.ts); everything else is as for a live key.
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Schema } from '../store/schema.ts';
import { DomainError } from '../errors.ts';
import { ACCOUNT_COLUMNS, accountFromRow, type Account } from './accounts.ts';

const KEY_PREFIX = 'vk_';
export const TEST_KEY_PREFIX = 'vk_test_';
/** Characters of the key kept in clear to name it: `vk_` (or `vk_test_`) and 8 random characters. */
const prefixLength = (key: string) => (key.startsWith(TEST_KEY_PREFIX) ? TEST_KEY_PREFIX.length : KEY_PREFIX.length) + 8;
/** Keys an account may have that are not revoked, live and test keys together. */
export const MAX_ACTIVE_KEYS = 25;

export function isTestKey(key: string): boolean {
  return key.startsWith(TEST_KEY_PREFIX);
}

export interface ApiKeyInfo {
  prefix: string;
  name: string | null;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
  /** A test key: free, watermarked results. */
  test: boolean;
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Alphanumeric only, so a key or prefix never reads as a command-line flag. */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length)) {
      // 248 = 4 × 62: dropping larger bytes keeps every character equally likely.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export const KEY_NAME_MAX_LENGTH = 100;

export async function createKey(
  db: Kysely<Schema>,
  accountId: string,
  name: string | undefined,
  now = Date.now(),
  options: { test?: boolean } = {},
): Promise<{ key: string; prefix: string }> {
  const trimmed = name?.trim() || null;
  if (trimmed !== null && [...trimmed].length > KEY_NAME_MAX_LENGTH) {
    throw new DomainError('invalid_input', `name: at most ${KEY_NAME_MAX_LENGTH} characters (this one has ${[...trimmed].length})`);
  }
  const active = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  if (Number(active.n) >= MAX_ACTIVE_KEYS) {
    throw new DomainError('invalid_input', `keys: an account may have at most ${MAX_ACTIVE_KEYS} keys that are not revoked (live and test keys together); revoke one first`);
  }
  const key = (options.test ? TEST_KEY_PREFIX : KEY_PREFIX) + randomBase62(43); // ≈ 256 bits
  const prefix = key.slice(0, prefixLength(key));
  await db
    .insertInto('api_keys')
    .values({
      id: `key_${randomBytes(9).toString('base64url')}`,
      account_id: accountId,
      prefix,
      key_hash: hashKey(key),
      name: trimmed,
      created_at: now,
      last_used_at: null,
      revoked_at: null,
      test: options.test ? 1 : 0,
    })
    .execute();
  return { key, prefix };
}

/** The shortest leading part of a key that `key revoke --prefix` accepts. */
const MIN_PREFIX_LENGTH = 6;

/**
 * Finds the key an admin means: the whole key, its displayed prefix, or any leading part of the
 * key at least 6 characters long that names exactly one key.
 */
async function findKeyByPrefix(db: Kysely<Schema>, given: string): Promise<Schema['api_keys']> {
  const byHash = await db.selectFrom('api_keys').selectAll().where('key_hash', '=', hashKey(given)).executeTakeFirst();
  if (byHash) return byHash;
  if (given.length < MIN_PREFIX_LENGTH) {
    throw new DomainError('invalid_input', `give at least ${MIN_PREFIX_LENGTH} characters of the key, as \`key list\` shows its prefix`);
  }
  const lead = given.slice(0, prefixLength(given));
  const matches = await db
    .selectFrom('api_keys')
    .selectAll()
    .where((eb) => eb(eb.fn<string>('substr', ['prefix', eb.val(1), eb.val(lead.length)]), '=', lead))
    .execute();
  if (matches.length === 0) throw new DomainError('not_found', `no API key with prefix ${JSON.stringify(given)}`);
  if (matches.length > 1) throw new DomainError('invalid_input', `prefix ${JSON.stringify(given)} names ${matches.length} keys; give more characters`);
  return matches[0] as Schema['api_keys'];
}

export async function revokeKey(db: Kysely<Schema>, prefixOrKey: string, now = Date.now()): Promise<ApiKeyInfo & { accountId: string }> {
  const row = await findKeyByPrefix(db, prefixOrKey.trim());
  if (row.revoked_at === null) {
    await db.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', row.id).execute();
  }
  return { ...keyInfo(row), revokedAt: row.revoked_at === null ? now : Number(row.revoked_at), accountId: row.account_id };
}

/** Revokes one of the account's own keys, named by its displayed prefix. */
export async function revokeAccountKey(db: Kysely<Schema>, accountId: string, prefix: string, now = Date.now()): Promise<ApiKeyInfo> {
  const row = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('prefix', '=', prefix.trim())
    .executeTakeFirst();
  if (!row) throw new DomainError('not_found', `no API key with prefix ${JSON.stringify(prefix)} on this account`);
  if (row.revoked_at === null) {
    await db.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', row.id).execute();
  }
  return { ...keyInfo(row), revokedAt: row.revoked_at === null ? now : Number(row.revoked_at) };
}

export async function listKeys(db: Kysely<Schema>, accountId: string): Promise<ApiKeyInfo[]> {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .execute();
  return rows.map(keyInfo);
}

function keyInfo(row: Schema['api_keys']): ApiKeyInfo {
  return {
    prefix: row.prefix,
    name: row.name,
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    test: Number(row.test) === 1,
  };
}

export interface KeyOwner {
  keyId: string;
  account: Account;
  /** The key is a test key. */
  test: boolean;
}

/** The account behind a live key, read fresh so admin changes apply to the very next request. */
export async function findKeyOwner(db: Kysely<Schema>, key: string): Promise<KeyOwner | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .innerJoin('plans', 'plans.name', 'accounts.plan')
    .selectAll('plans')
    .select([...ACCOUNT_COLUMNS, 'api_keys.id as key_id', 'api_keys.test as key_test'])
    .where('api_keys.key_hash', '=', hashKey(key))
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
  return row ? { keyId: row.key_id, account: accountFromRow(row), test: Number(row.key_test) === 1 } : undefined;
}

/** Moves `last_used_at` forward, at most once a minute per key, so it stays off the hot path. */
export async function touchKey(db: Kysely<Schema>, keyId: string, now = Date.now()): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', keyId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', now - 60_000)]))
    .execute();
}
