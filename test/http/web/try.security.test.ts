// The converter page (POST /try) as an attack on the upload slots: slow uploads from one
// account — banned, suspended, without credits, on a plan with limits or without — never leave
// another account's API conversion a 503. Status, limits and credits are checked before a slot
// is taken or a byte read, a declared Content-Length over the limit is refused before either,
// and one account holds at most its share of the slots.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount, type Account } from '../../../src/accounts/accounts.ts';
import { changeAccount } from '../../../src/accounts/admin.ts';
import { hashPassword } from '../../../src/accounts/passwords.ts';
import { corpusFile, postVectorize } from '../../helpers/http.ts';
import { csrfOf, PageClient } from '../../helpers/pages.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { createSqliteDatabase } from '../../helpers/stores.ts';
import { holdPageUpload, waitFor, type HeldPageUpload } from '../../helpers/upload.ts';

const PASSWORD = 'attacker password 1';
const PNG = corpusFile('logo/flat_shapes_transparency_300.png');
const SLOTS = 4;
const ATTACK = 8;

describe('slow converter uploads from one account never deny another account', () => {
  let service: TestService;
  let victimKey: string;
  let passwordHash: string;
  const held: HeldPageUpload[] = [];

  before(async () => {
    service = await startTestService(createSqliteDatabase(), {
      // The pace check is off so that the slow uploads are held as long as the test needs.
      env: { MAX_CONCURRENT_UPLOADS: String(SLOTS), UPLOAD_MIN_BYTES_PER_SECOND: '0' },
    });
    victimKey = await service.accountWithKey('victim@example.com', { plan: 'lifetime' });
    passwordHash = await hashPassword(PASSWORD);
  });
  after(async () => {
    for (const upload of held) upload.abort();
    await service.close();
    await service.database.drop();
  });

  async function uploadsInFlight(): Promise<number> {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    return Number(/^vectorize_uploads_in_flight (\d+)/m.exec(text)?.[1]);
  }

  /** An attacker logged in on the pages, with the converter's CSRF token. */
  async function attacker(email: string, plan = 'free', credits?: number): Promise<{ account: Account; cookie: string; csrf: string }> {
    const account = await createAccount(service.store.db, { email, plan, passwordHash, ...(credits === undefined ? {} : { credits }) });
    const client = new PageClient(service.url);
    assert.equal((await client.logIn(email, PASSWORD)).status, 303);
    return { account, cookie: client.cookieHeader(), csrf: csrfOf((await client.get('/try')).html) };
  }

  /** Eight slow uploads at once; returns them with the statuses of those answered within a second. */
  async function attack(who: { cookie: string; csrf: string }, options: { script?: boolean; declaredBytes?: number } = {}) {
    const uploads = Array.from({ length: ATTACK }, () => holdPageUpload(service.url, { ...who, image: PNG, ...options }));
    held.push(...uploads);
    const answered = await Promise.all(
      uploads.map((upload) => Promise.race([upload.response.then((r) => r.status), new Promise<'held'>((resolve) => setTimeout(() => resolve('held'), 1000))])),
    );
    return { uploads, answered };
  }

  async function victimConverts(): Promise<void> {
    const res = await postVectorize(service.url, victimKey, { image: PNG });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }

  function release(uploads: HeldPageUpload[]): Promise<void> {
    for (const upload of uploads) upload.abort();
    return waitFor(async () => (await uploadsInFlight()) === 0, 10_000, 'the slots to be given back');
  }

  it('a banned account: its session ends at its next request, and its uploads hold nothing', async () => {
    const who = await attacker('banned@example.com');
    // Banned behind the pages' back (as by the command line): the session must not outlive it.
    await changeAccount(service.store.db, 'test', who.account.id, { status: 'banned' });
    const { uploads, answered } = await attack(who);
    assert.deepEqual(answered, Array(ATTACK).fill(303), 'sent to the log-in page, before a byte is read');
    assert.equal(await uploadsInFlight(), 0);
    await victimConverts();
    await release(uploads);
  });

  it('a suspended account and one without credits are refused (403, 402) before a slot is taken', async () => {
    for (const [email, status, credits] of [
      ['suspended@example.com', 403, undefined],
      ['broke@example.com', 402, 0],
    ] as const) {
      const who = await attacker(email, 'free', credits);
      if (status === 403) await changeAccount(service.store.db, 'test', who.account.id, { status: 'suspended' });
      for (const script of [false, true]) {
        // A fresh burst window for each round.
        await new Promise((resolve) => setTimeout(resolve, 1100));
        const { uploads, answered } = await attack(who, { script });
        // The free plan's burst (2 a second) is checked before the credits, as on the API.
        const expected = answered.map((a) => (status === 402 && a === 429 ? 429 : status));
        assert.deepEqual(answered, expected, `${email}, ${script ? 'script' : 'form'}`);
        assert.ok(answered.includes(status));
        assert.equal(await uploadsInFlight(), 0);
        await victimConverts();
        await release(uploads);
      }
    }
  });

  it('an account on the free plan holds one upload (its concurrency); the rest get 429 before a slot', async () => {
    const who = await attacker('free@example.com');
    const { uploads, answered } = await attack(who);
    assert.equal(answered.filter((a) => a === 'held').length, 1, answered.join(' '));
    assert.equal(answered.filter((a) => a === 429).length, ATTACK - 1);
    assert.equal(await uploadsInFlight(), 1);
    await victimConverts();
    await release(uploads);
  });

  it('an account without a concurrency limit holds at most half the slots; the rest get 503 at once', async () => {
    const who = await attacker('lifetime@example.com', 'lifetime');
    for (const script of [false, true]) {
      const { uploads, answered } = await attack(who, { script });
      assert.equal(answered.filter((a) => a === 'held').length, SLOTS / 2, answered.join(' '));
      assert.equal(answered.filter((a) => a === 503).length, ATTACK - SLOTS / 2);
      assert.equal(await uploadsInFlight(), SLOTS / 2);
      await victimConverts();
      // The held ones still convert when their bytes arrive.
      const finished = await uploads.find((_, i) => answered[i] === 'held')!.finish();
      assert.equal(finished.status, 200, finished.text.slice(0, 200));
      await release(uploads);
    }
  });

  it('a declared Content-Length over the limit is refused (413) before a slot is taken or a byte read', async () => {
    const who = await attacker('large@example.com', 'lifetime');
    const { uploads, answered } = await attack(who, { declaredBytes: 20 * 1024 * 1024 });
    assert.deepEqual(answered, Array(ATTACK).fill(413));
    assert.equal(await uploadsInFlight(), 0);
    await victimConverts();
    await release(uploads);
  });
});
