// The ledger against the real databases: parallel reservations never overspend, a refund
// happens once, expired leases are refunded, and the ledger always sums to the balance.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount, findAccountByEmail } from '../../src/accounts/accounts.ts';
import {
  addCredits,
  ledgerSum,
  refundExpiredReservations,
  refundReservation,
  renewReservation,
  reserveCredit,
  settleReservation,
} from '../../src/accounts/credits.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { dialects, type TestDatabase } from '../helpers/stores.ts';

for (const dialect of await dialects()) {
  describe(`credit ledger (${dialect.dialect})`, { skip: dialect.skip }, () => {
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

    it('never spends the same credit twice under 40 parallel reservations', async () => {
      const account = await createAccount(store.db, { email: 'race@example.com', credits: 10 });
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => reserveCredit(store.db, account.id, `vec_race_${String(i).padStart(6, '0')}`, 60_000)),
      );
      assert.equal(results.filter(Boolean).length, 10);
      const after = await findAccountByEmail(store.db, 'race@example.com');
      assert.equal(after?.credits, 0);
      assert.equal(await ledgerSum(store.db, account.id), 0);
    });

    it('refunds once, and not after settlement', async () => {
      const account = await createAccount(store.db, { email: 'refund@example.com', credits: 2 });
      await reserveCredit(store.db, account.id, 'vec_r_aaaaaa', 60_000);
      await reserveCredit(store.db, account.id, 'vec_r_bbbbbb', 60_000);
      const twice = await Promise.all([
        refundReservation(store.db, 'vec_r_aaaaaa', 'test'),
        refundReservation(store.db, 'vec_r_aaaaaa', 'test'),
      ]);
      assert.deepEqual(twice.sort(), [false, true]);
      assert.equal(await settleReservation(store.db, 'vec_r_bbbbbb'), true);
      assert.equal(await refundReservation(store.db, 'vec_r_bbbbbb', 'late'), false);
      assert.equal((await findAccountByEmail(store.db, 'refund@example.com'))?.credits, 1);
      assert.equal(await ledgerSum(store.db, account.id), 1);
    });

    it('refunds reservations whose lease expired, once', async () => {
      const account = await createAccount(store.db, { email: 'lease@example.com', credits: 3 });
      const t0 = Date.now();
      await reserveCredit(store.db, account.id, 'vec_l_aaaaaa', 1000, t0);
      await reserveCredit(store.db, account.id, 'vec_l_bbbbbb', 5000, t0);
      assert.equal(await refundExpiredReservations(store.db, t0 + 2000), 1);
      assert.equal(await refundExpiredReservations(store.db, t0 + 2000), 0);
      assert.equal(await refundExpiredReservations(store.db, t0 + 6000), 1);
      assert.equal((await findAccountByEmail(store.db, 'lease@example.com'))?.credits, 3);
      assert.equal(await ledgerSum(store.db, account.id), 3);
    });

    it('does not refund a reservation whose lease its conversion keeps renewing', async () => {
      const account = await createAccount(store.db, { email: 'renew@example.com', credits: 1 });
      const t0 = Date.now();
      await reserveCredit(store.db, account.id, 'vec_n_aaaaaa', 1000, t0);
      assert.equal(await renewReservation(store.db, 'vec_n_aaaaaa', 1000, t0 + 900), true);
      assert.equal(await refundExpiredReservations(store.db, t0 + 1500), 0, 'renewed: still running');
      assert.equal(await refundExpiredReservations(store.db, t0 + 2000), 1, 'no renewal since: its process died');
      assert.equal(await renewReservation(store.db, 'vec_n_aaaaaa', 1000, t0 + 2100), false, 'refunded: nothing to renew');
      assert.equal(await ledgerSum(store.db, account.id), 1);
    });

    it('records grants and packs, and refuses non-positive amounts', async () => {
      const account = await createAccount(store.db, { email: 'packs@example.com' });
      assert.equal(account.credits, 10);
      assert.equal(await addCredits(store.db, account.id, 50, 'pack', 'credit pack of 50'), 60);
      assert.equal(await addCredits(store.db, account.id, 7, 'grant', 'admin grant'), 67);
      await assert.rejects(addCredits(store.db, account.id, -1, 'grant', 'x'), /positive/);
      await assert.rejects(addCredits(store.db, account.id, 0, 'grant', 'x'), /positive/);
      await assert.rejects(addCredits(store.db, account.id, 60, 'pack', 'x'), /50, 200, 500/);
      await assert.rejects(addCredits(store.db, 'acc_nobody', 5, 'grant', 'x'), /no such account/);
      const kinds = await store.db.selectFrom('ledger').select(['kind', 'delta']).where('account_id', '=', account.id).orderBy('id').execute();
      assert.deepEqual(kinds.map((k) => [k.kind, Number(k.delta)]), [['grant', 10], ['pack', 50], ['grant', 7]]);
      assert.equal(await ledgerSum(store.db, account.id), 67);
    });
  });
}
