// Sign-up as an abuser meets it: the free credits wait for the mailed link (an unverified
// account's key gets 402), the link works once, sign-ups are limited per client address and in
// all with a 429 that says the wait, and a new and a taken email get the same answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findAccountByEmail } from '../../../src/accounts/accounts.ts';
import { createKey } from '../../../src/accounts/keys.ts';
import { corpusFile, postVectorize } from '../../helpers/http.ts';
import { errorOf, fromAddress, PageClient, pathOf } from '../../helpers/pages.ts';
import { startTestService, testClock, type TestService } from '../../helpers/service.ts';
import { createSqliteDatabase } from '../../helpers/stores.ts';
import { waitFor } from '../../helpers/upload.ts';

const PASSWORD = 'a new member 2026';
const PNG = corpusFile('edge/tiny_tango_address_book_32.png');

describe('sign-up: free credits only for a verified email', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService(createSqliteDatabase());
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  it('gives no credit until the link is followed: the new key converts nothing (402), then 10 credits', async () => {
    const since = service.mailbox.mark();
    const page = await service.pages().submit('/signup', '/signup', { email: 'farmer@example.com', password: PASSWORD });
    assert.equal(page.status, 200);
    const account = await findAccountByEmail(service.store.db, 'farmer@example.com');
    assert.equal(account?.credits, 0);
    assert.equal(account?.emailVerified, false);
    const { key } = await createKey(service.store.db, account!.id, 'script');
    service.logs.secrets.add(key);
    const refused = await postVectorize(service.url, key, { image: PNG });
    assert.equal(refused.status, 402);
    assert.deepEqual(refused.body.credits_remaining, 0);

    // Logged in before verifying: the dashboard says what to do.
    const client = service.pages();
    assert.equal((await client.logIn('farmer@example.com', PASSWORD)).status, 303);
    const dashboard = await client.get('/account');
    assert.match(dashboard.html, /Confirm your email/);
    assert.match(dashboard.html, /id="credits">0</);

    const link = await service.mailbox.linkTo('farmer@example.com', '/email/confirm', since);
    const confirmed = await client.get(pathOf(link));
    assert.equal(confirmed.status, 200);
    assert.match(confirmed.html, /10 free credits were added/);
    assert.equal((await findAccountByEmail(service.store.db, 'farmer@example.com'))?.credits, 10);
    assert.equal((await postVectorize(service.url, key, { image: PNG })).status, 200);
    assert.doesNotMatch((await client.get('/account')).html, /Confirm your email/);

    const again = await client.get(pathOf(link));
    assert.equal(again.status, 400, 'the link works once');
    assert.equal((await findAccountByEmail(service.store.db, 'farmer@example.com'))?.credits, 9, 'and grants once');
  });

  it('sends the link again on request, and the earlier link stops working', async () => {
    const since = service.mailbox.mark();
    await service.pages().submit('/signup', '/signup', { email: 'again@example.com', password: PASSWORD });
    const first = await service.mailbox.linkTo('again@example.com', '/email/confirm', since);
    const client = service.pages();
    await client.logIn('again@example.com', PASSWORD);
    const resent = await client.submit('/account', '/account/verify-email', {});
    assert.equal(resent.status, 200);
    assert.match(resent.html, /We sent a new link/);
    const mailed = () => service.logs.lines.slice(since).join('\n').match(/http:\/\/[^\s"]+\/email\/confirm\?token=[\w-]+/g) ?? [];
    await waitFor(() => mailed().length === 2, 10_000, 'the second mail');
    const links = mailed();
    assert.equal(links[0], first);
    assert.equal((await client.get(pathOf(links[0]!))).status, 400, 'the first is void');
    assert.equal((await client.get(pathOf(links[1]!))).status, 200);
    assert.equal((await findAccountByEmail(service.store.db, 'again@example.com'))?.credits, 10);
  });
});

describe('sign-up floods', () => {
  const clock = testClock();
  let service: TestService;
  before(async () => {
    service = await startTestService(createSqliteDatabase(), {
      now: clock.now,
      // The default per address (5 an hour), and a total small enough to reach in a test.
      env: { SIGNUPS_PER_ADDRESS_PER_HOUR: '5', SIGNUPS_PER_HOUR: '12', TRUST_PROXY: '127.0.0.1' },
    });
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  const signUp = (address: string, email: string) => fromAddress(new PageClient(service.url), address).submit('/signup', '/signup', { email, password: PASSWORD });

  it('refuses the 6th sign-up in an hour from one address with 429 and the wait; others still sign up', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await signUp('10.8.0.1', `flood${i}@example.com`)).status);
    assert.deepEqual(statuses, [...Array(5).fill(200), ...Array(25).fill(429)]);
    const refused = await signUp('10.8.0.1', 'flood-more@example.com');
    assert.equal(refused.headers.get('retry-after'), '3600');
    assert.match(errorOf(refused.html) ?? '', /Too many sign-ups .*: wait 1 hour \(3600 seconds\) and try again/);
    assert.match(refused.html, /value="flood-more@example.com"/, 'the form is kept');
    const accounts = await service.store.db.selectFrom('accounts').select('email').where('email', 'like', 'flood%').execute();
    assert.equal(accounts.length, 5);
    // A taken email counts the same, so a flood cannot probe for free.
    assert.equal((await signUp('10.8.0.2', 'flood0@example.com')).status, 200);
    // Bad input is told at once and costs no place.
    for (let i = 0; i < 6; i++) assert.equal((await signUp('10.8.0.3', 'not an email')).status, 400);
    assert.equal((await signUp('10.8.0.3', 'fine@example.com')).status, 200);
    clock.advance(30 * 60 * 1000);
    assert.equal((await signUp('10.8.0.1', 'later@example.com')).headers.get('retry-after'), '1800', 'the window slides');
  });

  it('refuses sign-ups past the total for the whole service, from any address', async () => {
    // 5 + 1 + 1 + 0 counted above; the total is 12 an hour.
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await signUp(`10.8.1.${i}`, `wave${i}@example.com`)).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429, 429]);
  });
});
