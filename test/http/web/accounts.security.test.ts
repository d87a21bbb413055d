// What suspended and banned accounts may do on the web (docs/limits.md), bans ending sessions
// at once (admin page and command line, sessions in the store or in Redis), and the smaller
// findings: repeated query parameters, reset links that die together, the converter's preview
// typed from the bytes, and logs without tokens or typed text.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { createAccount, type Account } from '../../../src/accounts/accounts.ts';
import { changeAccount } from '../../../src/accounts/admin.ts';
import { createKey } from '../../../src/accounts/keys.ts';
import { hashPassword } from '../../../src/accounts/passwords.ts';
import { connectRedis } from '../../../src/store/redis.ts';
import { corpusFile, postVectorize } from '../../helpers/http.ts';
import { csrfOf, errorOf, PageClient, pathOf } from '../../helpers/pages.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { createSqliteDatabase, limitsBackends, REDIS_TEST_URL } from '../../helpers/stores.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PASSWORD = 'a careful password 7';
const PNG = corpusFile('edge/tiny_tango_address_book_32.png');

for (const backend of await limitsBackends()) {
  describe(`banned and suspended accounts on the web (sessions in ${backend.name === 'redis' ? 'Redis' : 'the store'})`, { skip: backend.skip }, () => {
    let service: TestService;
    let env: Record<string, string>;
    let passwordHash: string;
    before(async () => {
      env = backend.env();
      service = await startTestService(await backend.createDatabase(), { env });
      passwordHash = await hashPassword(PASSWORD);
    });
    after(async () => {
      await service.close();
      await service.database.drop();
      await backend.cleanup();
    });

    async function loggedIn(email: string): Promise<{ account: Account; client: PageClient }> {
      const account = await createAccount(service.store.db, { email, passwordHash });
      const client = service.pages();
      assert.equal((await client.logIn(email, PASSWORD)).status, 303);
      return { account, client };
    }

    async function storedSessions(accountId: string): Promise<number> {
      if (!env.REDIS_PREFIX) {
        return (await service.store.db.selectFrom('sessions').select('id_hash').where('account_id', '=', accountId).execute()).length;
      }
      const redis = await connectRedis(REDIS_TEST_URL);
      try {
        const keys = await redis.keys(`${env.REDIS_PREFIX}session:*`);
        const owners = await Promise.all(keys.map(async (key) => (JSON.parse((await redis.get(key)) ?? '{}') as { accountId?: string }).accountId));
        return owners.filter((owner) => owner === accountId).length;
      } finally {
        redis.disconnect();
      }
    }

    it('a ban from the admin page ends every session of the account at once; a banned account cannot log in', async () => {
      const { account, client } = await loggedIn('banned-web@example.com');
      const second = service.pages();
      await second.logIn('banned-web@example.com', PASSWORD);
      assert.equal(await storedSessions(account.id), 2);
      const admin = await loggedIn('admin-web@example.com');
      await changeAccount(service.store.db, 'test', admin.account.id, { role: 'admin' });
      const page = await admin.client.get(`/admin/accounts/${account.id}`);
      const banned = await admin.client.post(`/admin/accounts/${account.id}/status`, { _csrf: csrfOf(page.html), status: 'banned' });
      assert.match(banned.html, /Status changed to banned/);
      assert.equal(await storedSessions(account.id), 0, 'ended on the server before any request of theirs');
      assert.equal((await client.get('/account')).status, 303);
      const login = await service.pages().logIn('banned-web@example.com', PASSWORD);
      assert.equal(login.status, 403);
      assert.match(errorOf(login.html) ?? '', /This account is banned: it cannot log in/);
      assert.equal(login.headers.getSetCookie().some((c) => c.startsWith('vectorize_session=')), false);
      const wrong = await service.pages().logIn('banned-web@example.com', 'not the password at all');
      assert.equal(wrong.status, 400, 'a wrong password reads as for anyone');
    });

    it('a ban from the command line ends the sessions too', async () => {
      const { account, client } = await loggedIn('banned-cli@example.com');
      assert.equal(await storedSessions(account.id), 1);
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'account', 'set', '--email', 'banned-cli@example.com', '--status', 'banned'], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: service.database.url, ...env },
      });
      assert.equal(JSON.parse(stdout).status, 'banned');
      assert.equal(await storedSessions(account.id), 0);
      assert.equal((await client.get('/account')).status, 303);
    });

    it('a suspended account logs in and sees its dashboard, but creates no key and converts nothing', async () => {
      const { account, client } = await loggedIn('suspended-web@example.com');
      const { key } = await createKey(service.store.db, account.id, 'old');
      service.logs.secrets.add(key);
      await changeAccount(service.store.db, 'test', account.id, { status: 'suspended' });
      const dashboard = await client.get('/account');
      assert.equal(dashboard.status, 200, 'the session stays');
      assert.match(dashboard.html, /suspended/);
      const again = service.pages();
      assert.equal((await again.logIn('suspended-web@example.com', PASSWORD)).status, 303, 'and it may log in');
      const created = await again.submit('/account/keys', '/account/keys', { name: 'new one' });
      assert.equal(created.status, 403);
      assert.match(errorOf(created.html) ?? '', /suspended: it cannot convert images or create API keys/);
      assert.doesNotMatch(created.html, /value="vk_[A-Za-z0-9]{43}"/, "no new key shown");
      const form = new FormData();
      form.append('image', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'a.png');
      const converted = await again.postMultipart('/try', form, { accept: 'application/json', 'x-csrf-token': csrfOf((await again.get('/try')).html) });
      assert.equal(converted.status, 403);
      assert.equal((await postVectorize(service.url, key, { image: PNG })).status, 403);
      // Revoking its own keys is still allowed.
      const prefix = key.slice(0, 11);
      const revoke = await again.submit('/account/keys', '/account/keys/revoke', { prefix, confirm: 'yes' });
      // Post/redirect/get: a reload of what follows posts nothing again.
      assert.equal(revoke.status, 303);
      assert.equal(revoke.location, `/account/keys?revoked=${prefix}`);
      assert.match((await again.get(revoke.location ?? '')).html, new RegExp(`The key ${prefix} is revoked`));
      assert.doesNotMatch((await again.get(`/account/keys?revoked=vk_none`)).html, /is revoked\./, 'the notice names only a revoked key of this account');
    });
  });
}

