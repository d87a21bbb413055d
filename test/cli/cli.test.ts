// The admin command line as an operator runs it: a separate process on the same DATABASE_URL.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { findAccountByEmail } from '../../src/accounts/accounts.ts';
import { findKeyOwner } from '../../src/accounts/keys.ts';
import { ledgerSum } from '../../src/accounts/credits.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { dialects, type TestDatabase } from '../helpers/stores.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(databaseUrl: string, args: string[], viaNpm = false): Promise<CliResult> {
  const [command, prefix] = viaNpm
    ? ['npm', ['run', '--silent', 'cli', '--']]
    : [process.execPath, ['--import', 'tsx', 'src/cli/main.ts']];
  try {
    const { stdout, stderr } = await run(command, [...prefix, ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

// `npm run cli` runs the compiled CLI (dist/cli/main.js): build it from the sources under test.
before(() => {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'ignore' });
});

for (const dialect of await dialects()) {
  describe(`admin CLI (${dialect.dialect})`, { skip: dialect.skip }, () => {
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

    it('creates an account and prints the key alone, through npm run --silent cli', async () => {
      const created = await cli(database.url, ['account', 'create', '--email', 'ops@example.com'], true);
      assert.equal(created.code, 0, created.stderr);
      assert.equal(JSON.parse(created.stdout).credits, 10);
      const key = await cli(database.url, ['key', 'create', '--email', 'ops@example.com', '--name', 'ci'], true);
      assert.equal(key.code, 0, key.stderr);
      assert.match(key.stdout, /^vk_[A-Za-z0-9]{43}\n$/);
      const owner = await findKeyOwner(store.db, key.stdout.trim());
      assert.equal(owner?.account.email, 'ops@example.com');
    });

    it('creates accounts on each plan with given credits', async () => {
      const res = await cli(database.url, ['account', 'create', '--email', 'team@example.com', '--plan', 'team', '--credits', '3']);
      assert.equal(res.code, 0, res.stderr);
      const account = await findAccountByEmail(store.db, 'team@example.com');
      assert.equal(account?.plan.name, 'team');
      assert.equal(account?.credits, 3);
      assert.equal(await ledgerSum(store.db, account!.id), 3);
    });

    it('sets plan and status', async () => {
      await cli(database.url, ['account', 'create', '--email', 'set@example.com']);
      const res = await cli(database.url, ['account', 'set', '--email', 'set@example.com', '--plan', 'pro', '--status', 'suspended']);
      assert.equal(res.code, 0, res.stderr);
      const account = await findAccountByEmail(store.db, 'set@example.com');
      assert.equal(account?.plan.name, 'pro');
      assert.equal(account?.status, 'suspended');
    });

    it('gives and takes the admin role, and audits it', async () => {
      await cli(database.url, ['account', 'create', '--email', 'boss@example.com']);
      const res = await cli(database.url, ['account', 'set', '--email', 'boss@example.com', '--role', 'admin']);
      assert.equal(res.code, 0, res.stderr);
      assert.equal(JSON.parse(res.stdout).role, 'admin');
      assert.equal((await findAccountByEmail(store.db, 'boss@example.com'))?.role, 'admin');
      assert.equal((await cli(database.url, ['account', 'set', '--email', 'boss@example.com', '--role', 'user'])).code, 0);
      assert.equal((await findAccountByEmail(store.db, 'boss@example.com'))?.role, 'user');
      const audit = await store.db.selectFrom('audit').select(['actor', 'detail']).orderBy('id').execute();
      assert.deepEqual(audit.slice(-2), [
        { actor: 'the command line', detail: 'role user → admin' },
        { actor: 'the command line', detail: 'role admin → user' },
      ]);
      const bad = await cli(database.url, ['account', 'set', '--email', 'boss@example.com', '--role', 'owner']);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /unknown role/);
    });

    it('adds credits by amount and by pack, in the ledger', async () => {
      await cli(database.url, ['account', 'create', '--email', 'credits@example.com']);
      assert.equal((await cli(database.url, ['credits', 'add', '--email', 'credits@example.com', '--pack', '200'])).code, 0);
      assert.equal((await cli(database.url, ['credits', 'add', '--email', 'credits@example.com', '--amount', '5'])).code, 0);
      const account = await findAccountByEmail(store.db, 'credits@example.com');
      assert.equal(account?.credits, 215);
      assert.equal(await ledgerSum(store.db, account!.id), 215);
    });

    it('revokes a key by its prefix', async () => {
      await cli(database.url, ['account', 'create', '--email', 'revoke@example.com']);
      const key = (await cli(database.url, ['key', 'create', '--email', 'revoke@example.com'])).stdout.trim();
      const list = JSON.parse((await cli(database.url, ['key', 'list', '--email', 'revoke@example.com'])).stdout) as { prefix: string }[];
      assert.equal(list.length, 1);
      assert.ok(key.startsWith(list[0]!.prefix));
      const res = await cli(database.url, ['key', 'revoke', '--prefix', list[0]!.prefix]);
      assert.equal(res.code, 0, res.stderr);
      assert.equal(await findKeyOwner(store.db, key), undefined);
    });

    it('revokes by any leading part of the key that names one key, or by the whole key', async () => {
      await cli(database.url, ['account', 'create', '--email', 'lead@example.com']);
      const first = (await cli(database.url, ['key', 'create', '--email', 'lead@example.com'])).stdout.trim();
      const second = (await cli(database.url, ['key', 'create', '--email', 'lead@example.com'])).stdout.trim();
      assert.equal((await cli(database.url, ['key', 'revoke', '--prefix', first.slice(0, 8)])).code, 0);
      assert.equal(await findKeyOwner(store.db, first), undefined);
      assert.equal((await cli(database.url, ['key', 'revoke', '--prefix', second])).code, 0);
      assert.equal(await findKeyOwner(store.db, second), undefined);
      const tooShort = await cli(database.url, ['key', 'revoke', '--prefix', 'vk_']);
      assert.notEqual(tooShort.code, 0);
      assert.match(tooShort.stderr, /at least 6 characters/);
    });

    it('changes plan limits, with none for no limit', async () => {
      const res = await cli(database.url, ['plan', 'set', '--name', 'pro', '--daily-quota', '250', '--burst', '5', '--concurrency', 'none']);
      assert.equal(res.code, 0, res.stderr);
      const plan = JSON.parse(res.stdout);
      assert.deepEqual([plan.daily_quota, plan.burst_per_second, plan.concurrency], [250, 5, null]);
    });

    for (const [label, args, pattern] of [
      ['an unknown email', ['account', 'set', '--email', 'ghost@example.com', '--plan', 'pro'], /no account/],
      ['a bad plan name', ['account', 'create', '--email', 'bad@example.com', '--plan', 'gold'], /unknown plan/],
      ['a bad status', ['account', 'set', '--email', 'ops@example.com', '--status', 'asleep'], /unknown status/],
      ['a negative amount', ['credits', 'add', '--email', 'ops@example.com', '--amount', '-5'], /at least 1/],
      ['a pack that does not exist', ['credits', 'add', '--email', 'ops@example.com', '--pack', '60'], /50, 200, 500/],
      ['amount and pack together', ['credits', 'add', '--email', 'ops@example.com', '--amount', '1', '--pack', '50'], /exactly one/],
      ['a missing email', ['key', 'create'], /--email is required/],
      ['an unknown prefix', ['key', 'revoke', '--prefix', 'vk_nothere'], /no API key/],
      ['an unknown plan in plan set', ['plan', 'set', '--name', 'gold', '--burst', '1'], /unknown plan/],
      ['a negative limit', ['plan', 'set', '--name', 'free', '--burst', '-1'], /at least 1/],
      ['an unknown option', ['account', 'create', '--email', 'x@example.com', '--colour', 'red'], /colour/],
      ['an unknown command', ['account', 'delete'], /unknown command/],
      ['a duplicate email', ['account', 'create', '--email', 'ops@example.com'], /already exists/],
    ] as const) {
      it(`fails with a clear message and non-zero exit on ${label}`, async () => {
        const res = await cli(database.url, [...args]);
        assert.notEqual(res.code, 0);
        assert.match(res.stderr, pattern);
        assert.equal(res.stdout, '');
      });
    }

    it('prints help for every command', async () => {
      const top = await cli(database.url, ['--help']);
      assert.equal(top.code, 0);
      for (const command of ['account create', 'account set', 'key create', 'key revoke', 'credits add', 'plan set']) {
        assert.ok(top.stdout.includes(command), command);
        const help = await cli(database.url, [...command.split(' '), '--help']);
        assert.equal(help.code, 0);
        assert.match(help.stdout, new RegExp(`Usage: npm run --silent cli -- ${command}`));
      }
    });
  });
}
