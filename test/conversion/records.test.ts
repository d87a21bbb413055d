// The dashboard's queries on both dialects: conversions per UTC day and the latest ones.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '../../src/accounts/accounts.ts';
import { DEFAULT_PARAMS } from '../../src/engine/params.ts';
import { conversionsPerDay, insertConversion, latestConversions } from '../../src/conversion/records.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { dialects, type TestDatabase } from '../helpers/stores.ts';

const DAY = 86_400_000;
const TODAY = Date.UTC(2026, 10, 21);

for (const dialect of await dialects()) {
  describe(`dashboard queries (${dialect.dialect})`, { skip: dialect.skip }, () => {
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

    it('counts conversions per UTC day over 30 days, zeros included, and lists the latest first', async () => {
      const account = await createAccount(store.db, { email: 'chart@example.com' });
      const other = await createAccount(store.db, { email: 'other@example.com' });
      const result = {
        svg: '',
        width: 1,
        height: 1,
        nodeCount: 3,
        processingTimeMs: 1,
        fidelity: 0.9,
        chosen: { mode: 'logo', curveMode: 'spline' },
        check: { fidelity: 0.9, signatures: [], remaining: [], retraced: false, retraceMs: 0, attempts: [] },
      } as const;
      const at = [TODAY + 5, TODAY + DAY - 1, TODAY - DAY, TODAY - 29 * DAY, TODAY - 30 * DAY];
      for (const [i, time] of at.entries()) {
        await insertConversion(store.db, { id: `vec_t${i}_aaaaaa`, accountId: account.id, originalName: `n${i}.png`, fileSize: 10 + i, params: DEFAULT_PARAMS, result }, time);
      }
      await insertConversion(store.db, { id: 'vec_other_aaaaaa', accountId: other.id, originalName: 'x.png', fileSize: 1, params: DEFAULT_PARAMS, result }, TODAY);
      const days = await conversionsPerDay(store.db, account.id, TODAY + 12 * 3_600_000, 30);
      assert.equal(days.length, 30);
      assert.equal(days[0]?.day, TODAY - 29 * DAY);
      assert.equal(days.at(-1)?.day, TODAY);
      assert.deepEqual(
        days.filter((d) => d.count > 0).map((d) => [(d.day - TODAY) / DAY, d.count]),
        [[-29, 1], [-1, 1], [0, 2]],
      );
      const latest = await latestConversions(store.db, account.id, 3);
      assert.deepEqual(latest.map((c) => c.originalName), ['n1.png', 'n0.png', 'n2.png']);
      assert.equal(latest[0]?.fileSize, 11);
    });
  });
}
