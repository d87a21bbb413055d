// Bad input on the pages: a page that says what to fix, the form kept filled (passwords
// excepted), no stack trace, and nothing written.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findAccountByEmail } from '../../../src/accounts/accounts.ts';
import { createPasswordReset, RESET_LINK_VALIDITY_MS } from '../../../src/accounts/credentials.ts';
import { updatePlan } from '../../../src/accounts/plans.ts';
import { corpusFile } from '../../helpers/http.ts';
import { csrfOf, errorOf } from '../../helpers/pages.ts';
import { pngOfSize } from '../../helpers/png.ts';
import { startTestService, testClock, type TestService } from '../../helpers/service.ts';
import { createSqliteDatabase } from '../../helpers/stores.ts';

const PASSWORD = 'long enough password';
const PNG = corpusFile('edge/tiny_tango_address_book_32.png');
const UPLOAD_LIMIT = 10 * 1024 * 1024;
const TABLES = ['accounts', 'api_keys', 'ledger', 'conversions', 'reservations', 'password_resets', 'audit'] as const;

describe('pages: bad input', () => {
  let service: TestService;
  const clock = testClock(Date.now());

  async function counts(): Promise<number[]> {
    return Promise.all(
      TABLES.map(async (table) => Number((await service.store.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)),
    );
  }

  /**
   * What a refused conversion may leave: like the API, the converter reserves the credit before
   * it reads the upload, so a refusal found in the upload (a bad parameter, too large) writes the
   * reservation and its refund. Nothing is spent: every other table, every balance and the
   * ledger's sum are as before, and no reservation is left held.
   */
  async function effects(): Promise<number[]> {
    const { db } = service.store;
    const other = await Promise.all(
      (['accounts', 'api_keys', 'conversions', 'password_resets', 'audit'] as const).map(async (table) =>
        Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n),
      ),
    );
    const credits = await db.selectFrom('accounts').select((eb) => eb.fn.sum<number>('credits').as('n')).executeTakeFirstOrThrow();
    const ledger = await db.selectFrom('ledger').select((eb) => eb.fn.sum<number>('delta').as('n')).executeTakeFirstOrThrow();
    const held = await db.selectFrom('reservations').select((eb) => eb.fn.countAll<number>().as('n')).where('state', '=', 'held').executeTakeFirstOrThrow();
    return [...other, Number(credits.n), Number(ledger.n), Number(held.n)];
  }

  /** Every refusal page: the words, no stack trace, and the same rows in every table (or, for a conversion, nothing spent). */
  async function refused(run: () => Promise<{ status: number; html: string }>, status: number, words: RegExp, snapshot = counts): Promise<string> {
    const before = await snapshot();
    const res = await run();
    assert.equal(res.status, status, res.html.slice(0, 400));
    assert.match(errorOf(res.html) ?? '', words);
    assert.doesNotMatch(res.html, /\bat .+\.[jt]s:\d+|\w+Error\b|node_modules/, 'no stack trace');
    assert.deepEqual(await snapshot(), before, snapshot === counts ? 'nothing written' : 'nothing spent');
    return res.html;
  }

  before(async () => {
    service = await startTestService(createSqliteDatabase(), { now: clock.now });
  });
  after(async () => {
    await service.close();
    await service.database.drop();
  });

  it('sign-up: an empty or too-short password, or a malformed email, says what to fix and keeps the email', async () => {
    const client = service.pages();
    for (const [email, password, words] of [
      ['new@example.com', '', /enter a password/i],
      ['new@example.com', 'short', /at least 10 characters/i],
      ['not-an-email', PASSWORD, /not an email address/i],
      ['two@@example.com', PASSWORD, /not an email address/i],
    ] as const) {
      const html = await refused(() => client.submit('/signup', '/signup', { email, password }), 400, words);
      assert.ok(html.includes(`value="${email}"`), 'the email is kept');
      if (password) assert.ok(!html.includes(password), 'the password is not');
    }
    assert.equal(await findAccountByEmail(service.store.db, 'new@example.com'), undefined);
  });

  it('sign-up answers a new and a taken email with the same page, never that the email exists', async () => {
    await service.pages().signUp('owner@example.com', PASSWORD);
    const since = service.mailbox.mark();
    const again = await service.pages().submit('/signup', '/signup', { email: 'owner@example.com', password: 'another password!' });
    const fresh = await service.pages().submit('/signup', '/signup', { email: 'fresh@example.com', password: PASSWORD });
    assert.equal(again.status, 200);
    assert.equal(fresh.status, 200);
    assert.match(again.html, /Check your email/);
    assert.doesNotMatch(again.html, /exists|taken|already/i);
    const strip = (html: string, email: string) => html.replace(/value="[^"]*"/g, '').replaceAll(email, 'X');
    assert.equal(strip(again.html, 'owner@example.com'), strip(fresh.html, 'fresh@example.com'), 'the same page');
    assert.equal(again.headers.get('set-cookie') === null, fresh.headers.get('set-cookie') === null, 'neither logs in');
    // Only the mail differs: a link for the new address, a notice (and no second account) for the taken one.
    assert.match(await service.mailbox.linkTo('fresh@example.com', '/email/confirm', since), /token=/);
    await service.mailbox.linkTo('owner@example.com', '/password-reset', since);
    const owners = await service.store.db.selectFrom('accounts').select('id').where('email', '=', 'owner@example.com').execute();
    assert.equal(owners.length, 1);
  });

  it('a key name over 100 characters says so and keeps the name', async () => {
    const client = service.pages();
    await client.signUp('keys@example.com', PASSWORD);
    const name = 'k'.repeat(101);
    const html = await refused(() => client.submit('/account/keys', '/account/keys', { name }), 400, /at most 100 characters/);
    assert.ok(html.includes(`value="${name}"`));
    const ok = await client.submit('/account/keys', '/account/keys', { name: 'n'.repeat(100) });
    assert.equal(ok.status, 200);
    assert.match(ok.html, /value="vk_[A-Za-z0-9]{43}"/);
  });

  it('/try at the upload limit: exactly 10 × 1024 × 1024 bytes converts; one byte more gets a 413 page with the parameters kept, and spends nothing', async () => {
    const client = service.pages();
    await client.signUp('upload@example.com', PASSWORD);
    const token = csrfOf((await client.get('/try')).html);
    // The same valid PNG either side of the limit: only the size differs.
    const atLimit = pngOfSize(PNG, UPLOAD_LIMIT);
    const overLimit = pngOfSize(PNG, UPLOAD_LIMIT + 1);
    const pageForm = (image: Buffer) => {
      const form = new FormData();
      form.append('_csrf', token);
      form.append('colorPrecision', '3');
      form.append('image', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'limit.png');
      return form;
    };
    const scriptForm = (image: Buffer) => {
      const form = new FormData();
      form.append('image', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'limit.png');
      return form;
    };
    const credits = async () => (await findAccountByEmail(service.store.db, 'upload@example.com'))?.credits;

    // The form a browser posts without the script.
    const converted = await client.postMultipart('/try', pageForm(atLimit));
    assert.equal(converted.status, 200, errorOf(converted.text) ?? converted.text.slice(0, 400));
    assert.equal(errorOf(converted.text), undefined);
    assert.match(converted.text, /download="limit\.svg"/);
    assert.match(converted.text, /id="result-credits">9</);
    const before = await effects();
    const res = await client.postMultipart('/try', pageForm(overLimit));
    assert.equal(res.status, 413);
    assert.match(errorOf(res.text) ?? '', /larger than 10 MB/);
    assert.match(res.text, /id="colorPrecision"[^>]*value="3"/, 'the parameters are kept');
    assert.deepEqual(await effects(), before);
    assert.equal(await credits(), 9);

    // With the script's header and Accept: JSON, the same limit and the same words in JSON.
    clock.advance(1_000);
    const headers = { accept: 'application/json', 'x-csrf-token': token };
    const scripted = await client.postMultipart('/try', scriptForm(atLimit), headers);
    assert.equal(scripted.status, 200, scripted.text.slice(0, 400));
    assert.equal((JSON.parse(scripted.text) as { credits_remaining: number }).credits_remaining, 8);
    const scriptedBefore = await effects();
    const scriptedOver = await client.postMultipart('/try', scriptForm(overLimit), headers);
    assert.equal(scriptedOver.status, 413);
    assert.match((JSON.parse(scriptedOver.text) as { error: string }).error, /larger than 10 MB/);
    assert.deepEqual(await effects(), scriptedBefore);
    assert.equal(await credits(), 8);
  });

  it('/try says what is wrong in words: a bad parameter, no credits (402), a limit (429)', async () => {
    const client = service.pages();
    await client.signUp('words@example.com', PASSWORD);
    const convert = async (fields: Record<string, string>) => {
      const form = new FormData();
      form.append('_csrf', csrfOf((await client.get('/try')).html));
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      form.append('image', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'tiny.png');
      const res = await client.postMultipart('/try', form);
      return { status: res.status, html: res.text };
    };
    await refused(() => convert({ colorPrecision: '12' }), 400, /Color precision: must be an integer from 1 to 8/, effects);
    // Like the API's, the refused conversion was admitted by the limits: a second later, the burst window is clear.
    clock.advance(1_000);
    await updatePlan(service.store.db, 'free', { burstPerSecond: 1 });
    try {
      assert.equal((await convert({})).status, 200);
      const tooFast = await refused(() => convert({}), 429, /wait 1 second/, effects);
      assert.match(tooFast, /Too many conversions in a second/);
    } finally {
      await updatePlan(service.store.db, 'free', { burstPerSecond: 2 });
    }
    const account = await findAccountByEmail(service.store.db, 'words@example.com');
    await service.store.db.updateTable('accounts').set({ credits: 0 }).where('id', '=', account!.id).execute();
    clock.advance(2_000);
    await refused(() => convert({}), 402, /No credits left/, effects);
    assert.equal((await findAccountByEmail(service.store.db, 'words@example.com'))?.credits, 0, 'the balance stays at zero');
  });

  it('an expired or used reset link says so and changes no password', async () => {
    await service.pages().signUp('reset@example.com', PASSWORD);
    const reset = await createPasswordReset(service.store.db, 'reset@example.com', clock.now());
    assert.ok(reset);
    const client = service.pages();
    const link = `/password-reset/confirm?token=${reset.token}`;
    const token = await client.csrf(link);
    clock.advance(RESET_LINK_VALIDITY_MS + 1);
    const page = await client.get(link);
    assert.equal(page.status, 400);
    assert.match(page.html, /expired or was already used/);
    const hashBefore = await service.store.db.selectFrom('accounts').select('password_hash').where('email', '=', 'reset@example.com').executeTakeFirstOrThrow();
    await refused(() => client.post('/password-reset/confirm', { _csrf: token, token: reset.token, password: 'a brand new password' }), 400, /expired or was already used; ask for a new one/);
    const hashAfter = await service.store.db.selectFrom('accounts').select('password_hash').where('email', '=', 'reset@example.com').executeTakeFirstOrThrow();
    assert.equal(hashAfter.password_hash, hashBefore.password_hash);
    assert.equal((await service.pages().logIn('reset@example.com', PASSWORD)).status, 303, 'the old password still works');
  });

  it('password reset answers the same for known and unknown emails', async () => {
    const known = await service.pages().submit('/password-reset', '/password-reset', { email: 'reset@example.com' });
    const unknown = await service.pages().submit('/password-reset', '/password-reset', { email: 'ghost@example.com' });
    assert.equal(known.status, 200);
    assert.equal(unknown.status, 200);
    const strip = (html: string, email: string) => html.replace(/value="[^"]*"/g, '').replaceAll(email, 'X');
    assert.equal(strip(known.html, 'reset@example.com'), strip(unknown.html, 'ghost@example.com'));
  });
});
