// The converter's kept sources (issue 20) on both dialects: the upload's bytes come back
// exactly (blob / bytea), an expired or purged source reads "expired" for its owner and as
// nothing for anyone else, and the dashboard learns which results can still be downloaded.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '../../src/accounts/accounts.ts';
import { deleteAccount } from '../../src/accounts/settings.ts';
import { insertConversion } from '../../src/conversion/records.ts';
import { DOWNLOAD_RETENTION_MS, downloadableUntil, findSource, insertSource, purgeExpiredSources } from '../../src/conversion/sources.ts';
import { DEFAULT_PARAMS } from '../../src/engine/params.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { dialects, type TestDatabase } from '../helpers/stores.ts';

const NOW = Date.UTC(2026, 10, 26, 12);
const RESULT = {
  svg: '<svg/>',
  width: 1,
  height: 1,
  nodeCount: 3,
  processingTimeMs: 1,
  fidelity: 0.9,
  chosen: { mode: 'logo', curveMode: 'spline' },
  check: { fidelity: 0.9, signatures: [], remaining: [], retraced: false, retraceMs: 0, attempts: [] },
} as const;

for (const dialect of await dialects()) {
  describe(`conversion sources (${dialect.dialect})`, { skip: dialect.skip }, () => {
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

    it('keeps the upload byte for byte, for its owner, until the retention ends', async () => {
      const owner = await createAccount(store.db, { email: 'owner@example.com' });
      const other = await createAccount(store.db, { email: 'other@example.com' });
      // Every byte value, zeros included, as an image holds them.
      const image = Buffer.concat([Buffer.from([0, 255, 0, 1]), randomBytes(64 * 1024)]);
      const params = { ...DEFAULT_PARAMS, unit: 'mm' as const, palette: ['#000000'] };
      for (const [id, at] of [['vec_new_aaaaaa', NOW - 1000], ['vec_old_aaaaaa', NOW - DOWNLOAD_RETENTION_MS - 1000]] as const) {
        await insertConversion(store.db, { id, accountId: owner.id, originalName: 'a.png', fileSize: image.length, params, result: RESULT }, at);
        await insertSource(store.db, { conversionId: id, accountId: owner.id, originalName: 'a.png', image, params, svg: '<svg/>' }, at);
      }
      const notBefore = NOW - DOWNLOAD_RETENTION_MS;
      const found = await findSource(store.db, 'vec_new_aaaaaa', owner.id, notBefore);
      assert.ok(found && found !== 'expired');
      assert.ok(found.image.equals(image), 'the bytes come back exactly');
      assert.deepEqual(found.params, params);
      assert.equal(found.createdAt, NOW - 1000);
      assert.equal(await findSource(store.db, 'vec_new_aaaaaa', other.id, notBefore), undefined);
      assert.equal(await findSource(store.db, 'vec_old_aaaaaa', owner.id, notBefore), 'expired');
      assert.equal(await findSource(store.db, 'vec_old_aaaaaa', other.id, notBefore), undefined);
      assert.equal(await findSource(store.db, 'vec_none_aaaaaa', owner.id, notBefore), undefined);

      const until = await downloadableUntil(store.db, owner.id, ['vec_new_aaaaaa', 'vec_old_aaaaaa'], notBefore, DOWNLOAD_RETENTION_MS);
      assert.deepEqual([...until], [['vec_new_aaaaaa', NOW - 1000 + DOWNLOAD_RETENTION_MS]]);
      assert.equal((await downloadableUntil(store.db, other.id, ['vec_new_aaaaaa'], notBefore, DOWNLOAD_RETENTION_MS)).size, 0);

      assert.equal(await purgeExpiredSources(store.db, notBefore), 1);
      // Purged, the record (kept longer) still says it expired.
      assert.equal(await findSource(store.db, 'vec_old_aaaaaa', owner.id, notBefore), 'expired');
      assert.ok(await findSource(store.db, 'vec_new_aaaaaa', owner.id, notBefore));
    });

    it('goes with the account when it is deleted (the images are the holder’s)', async () => {
      const holder = await createAccount(store.db, { email: 'leaving@example.com' });
      await insertSource(store.db, { conversionId: 'vec_gone_aaaaaa', accountId: holder.id, originalName: 'b.png', image: Buffer.from([1, 2, 3]), params: DEFAULT_PARAMS, svg: '<svg/>' }, NOW);
      await deleteAccount(store.db, holder.id, NOW);
      const left = await store.db.selectFrom('conversion_sources').select('conversion_id').where('account_id', '=', holder.id).execute();
      assert.deepEqual(left, []);
    });
  });
}
