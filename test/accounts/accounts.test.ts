// Account lookups the pages use, on both dialects: the admin's search and credentials.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount, searchAccounts } from '../../src/accounts/accounts.ts';
import { checkCredentials, signUp } from '../../src/accounts/credentials.ts';
import { passwordWork } from '../../src/accounts/passwords.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { dialects, type TestDatabase } from '../helpers/stores.ts';

for (const dialect of await dialects()) {
  describe(`account search and credentials (${dialect.dialect})`, { skip: dialect.skip }, () => {
    let database: TestDatabase;
    let store: Store;
    before(async () => {
      database = await dialect.create();
      store = await openStore(database.url);
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    it('finds accounts by any part of the email, with % and _ taken literally', async () => {
      for (const email of ['ada_l@example.com', 'adaxl@example.com', 'grace%h@example.org', 'Bob@Example.com']) await createAccount(store.db, { email });
      const emails = async (text: string) => (await searchAccounts(store.db, text)).map((a) => a.email);
      assert.deepEqual(await emails('ada_'), ['ada_l@example.com']);
      assert.deepEqual(await emails('%h'), ['grace%h@example.org']);
      assert.deepEqual(await emails('EXAMPLE.COM'), ['ada_l@example.com', 'adaxl@example.com', 'bob@example.com']);
      assert.deepEqual(await emails('nobody'), []);
    });

    it('signs up once per email, unverified and without credits, and checks passwords, the email in any case', async () => {
      const passwords = passwordWork({ slots: 2, queueLimit: 8 });
      const created = await signUp(store.db, passwords, { email: 'New@Example.com', password: 'ten chars!!' });
      const account = created?.account;
      assert.equal(account?.credits, 0, 'the free credits wait for the verified email');
      assert.equal(account?.emailVerified, false);
      assert.equal(account?.plan.name, 'free');
      assert.match(created?.token ?? '', /^[\w-]{43}$/);
      assert.equal(await signUp(store.db, passwords, { email: 'new@example.com', password: 'another one!' }), undefined, 'taken: no second account');
      assert.equal((await checkCredentials(store.db, passwords, 'NEW@example.com', 'ten chars!!'))?.id, account?.id);
      assert.equal(await checkCredentials(store.db, passwords, 'new@example.com', 'another one!'), undefined);
      assert.equal(await checkCredentials(store.db, passwords, 'adaxl@example.com', 'any password'), undefined, 'no password set');
      await assert.rejects(signUp(store.db, passwords, { email: 'x@example.com', password: 'nine char' }), /at least 10 characters/);
    });
  });
}
