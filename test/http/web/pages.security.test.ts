// The pages' security, over real HTTP: CSRF, escaping, session ids, log-in failures and their
// throttle, the admin area's 404, and logs free of passwords and session ids.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findAccountByEmail } from '../../../src/accounts/accounts.ts';
import { changeAccount } from '../../../src/accounts/admin.ts';
import { hashSessionId } from '../../../src/sessions/sessions.ts';
import { corpusFile } from '../../helpers/http.ts';
import { PageClient, csrfOf, errorOf } from '../../helpers/pages.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { createSqliteDatabase } from '../../helpers/stores.ts';

const PASSWORD = 'correct horse battery';
const PNG = corpusFile('edge/tiny_tango_address_book_32.png');

async function count(service: TestService, table: 'accounts' | 'api_keys' | 'sessions' | 'ledger' | 'conversions' | 'audit'): Promise<number> {
  const row = await service.store.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

function sessionIdOf(client: PageClient): string {
  const signed = client.cookies.get('vectorize_session');
  assert.ok(signed, 'a session cookie');
  // `id.signature`: the id is everything before the last dot.
  return decodeURIComponent(signed).slice(0, decodeURIComponent(signed).lastIndexOf('.'));
}

describe('pages: CSRF, escaping, sessions, admin', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService(createSqliteDatabase());
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  it('refuses a POST without a valid CSRF token with 403, and changes nothing', async () => {
    const client = service.pages();
    await client.signUp('csrf@example.com', PASSWORD);
    const tables = ['accounts', 'api_keys', 'ledger', 'audit', 'conversions'] as const;
    const before = await Promise.all(tables.map((table) => count(service, table)));
    const session = sessionIdOf(client);
    for (const token of [undefined, '', 'forged-token', csrfOf((await service.pages().get('/login')).html)]) {
      const fields: Record<string, string> = { name: 'stolen' };
      if (token !== undefined) fields._csrf = token;
      const res = await client.post('/account/keys', fields);
      assert.equal(res.status, 403, `token ${String(token)}`);
      assert.match(errorOf(res.html) ?? '', /expired.*nothing was changed/i);
      assert.match(res.html, /value="stolen"/, 'the form is kept filled');
    }
    const signup = await service.pages().post('/signup', { email: 'nocsrf@example.com', password: PASSWORD });
    assert.equal(signup.status, 403);
    assert.equal(await findAccountByEmail(service.store.db, 'nocsrf@example.com'), undefined);
    const logout = await client.post('/logout', { _csrf: 'nope' });
    assert.equal(logout.status, 403);
    assert.equal((await client.get('/account')).status, 200, 'still logged in');
    assert.deepEqual(await Promise.all(tables.map((table) => count(service, table))), before);
    assert.equal(sessionIdOf(client), session, 'the session is the same');
  });

  it('shows a filename like <img src=x onerror=alert(1)>.png as text on the dashboard', async () => {
    const client = service.pages();
    await client.signUp('xss@example.com', PASSWORD);
    const page = await client.get('/try');
    const form = new FormData();
    form.append('_csrf', csrfOf(page.html));
    form.append('image', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), '<img src=x onerror=alert(1)>.png');
    const converted = await client.postMultipart('/try', form);
    assert.equal(converted.status, 200, converted.text.slice(0, 400));
    const dashboard = await client.get('/account');
    assert.ok(dashboard.html.includes('&lt;img src=x onerror=alert(1)&gt;.png'), 'escaped in the page');
    assert.ok(!dashboard.html.includes('<img src=x'), 'never as markup');
    assert.doesNotMatch(dashboard.headers.get('content-security-policy') ?? '', /unsafe-inline/);
  });

  it('stores no session before log-in, a new one at log-in, and log-out ends it on the server', async () => {
    await service.pages().signUp('rotate@example.com', PASSWORD);
    const client = service.pages();
    const rowsBefore = await count(service, 'sessions');
    await client.get('/login');
    assert.equal(client.cookies.get('vectorize_session'), undefined, 'no session cookie for a visitor');
    assert.equal(await count(service, 'sessions'), rowsBefore, 'no session row for a visitor');
    const login = await client.logIn('rotate@example.com', PASSWORD);
    assert.equal(login.status, 303);
    assert.equal(login.location, '/account');
    const loggedIn = sessionIdOf(client);
    const stored = await service.store.db.selectFrom('sessions').select('id_hash').execute();
    assert.equal(stored.length, rowsBefore + 1);
    assert.ok(stored.some((row) => row.id_hash === hashSessionId(loggedIn)));
    assert.ok(!stored.some((row) => row.id_hash === loggedIn), 'only the hash is stored');
    // Logged in again from the same browser: a new session id, the old one gone.
    const again = await client.post('/login', { _csrf: csrfOf((await client.get('/account')).html), email: 'rotate@example.com', password: PASSWORD });
    assert.equal(again.status, 303);
    const second = sessionIdOf(client);
    assert.notEqual(second, loggedIn);
    const rows = await service.store.db.selectFrom('sessions').select('id_hash').execute();
    assert.ok(!rows.some((row) => row.id_hash === hashSessionId(loggedIn)), 'the earlier session is gone');
    const cookieBefore = client.cookieHeader();

    const logout = await client.submit('/account', '/logout', {});
    assert.equal(logout.status, 303);
    // The old cookie, replayed, no longer opens the account: the session is gone on the server.
    const replay = await fetch(`${service.url}/account`, { headers: { cookie: cookieBefore }, redirect: 'manual' });
    assert.equal(replay.status, 303);
    assert.match(replay.headers.get('location') ?? '', /^\/login/);
    const left = await service.store.db.selectFrom('sessions').select('id_hash').where('id_hash', '=', hashSessionId(second)).execute();
    assert.equal(left.length, 0);
  });

  it('sets its cookies HttpOnly and SameSite=Lax: the visitor\'s form cookie, then the session at log-in', async () => {
    const res = await fetch(`${service.url}/login`);
    const form = res.headers.getSetCookie().find((c) => c.startsWith('vectorize_form='));
    assert.ok(form, 'the form cookie');
    assert.match(form, /HttpOnly/);
    assert.match(form, /SameSite=Lax/);
    assert.doesNotMatch(form, /Secure/, 'plain http PUBLIC_URL: not Secure');
    assert.ok(!res.headers.getSetCookie().some((c) => c.startsWith('vectorize_session=')), 'no session for a visitor');
    await service.pages().signUp('cookie@example.com', PASSWORD);
    const client = service.pages();
    const login = await client.logIn('cookie@example.com', PASSWORD);
    const session = login.headers.getSetCookie().find((c) => c.startsWith('vectorize_session='));
    assert.ok(session);
    assert.match(session, /HttpOnly/);
    assert.match(session, /SameSite=Lax/);
  });

  it('answers /admin and below with 404 to everyone but admins', async () => {
    const anonymous = service.pages();
    const user = service.pages();
    await user.signUp('plain@example.com', PASSWORD);
    const account = await findAccountByEmail(service.store.db, 'plain@example.com');
    for (const client of [anonymous, user]) {
      for (const path of ['/admin', `/admin/accounts/${account!.id}`, '/admin/plans/free']) {
        const res = await client.get(path);
        assert.equal(res.status, 404, path);
        assert.match(res.html, /Page not found/);
      }
      const post = await client.post(`/admin/accounts/${account!.id}/pack`, { _csrf: 'x', pack: '500' });
      assert.equal(post.status, 404);
    }
    assert.equal((await findAccountByEmail(service.store.db, 'plain@example.com'))!.credits, 10);
    await changeAccount(service.store.db, 'test', account!.id, { role: 'admin' });
    const admin = await user.get('/admin');
    assert.equal(admin.status, 200);
    // The latest changes name the account changed, with a link to it.
    assert.match(admin.html, new RegExp(`<li>[^<]*<a href="/admin/accounts/${account!.id}">plain@example\\.com</a>, account changed, role user → admin \\(by test\\)</li>`));
  });

  it('takes the same path for a failed log-in with an unknown and a known email', async () => {
    await service.pages().signUp('known@example.com', PASSWORD);
    const attempt = async (email: string) => {
      const client = service.pages();
      const started = performance.now();
      const res = await client.logIn(email, 'wrong password!');
      return { status: res.status, error: errorOf(res.html), ms: performance.now() - started, html: res.html };
    };
    // Three of each, interleaved, compared by their medians: one busy moment does not decide.
    const runs: Awaited<ReturnType<typeof attempt>>[][] = [[], []];
    for (let i = 0; i < 3; i++) {
      runs[0]!.push(await attempt('known@example.com'));
      runs[1]!.push(await attempt('nobody@example.com'));
    }
    const median = (list: Awaited<ReturnType<typeof attempt>>[]) => ({ ...list[0]!, ms: list.map((r) => r.ms).sort((a, b) => a - b)[1]! });
    const known = median(runs[0]!);
    const unknown = median(runs[1]!);
    assert.equal(known.status, 400);
    assert.equal(unknown.status, known.status);
    assert.equal(unknown.error, known.error);
    assert.match(known.error ?? '', /email or password is incorrect/i);
    const strip = (html: string) => html.replace(/value="[^"]*"/g, '');
    assert.equal(strip(unknown.html).replace('nobody@example.com', 'X'), strip(known.html).replace('known@example.com', 'X'));
    // Both verify a scrypt hash (a decoy for the unknown email): neither answers much faster.
    assert.ok(unknown.ms > known.ms * 0.3 && known.ms > unknown.ms * 0.3, `${known.ms} ms vs ${unknown.ms} ms`);
  });

  it('keeps passwords and session ids out of every log line', async () => {
    const client = service.pages();
    const secret = 'a-password-to-find 9876';
    await service.pages().signUp('logged@example.com', secret);
    await service.pages().logIn('logged@example.com', `${secret}x`);
    assert.equal((await client.logIn('logged@example.com', secret)).status, 303);
    await client.get('/account');
    const sessionId = sessionIdOf(client);
    const cookie = client.cookies.get('vectorize_session')!;
    const lines = service.logs.lines;
    assert.ok(lines.length > 10);
    for (const needle of [secret, sessionId, cookie, decodeURIComponent(cookie)]) {
      assert.deepEqual(lines.filter((line) => line.includes(needle)), [], needle);
    }
  });
});

describe('pages: the session cookie behind https', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService(createSqliteDatabase(), { env: { PUBLIC_URL: 'https://vectorize.example.com' } });
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  it('is Secure when PUBLIC_URL is https, and links in mails use PUBLIC_URL', async () => {
    const res = await fetch(`${service.url}/login`);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('vectorize_form='));
    assert.match(cookie ?? '', /; Secure/);
    assert.match(cookie ?? '', /HttpOnly/);
    // SMTP_URL unset: the mails, links included, are written to the log at info level.
    await service.pages().signUp('https@example.com', PASSWORD);
    const client = service.pages();
    const token = csrfOf(await res.text());
    client.cookies.set('vectorize_form', cookie!.split(';')[0]!.slice('vectorize_form='.length));
    assert.equal((await client.post('/password-reset', { _csrf: token, email: 'https@example.com' })).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const line = service.logs.lines.find((l) => l.includes('Set a new Vectorize password'));
    assert.ok(line, 'the mail is in the log');
    assert.match(line, /"level":30/);
    assert.match(line, /https:\/\/vectorize\.example\.com\/password-reset\/confirm\?token=[\w-]{43}/);
  });
});
