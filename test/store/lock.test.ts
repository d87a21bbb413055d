// The store's lock, which keeps housekeeping to one node at a time: two callers at once, one
// runs and one skips; on PostgreSQL across two pools (two nodes), on SQLite within the process.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openStore, type Store } from '../../src/store/database.ts';
import { withStoreLock } from '../../src/store/lock.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { dialects, type TestDatabase } from '../helpers/stores.ts';

/** A promise and the function that settles it, to hold a lock for as long as a test wants. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

for (const dialect of await dialects()) {
  describe(`store lock (${dialect.dialect})`, { skip: dialect.skip }, () => {
    let database: TestDatabase;
    let nodeA: Store;
    let nodeB: Store;

    before(async () => {
      database = await dialect.create();
      nodeA = await openStore(database.url);
      // SQLite has one node: the second caller is the same process, on the same store.
      nodeB = dialect.dialect === 'postgres' ? await openStore(database.url, { migrate: false }) : nodeA;
    });
    after(async () => {
      if (nodeB !== nodeA) await nodeB.close();
      await nodeA.close();
      await database.drop();
    });

    it('lets one of two callers at once run, and the other skip without waiting', async () => {
      const holding = gate();
      const entered = gate();
      const first = withStoreLock(nodeA, 'housekeeping', async () => {
        entered.open();
        await holding.opened;
        return 'A';
      });
      await entered.opened;
      const started = Date.now();
      const second = await withStoreLock(nodeB, 'housekeeping', async () => 'B');
      assert.deepEqual(second, { ran: false });
      assert.ok(Date.now() - started < 2000, 'the second caller did not wait for the first');
      holding.open();
      assert.deepEqual(await first, { ran: true, value: 'A' });
      assert.deepEqual(await withStoreLock(nodeB, 'housekeeping', async () => 'B'), { ran: true, value: 'B' }, 'free again once the holder is done');
    });

    it('runs exactly one of many callers started together', async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          withStoreLock(i % 2 === 0 ? nodeA : nodeB, 'housekeeping', async () => {
            await new Promise((resolve) => setTimeout(resolve, 300));
            return i;
          }),
        ),
      );
      assert.equal(outcomes.filter((outcome) => outcome.ran).length, 1, JSON.stringify(outcomes));
    });

    it('releases the lock when the work fails', async () => {
      await assert.rejects(
        withStoreLock(nodeA, 'housekeeping', async () => {
          throw new Error('sweep failed');
        }),
        /sweep failed/,
      );
      assert.deepEqual(await withStoreLock(nodeB, 'housekeeping', async () => 1), { ran: true, value: 1 });
    });

    it('keeps locks of different names apart', async () => {
      const holding = gate();
      const entered = gate();
      const first = withStoreLock(nodeA, 'housekeeping', async () => {
        entered.open();
        await holding.opened;
      });
      await entered.opened;
      assert.deepEqual(await withStoreLock(nodeB, 'another', async () => 2), { ran: true, value: 2 });
      holding.open();
      await first;
    });
  });
}

const postgres = (await dialects()).find((d) => d.dialect === 'postgres')!;

describe('housekeeping of two nodes on one PostgreSQL', { skip: postgres.skip }, () => {
  let nodeA: TestService;
  let nodeB: TestService;

  before(async () => {
    const database = await postgres.create();
    nodeA = await startTestService(database);
    nodeB = await startTestService(database);
  });
  after(async () => {
    await nodeB.close();
    await nodeA.close();
    await nodeA.database.drop();
  });

  it('skips the pass on a node while another holds the lock, and counts it', async () => {
    const holding = gate();
    const entered = gate();
    const held = withStoreLock(nodeA.store, 'housekeeping', async () => {
      entered.open();
      await holding.opened;
    });
    await entered.opened;
    assert.equal(await nodeB.housekeep(), 'skipped');
    holding.open();
    await held;
    assert.equal(await nodeB.housekeep(), 'ran');
    const text = await (await fetch(`${nodeB.url}/metrics`)).text();
    assert.match(text, /^vectorize_housekeeping_passes_total\{outcome="skipped"\} 1$/m);
    // One at start-up (or skipped, if node A's start-up pass held the lock then) and the one above.
    assert.match(text, /^vectorize_housekeeping_passes_total\{outcome="ran"\} [12]$/m);
  });
});
