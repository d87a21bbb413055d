// The admin command line's payment and test-key commands, as an operator runs them
// (`npm run --silent cli -- …`, the compiled CLI) on the same DATABASE_URL as the server.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { findKeyOwner } from '../../src/accounts/keys.ts';
import { findPrice } from '../../src/payments/prices.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { createSqliteDatabase, type TestDatabase } from '../helpers/stores.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

describe('admin CLI: test keys and prices', () => {
  let database: TestDatabase;
  let store: Store;
  async function cli(args: string[]) {
    try {
      const { stdout, stderr } = await run('npm', ['run', '--silent', 'cli', '--', ...args], { cwd: ROOT, env: { ...process.env, DATABASE_URL: database.url } });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failure = error as { code: number; stdout: string; stderr: string };
      return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
    }
  }

  before(async () => {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'ignore' });
    database = createSqliteDatabase();
    store = await openStore(database.url);
  });
  after(async () => {
    await store.close();
    await database.drop();
  });

  it('creates a test key with --test, printed alone, listed as a test key', async () => {
    assert.equal((await cli(['account', 'create', '--email', 'ops@example.com'])).code, 0);
    const created = await cli(['key', 'create', '--email', 'ops@example.com', '--name', 'ci', '--test']);
    assert.equal(created.code, 0, created.stderr);
    const key = created.stdout.trim();
    assert.match(key, /^vk_test_[A-Za-z0-9]{43}$/);
    assert.equal((await findKeyOwner(store.db, key))?.test, true);
    const live = (await cli(['key', 'create', '--email', 'ops@example.com'])).stdout.trim();
    assert.match(live, /^vk_(?!test_)[A-Za-z0-9]{43}$/);
    const listed = JSON.parse((await cli(['key', 'list', '--email', 'ops@example.com'])).stdout) as { prefix: string; test: boolean }[];
    assert.deepEqual(listed.map((k) => [k.prefix.length, k.test]), [[16, true], [11, false]]);
    const revoked = await cli(['key', 'revoke', '--prefix', listed[0]?.prefix ?? '']);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal(await findKeyOwner(store.db, key), undefined);
  });

  it('lists and sets prices, refusing what is not a price', async () => {
    const listed = JSON.parse((await cli(['price', 'list'])).stdout) as { product: string; price: string; billing: string }[];
    assert.deepEqual(
      listed.map((p) => `${p.product} ${p.price} ${p.billing}`),
      ['pack_50 $5.00 one-time', 'pack_200 $15.00 one-time', 'pack_500 $30.00 one-time', 'plan_pro $12.00 monthly subscription', 'plan_team $39.00 monthly subscription', 'plan_lifetime $299.00 one-time'],
    );
    const set = await cli(['price', 'set', '--product', 'pack_50', '--amount', '4.50', '--currency', 'eur']);
    assert.equal(set.code, 0, set.stderr);
    assert.equal(JSON.parse(set.stdout).price, '€4.50');
    const price = await findPrice(store.db, 'pack_50');
    assert.deepEqual([price?.unitAmount, price?.currency], [450, 'eur']);
    assert.equal((await cli(['price', 'set', '--product', 'plan_team', '--active', 'no'])).code, 0);
    assert.equal((await findPrice(store.db, 'plan_team'))?.active, false);
    const bad = await cli(['price', 'set', '--product', 'pack_50', '--amount', '4.505']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /amount: a price such as 12\.00 in EUR/);
    assert.equal((await cli(['price', 'set', '--product', 'pack_9', '--amount', '1'])).code, 1);
    assert.match((await cli(['price', 'set', '--product', 'pack_50', '--currency', 'xyz', '--amount', '1'])).stderr, /currency: an ISO 4217 code/);
  });
});
