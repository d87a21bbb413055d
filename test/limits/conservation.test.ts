// 40 parallel requests on a free account with 10 credits and no other limit: exactly 10
// conversions, 30 refusals, a zero balance and a ledger that sums to it, on both dialects.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findAccountByEmail } from '../../src/accounts/accounts.ts';
import { ledgerSum } from '../../src/accounts/credits.ts';
import { corpusFile, postVectorize } from '../helpers/http.ts';
import { liftFreeLimits, startTestService } from '../helpers/service.ts';
import { dialects } from '../helpers/stores.ts';

const PNG = corpusFile('edge/tiny_tango_address_book_32.png');

for (const dialect of await dialects()) {
  describe(`credit conservation (${dialect.dialect})`, { skip: dialect.skip }, () => {
    it('40 parallel requests on 10 credits give 10 conversions and 30 refusals', async () => {
      const service = await startTestService(await dialect.create(), { env: { QUEUE_LIMIT: '100', MAX_CONCURRENT_UPLOADS: '100' } });
      try {
        await liftFreeLimits(service);
        const key = await service.accountWithKey('conserve@example.com', { credits: 10 });
        const results = await Promise.all(Array.from({ length: 40 }, () => postVectorize(service.url, key, { image: PNG })));
        const ok = results.filter((r) => r.status === 200);
        const refused = results.filter((r) => r.status === 402);
        assert.equal(ok.length, 10);
        assert.equal(refused.length, 30);
        for (const r of refused) assert.deepEqual([r.body.error, r.body.credits_remaining], ['insufficient_credits', 0]);
        assert.deepEqual(ok.map((r) => r.body.credits_remaining).sort((a, b) => Number(a) - Number(b)), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        const account = await findAccountByEmail(service.store.db, 'conserve@example.com');
        assert.equal(account?.credits, 0);
        assert.equal(await ledgerSum(service.store.db, account!.id), 0);
      } finally {
        await service.close();
        await service.database.drop();
      }
    });
  });
}
