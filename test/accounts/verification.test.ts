// Proving an email and what follows from it, on both dialects: the free credits once per
// address ever, single-use links, a reset that kills every other link, an email change, and a
// deleted account that leaves only an anonymous ledger behind.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount, findAccount, findAccountByEmail } from '../../src/accounts/accounts.ts';
import { createPasswordReset, isResetTokenValid, resetPassword, signUp } from '../../src/accounts/credentials.ts';
import { listLedger } from '../../src/accounts/credits.ts';
import { createKey } from '../../src/accounts/keys.ts';
import { passwordWork } from '../../src/accounts/passwords.ts';
import { changePassword, checkCurrentPassword, deleteAccount, requestEmailChange } from '../../src/accounts/settings.ts';
import { EMAIL_LINK_VALIDITY_MS, followEmailLink, renewVerificationLink, SIGNUP_GRANT_REASON } from '../../src/accounts/verification.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { dialects, type TestDatabase } from '../helpers/stores.ts';

const T0 = Date.UTC(2026, 10, 21, 9, 0, 0, 0);
const PASSWORD = 'long enough password';
const passwords = passwordWork({ slots: 2, queueLimit: 8 });

for (const dialect of await dialects()) {
  describe(`email verification and account settings (${dialect.dialect})`, { skip: dialect.skip }, () => {
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

    const ledgerSum = async (accountId: string) => (await listLedger(store.db, accountId, 1000)).reduce((sum, entry) => sum + entry.delta, 0);

    it('grants the sign-up credits when the link is followed, once, with a ledger row', async () => {
      const created = await signUp(store.db, passwords, { email: 'verify@example.com', password: PASSWORD }, T0);
      assert.ok(created);
      const proof = await followEmailLink(store.db, created.token, T0 + 1000);
      assert.equal(proof?.credited, 10);
      assert.equal(proof?.account.emailVerified, true);
      assert.equal(proof?.account.credits, 10);
      const ledger = await listLedger(store.db, created.account.id);
      assert.deepEqual(
        ledger.map((e) => [e.kind, e.delta, e.reason]),
        [['grant', 10, SIGNUP_GRANT_REASON]],
      );
      assert.equal(await followEmailLink(store.db, created.token, T0 + 2000), undefined, 'single use');
      assert.equal((await findAccount(store.db, created.account.id))?.credits, 10, 'granted once');
      assert.equal(await renewVerificationLink(store.db, created.account.id, T0), undefined, 'no new link once verified');
    });

    it('refuses an expired link, and a newer link makes the older ones void', async () => {
      const created = await signUp(store.db, passwords, { email: 'slow@example.com', password: PASSWORD }, T0);
      assert.ok(created);
      assert.equal(await followEmailLink(store.db, created.token, T0 + EMAIL_LINK_VALIDITY_MS + 1), undefined, 'expired');
      const renewed = await renewVerificationLink(store.db, created.account.id, T0 + 10);
      const newest = await renewVerificationLink(store.db, created.account.id, T0 + 20);
      assert.ok(renewed && newest);
      assert.equal(await followEmailLink(store.db, renewed.token, T0 + 30), undefined, 'an older link is void');
      assert.equal((await followEmailLink(store.db, newest.token, T0 + 30))?.credited, 10);
      assert.equal(await ledgerSum(created.account.id), 10);
    });

    it('gives an address its free credits once ever: not again after the account is deleted and made anew', async () => {
      const first = await signUp(store.db, passwords, { email: 'farm@example.com', password: PASSWORD }, T0);
      assert.ok(first);
      assert.equal((await followEmailLink(store.db, first.token, T0))?.credited, 10);
      await createKey(store.db, first.account.id, 'k', T0);
      await deleteAccount(store.db, first.account.id, T0 + 1);
      const again = await signUp(store.db, passwords, { email: 'farm@example.com', password: PASSWORD }, T0 + 2);
      assert.ok(again, 'the email is free again');
      const proof = await followEmailLink(store.db, again.token, T0 + 3);
      assert.equal(proof?.credited, 0);
      assert.equal(proof?.grantedBefore, true);
      assert.equal(proof?.account.emailVerified, true);
      assert.equal(proof?.account.credits, 0);
    });

    it('deletes an account: keys, conversions, sessions and links go; the ledger stays, without the email', async () => {
      const account = await createAccount(store.db, { email: 'leaving@example.com', passwordHash: await passwords.hash(PASSWORD) }, T0);
      await createKey(store.db, account.id, 'laptop', T0);
      await store.db
        .insertInto('conversions')
        .values({ id: 'vec_x_aaaaaa', account_id: account.id, original_name: 'a.png', file_size: 1, width: 1, height: 1, node_count: 1, processing_time_ms: 1, params: '{}', resolved: '{}', created_at: T0, test: 0 })
        .execute();
      await store.db.insertInto('sessions').values({ id_hash: 'h', account_id: account.id, csrf_secret: 's', created_at: T0, last_seen_at: T0, expires_at: T0 + 1e9 }).execute();
      await createPasswordReset(store.db, 'leaving@example.com', T0);
      await deleteAccount(store.db, account.id, T0 + 5);
      for (const table of ['api_keys', 'conversions', 'sessions', 'password_resets', 'email_tokens'] as const) {
        const rows = await store.db.selectFrom(table).select('account_id').where('account_id', '=', account.id).execute();
        assert.equal(rows.length, 0, table);
      }
      assert.equal(await findAccount(store.db, account.id), undefined);
      assert.equal(await findAccountByEmail(store.db, 'leaving@example.com'), undefined);
      const row = await store.db.selectFrom('accounts').selectAll().where('id', '=', account.id).executeTakeFirstOrThrow();
      assert.equal(row.email, `deleted:${account.id}`, 'no email kept');
      assert.equal(row.password_hash, null);
      assert.equal(Number(row.deleted_at), T0 + 5);
      const ledger = await listLedger(store.db, account.id);
      assert.equal(ledger.length, 1, 'the sign-up grant stays');
      assert.equal(await ledgerSum(account.id), Number(row.credits), 'the ledger still sums to the balance');
      const audit = await store.db.selectFrom('audit').selectAll().where('account_id', '=', account.id).execute();
      assert.equal(audit.at(-1)?.action, 'account deleted');
      assert.ok(!audit.some((entry) => entry.detail.includes('leaving@')), 'the audit record holds no email');
    });

    it('refuses to delete an account whose subscription still renews, until it is set to end', async () => {
      const account = await createAccount(store.db, { email: 'subscriber@example.com', plan: 'pro' }, T0);
      await store.db
        .insertInto('subscriptions')
        .values({ id: 'sub_test_1', account_id: account.id, plan: 'pro', status: 'active', cancel_at_period_end: 0, current_period_end: T0 + 1e9, customer_id: 'cus_1', last_event_at: T0, plan_state: 'granted', ends_at: null, created_at: T0, updated_at: T0 })
        .execute();
      await assert.rejects(deleteAccount(store.db, account.id, T0 + 1), /subscription to the pro plan still renews: cancel it on the Billing page first/);
      assert.ok(await findAccount(store.db, account.id), 'nothing deleted');
      await store.db.updateTable('subscriptions').set({ cancel_at_period_end: 1 }).where('id', '=', 'sub_test_1').execute();
      await deleteAccount(store.db, account.id, T0 + 2);
      assert.equal(await findAccount(store.db, account.id), undefined);
    });

    it('a used reset link ends every other reset link of the account, and verifies its email', async () => {
      const created = await signUp(store.db, passwords, { email: 'reset@example.com', password: PASSWORD }, T0);
      assert.ok(created);
      const first = await createPasswordReset(store.db, 'reset@example.com', T0);
      const second = await createPasswordReset(store.db, 'reset@example.com', T0 + 1);
      assert.ok(first && second);
      await resetPassword(store.db, passwords, second.token, 'a new password 1', T0 + 2);
      assert.equal(await isResetTokenValid(store.db, first.token, T0 + 3), false, 'the older link died with the reset');
      await assert.rejects(resetPassword(store.db, passwords, first.token, 'a new password 2', T0 + 3), /expired or was already used/);
      const account = await findAccount(store.db, created.account.id);
      assert.equal(account?.emailVerified, true);
      assert.equal(account?.credits, 10, 'the reset proved the address: the free credits follow');
    });

    it('changes the password (reset links die) and checks the current one', async () => {
      const account = await createAccount(store.db, { email: 'change@example.com', passwordHash: await passwords.hash(PASSWORD) }, T0);
      await assert.rejects(checkCurrentPassword(store.db, passwords, account.id, 'not the password'), /current password/);
      const reset = await createPasswordReset(store.db, 'change@example.com', T0);
      await checkCurrentPassword(store.db, passwords, account.id, PASSWORD);
      await changePassword(store.db, passwords, account.id, 'another password 2', T0 + 1);
      await checkCurrentPassword(store.db, passwords, account.id, 'another password 2');
      assert.equal(await isResetTokenValid(store.db, reset!.token, T0 + 2), false);
    });

    it('changes the email through a link to the new address; a taken address gets no link', async () => {
      const account = await createAccount(store.db, { email: 'old@example.com' }, T0);
      await createAccount(store.db, { email: 'someone@example.com' }, T0);
      assert.deepEqual(await requestEmailChange(store.db, account.id, 'Someone@example.com', T0), { kind: 'taken', email: 'someone@example.com' });
      await assert.rejects(requestEmailChange(store.db, account.id, 'old@example.com', T0), /already the email/);
      const change = await requestEmailChange(store.db, account.id, 'new@example.com', T0);
      assert.equal(change.kind, 'link');
      assert.equal((await findAccount(store.db, account.id))?.email, 'old@example.com', 'unchanged until the link is followed');
      const proof = await followEmailLink(store.db, change.kind === 'link' ? change.token : '', T0 + 1);
      assert.equal(proof?.purpose, 'change');
      assert.equal(proof?.previousEmail, 'old@example.com');
      assert.equal((await findAccount(store.db, account.id))?.email, 'new@example.com');
      assert.equal(proof?.credited, 0, 'an operator-made account was verified, with its credits, already');
    });

    it('refuses a change link once its address belongs to another account, and changes nothing', async () => {
      const account = await createAccount(store.db, { email: 'mover@example.com' }, T0);
      const change = await requestEmailChange(store.db, account.id, 'race@example.com', T0);
      await createAccount(store.db, { email: 'race@example.com' }, T0 + 1);
      await assert.rejects(followEmailLink(store.db, change.kind === 'link' ? change.token : '', T0 + 2), /another account/);
      assert.equal((await findAccount(store.db, account.id))?.email, 'mover@example.com');
    });
  });
}
