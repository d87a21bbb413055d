// Bearer-key authentication and account status, checked before anything is read of the body.
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Account } from '../../accounts/accounts.ts';
import { findKeyOwner, touchKey } from '../../accounts/keys.ts';
import { DomainError } from '../../errors.ts';
import type { Schema } from '../../store/schema.ts';

declare module 'fastify' {
  interface FastifyRequest {
    account: Account;
    /** The request's key is a test key (`vk_test_`). */
    testKey: boolean;
  }
}

export function bearerKey(header: string | undefined): string | undefined {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  return match?.[1];
}

export function authenticate(db: Kysely<Schema>, now: () => number) {
  return async function authenticateRequest(request: FastifyRequest): Promise<void> {
    const key = bearerKey(request.headers.authorization);
    if (!key) {
      throw new DomainError('invalid_key', 'API key missing: send the header Authorization: Bearer <API_KEY>');
    }
    const owner = await findKeyOwner(db, key);
    if (!owner) throw new DomainError('invalid_key', 'API key invalid or revoked');
    const { account } = owner;
    if (account.status !== 'active') {
      throw new DomainError('account_inactive', `account ${account.status}: this account is ${account.status} and cannot use the API`, {
        accountStatus: account.status,
      });
    }
    request.account = account;
    request.testKey = owner.test;
    touchKey(db, owner.keyId, now()).catch((error: unknown) => request.log.warn({ err: error }, 'could not update key last_used_at'));
  };
}