describe('tokens, previews and logs', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService(createSqliteDatabase());
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  it('reads a repeated query parameter as no value: 400 or the page, never a 500', async () => {
    const admin = await createAccount(service.store.db, { email: 'query-admin@example.com', passwordHash: await hashPassword(PASSWORD) });
    await changeAccount(service.store.db, 'test', admin.id, { role: 'admin' });
    const client = service.pages();
    const anonymous = await client.get('/password-reset/confirm?token=a&token=b');
    assert.equal(anonymous.status, 400);
    assert.match(anonymous.html, /expired or was already used/);
    assert.equal((await client.get('/email/confirm?token=a&token=b')).status, 400);
    assert.equal((await client.get('/login?next=/a&next=/b&reset=1&reset=2')).status, 200);
    await client.logIn('query-admin@example.com', PASSWORD);
    assert.equal((await client.get('/admin?q=a&q=b')).status, 200);
    assert.deepEqual(
      service.logs.lines.filter((line) => line.includes('"level":50')),
      [],
      'nothing logged as an error',
    );
  });

  it('ends every reset link of an account when one is used', async () => {
    await createAccount(service.store.db, { email: 'links@example.com', passwordHash: await hashPassword(PASSWORD) });
    const since = service.mailbox.mark();
    for (let i = 0; i < 2; i++) assert.equal((await service.pages().submit('/password-reset', '/password-reset', { email: 'links@example.com' })).status, 200);
    let links: string[] = [];
    const deadline = Date.now() + 5000;
    while (links.length < 2 && Date.now() < deadline) {
      links = service.logs.lines.slice(since).join('\n').match(/http:\/\/[^\s"]+\/password-reset\/confirm\?token=[\w-]+/g) ?? [];
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(links.length, 2);
    const [older, newer] = links as [string, string];
    const client = service.pages();
    const token = new URL(newer).searchParams.get('token')!;
    const used = await client.post('/password-reset/confirm', { _csrf: await client.csrf(pathOf(newer)), token, password: 'a brand new password' });
    assert.equal(used.status, 303);
    const stale = await client.get(pathOf(older));
    assert.equal(stale.status, 400, 'the older link died with the reset');
  });

  it("builds the no-script preview's data URL from the image's bytes, not the upload's Content-Type", async () => {
    const client = service.pages();
    await client.signUp('preview@example.com', PASSWORD);
    const form = new FormData();
    form.append('_csrf', csrfOf((await client.get('/try')).html));
    const crafted = 'image/png;base64,AAAA"><meta http-equiv="refresh" content="0;url=https://evil.example/"><x y="';
    form.append('image', new Blob([new Uint8Array(PNG)], { type: crafted }), 'crafted.png');
    const res = await client.postMultipart('/try', form);
    assert.equal(res.status, 200, res.text.slice(0, 300));
    assert.doesNotMatch(res.text, /http-equiv|evil\.example/);
    assert.match(res.text, /id="preview-original"[^>]*src="data:image\/png;base64,iVBORw0KGgo/);
  });

  it('logs no token, however its name is spelt, and nothing typed into a refused form', async () => {
    const secretToken = 'SecretTokenValue1234567890abcdef';
    for (const name of ['token', 't%6Fken', '%74%6F%6B%65%6E', 'TOKEN']) {
      await fetch(`${service.url}/password-reset/confirm?${name}=${secretToken}`);
      await fetch(`${service.url}/email/confirm?x=1&${name}=${secretToken}`);
    }
    const typed = 'my-secret-passphrase-typed-in-the-email-field';
    const client = service.pages();
    const signup = await client.submit('/signup', '/signup', { email: typed, password: 'whatever it is 123' });
    assert.equal(signup.status, 400);
    const login = await client.submit('/login', '/login', { email: `${typed}@example.com`, password: '' });
    assert.equal(login.status, 400);
    const reset = await client.submit('/password-reset', '/password-reset', { email: `${typed} x` });
    assert.equal(reset.status, 400);
    const forged = await client.post('/signup', { _csrf: 'forged', email: typed, password: 'whatever it is 123' });
    assert.equal(forged.status, 403);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(service.logs.lines.filter((line) => line.includes(secretToken)), [], 'no token');
    assert.deepEqual(service.logs.lines.filter((line) => line.includes(typed)), [], 'nothing typed');
    assert.ok(service.logs.lines.some((line) => line.includes('"msg":"form refused"') && line.includes('"code":"invalid_input"')), 'the refusal is logged, by its code');
  });
});
