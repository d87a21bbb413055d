// kill -9 while conversions are in flight: after a restart, each reservation is refunded once
// (when its lease runs out) and the ledger balances.
//
// A lease is written by the node that reserves, so only the killed node runs with a short one
// (long enough that it cannot sweep its own three before the kill): the restarted nodes sweep
// those soon, while their own conversions keep a lease no slow conversion can outlast.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAccount, findAccountByEmail } from '../../src/accounts/accounts.ts';
import { ledgerSum } from '../../src/accounts/credits.ts';
import { createKey } from '../../src/accounts/keys.ts';
import { updatePlan } from '../../src/accounts/plans.ts';
import { openStore } from '../../src/store/database.ts';
import { corpusFile, postVectorize } from '../helpers/http.ts';
import { spawnServer } from '../helpers/process.ts';
import { dialects } from '../helpers/stores.ts';
import { holdUpload, waitFor } from '../helpers/upload.ts';

const PNG = corpusFile('edge/tiny_tango_address_book_32.png');
const KILLED_ENV = { RESERVATION_LEASE_MS: '3000', HOUSEKEEPING_INTERVAL_MS: '200', WORKERS: '1' };
const RESTARTED_ENV = { ...KILLED_ENV, RESERVATION_LEASE_MS: '600000' };

for (const dialect of await dialects()) {
  describe(`crash recovery (${dialect.dialect})`, { skip: dialect.skip }, () => {
    it('refunds the reservations of a killed server once, after restart', async () => {
      const database = await dialect.create();
      const store = await openStore(database.url);
      try {
        await updatePlan(store.db, 'free', { dailyQuota: null, burstPerSecond: null, concurrency: null });
        const account = await createAccount(store.db, { email: 'crash@example.com', credits: 10 });
        const { key } = await createKey(store.db, account.id, 'crash');
        const held = async () =>
          (await store.db.selectFrom('reservations').select('id').where('state', '=', 'held').execute()).map((r) => r.id).sort();
        const heldCount = async () => (await held()).length;

        const first = await spawnServer({ ...KILLED_ENV, DATABASE_URL: database.url });
        const uploads = [holdUpload(first.url, key, PNG), holdUpload(first.url, key, PNG), holdUpload(first.url, key, PNG)];
        for (const upload of uploads) upload.response.catch(() => {});
        await waitFor(async () => (await heldCount()) === 3, 15_000, 'three held reservations');
        assert.equal((await findAccountByEmail(store.db, 'crash@example.com'))?.credits, 7);

        const cutShort = await held();
        first.child.kill('SIGKILL');
        assert.equal(await first.exited, 'SIGKILL');

        const second = await spawnServer({ ...RESTARTED_ENV, DATABASE_URL: database.url });
        try {
          await waitFor(async () => (await heldCount()) === 0, 15_000, 'the leases to be swept');
          const refunds = await store.db
            .selectFrom('ledger')
            .select(['conversion_id', 'delta'])
            .where('account_id', '=', account.id)
            .where('kind', '=', 'refund')
            .execute();
          // Exactly the reservations the killed node held, each refunded once.
          assert.deepEqual(refunds.map((r) => r.conversion_id).sort(), cutShort);
          assert.ok(refunds.every((r) => Number(r.delta) === 1));
          assert.equal((await findAccountByEmail(store.db, 'crash@example.com'))?.credits, 10);
          assert.equal(await ledgerSum(store.db, account.id), 10);

          const ok = await postVectorize(second.url, key, { image: PNG });
          assert.equal(ok.status, 200, JSON.stringify(ok.body));
          assert.equal(ok.body.credits_remaining, 9);
          const settled = await store.db.selectFrom('reservations').select('state').where('id', '=', String(ok.body.id)).executeTakeFirst();
          assert.equal(settled?.state, 'settled');
        } finally {
          second.child.kill('SIGTERM');
          await second.exited;
        }

        // A third start sweeps again and finds nothing left to refund.
        const third = await spawnServer({ ...RESTARTED_ENV, DATABASE_URL: database.url });
        third.child.kill('SIGTERM');
        await third.exited;
        const refundsAfter = await store.db.selectFrom('ledger').select('conversion_id').where('kind', '=', 'refund').execute();
        assert.deepEqual(refundsAfter.map((r) => r.conversion_id).sort(), cutShort);
        assert.equal(await ledgerSum(store.db, account.id), 9);
        assert.equal((await findAccountByEmail(store.db, 'crash@example.com'))?.credits, 9);
      } finally {
        await store.close();
        await database.drop();
      }
    });
  });
}
