// Two nodes on one store and one Redis share burst and concurrency limits.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findAccountByEmail } from '../../src/accounts/accounts.ts';
import { updatePlan } from '../../src/accounts/plans.ts';
import { corpusFile, postVectorize } from '../helpers/http.ts';
import { startTestService, testClock, type TestService } from '../helpers/service.ts';
import { createPostgresDatabase, limitsBackends, postgresProblem } from '../helpers/stores.ts';
import { holdUpload, waitFor } from '../helpers/upload.ts';

const PNG = corpusFile('edge/tiny_tango_address_book_32.png');
const redis = (await limitsBackends()).find((b) => b.name === 'redis');

describe('limits shared by two nodes through Redis', { skip: redis?.skip ?? 'no redis backend' }, () => {
  const clock = testClock(Date.UTC(2026, 10, 21, 12, 0, 0, 0));
  let nodeA: TestService;
  let nodeB: TestService;
  let key: string;

  before(async () => {
    const env = redis!.env();
    const database = await redis!.createDatabase();
    nodeA = await startTestService(database, { now: clock.now, env });
    nodeB = await startTestService(database, { now: clock.now, env });
    await updatePlan(nodeA.store.db, 'free', { dailyQuota: null });
    key = await nodeA.accountWithKey('shared@example.com', { credits: 20 });
  });
  after(async () => {
    await nodeB.close();
    await nodeA.close();
    await nodeA.database.drop();
    await redis!.cleanup();
  });

  it('counts the burst window across nodes', async () => {
    assert.equal((await postVectorize(nodeA.url, key, { image: PNG })).status, 200);
    assert.equal((await postVectorize(nodeB.url, key, { image: PNG })).status, 200);
    const refused = await postVectorize(nodeA.url, key, { image: PNG });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.limit, 'burst');
    assert.equal(refused.headers.get('retry-after'), '1');
    clock.advance(1000);
  });

  it('holds the concurrency slot across nodes', async () => {
    const account = await findAccountByEmail(nodeA.store.db, 'shared@example.com');
    const held = holdUpload(nodeA.url, key, PNG);
    await waitFor(async () => (await nodeB.limits.inFlight(account!.id)) === 1, 10_000, 'admission on node A');
    const refused = await postVectorize(nodeB.url, key, { image: PNG });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.limit, 'concurrency');
    assert.equal((await held.finish()).status, 200);
    clock.advance(1000);
    assert.equal((await postVectorize(nodeB.url, key, { image: PNG })).status, 200);
  });
});

describe('a Redis that is unreachable', { skip: (await postgresProblem()) ?? false }, () => {
  it('stops the service at start with a message naming REDIS_URL', async () => {
    const database = await createPostgresDatabase();
    try {
      await assert.rejects(startTestService(database, { env: { REDIS_URL: 'redis://127.0.0.1:1' } }), /REDIS_URL/);
    } finally {
      await database.drop();
    }
  });
});
