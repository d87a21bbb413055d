// The pages' attempt throttle as an attacker meets it, on both limits backends (in process, and
// Redis shared by nodes): concurrent log-ins cannot race past it, failures from other addresses
// do not lock the owner out, and password-reset requests neither count as failed log-ins nor
// flood an inbox. Client addresses come from X-Forwarded-For behind TRUST_PROXY.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '../../../src/accounts/accounts.ts';
import { hashPassword } from '../../../src/accounts/passwords.ts';
import { LOGIN_PER_EMAIL, LOGIN_PER_EMAIL_AND_ADDRESS } from '../../../src/http/web/throttle.ts';
import { csrfOf, errorOf, fromAddress, PageClient } from '../../helpers/pages.ts';
import { startTestService, testClock, type TestService } from '../../helpers/service.ts';
import { limitsBackends } from '../../helpers/stores.ts';

const PASSWORD = 'the owner knows this one';

for (const backend of await limitsBackends()) {
  describe(`the log-in throttle (${backend.name} limits)`, { skip: backend.skip }, () => {
    const clock = testClock(Date.UTC(2026, 10, 21, 10, 0, 0, 0));
    let service: TestService;
    let passwordHash: string;

    before(async () => {
      service = await startTestService(await backend.createDatabase(), { now: clock.now, env: { ...backend.env(), TRUST_PROXY: '127.0.0.1' } });
      passwordHash = await hashPassword(PASSWORD);
    });
    after(async () => {
      await service.close();
      await service.database.drop();
      await backend.cleanup();
    });

    const owner = (email: string) => createAccount(service.store.db, { email, passwordHash });
    const client = (address: string) => fromAddress(new PageClient(service.url, service.mailbox), address);

    it('checks no more than the limit of 40 concurrent log-ins for one email, 39 wrong and the right one', async () => {
      await owner('raced@example.com');
      const attacker = client('10.9.0.1');
      const token = await attacker.csrf('/login');
      const passwords = Array.from({ length: 40 }, (_, i) => (i === 20 ? PASSWORD : `wrong password ${i}`));
      const answers = await Promise.all(passwords.map((password) => attacker.post('/login', { _csrf: token, email: 'raced@example.com', password })));
      const statuses = answers.map((a) => a.status);
      const checked = statuses.filter((status) => status !== 429).length;
      // Each attempt is counted before its password is checked: from the third failure on, the
      // next must wait, so at most three of the forty were checked (the limit is ten).
      assert.ok(checked <= LOGIN_PER_EMAIL_AND_ADDRESS.delay.after, `checked ${checked}: ${statuses.join(' ')}`);
      assert.ok(checked >= 1);
      assert.deepEqual(
        statuses.filter((status) => ![400, 303, 429].includes(status)),
        [],
      );
      const rightOne = answers[20]!;
      if (rightOne.status === 303) assert.ok(checked <= LOGIN_PER_EMAIL_AND_ADDRESS.delay.after, 'the right one got in only among the first checked');
      else assert.equal(rightOne.status, 429, 'the right password is refused like the others past the limit');
      assert.ok(answers.filter((a) => a.status === 429).every((a) => Number(a.headers.get('retry-after')) >= 1));

      // From 40 addresses at once, the email's own rule checks at most its free 20.
      const spread = await Promise.all(
        passwords.map(async (password, i) => {
          const one = client(`10.9.1.${i + 1}`);
          return (await one.post('/login', { _csrf: await one.csrf('/login'), email: 'raced@example.com', password: `${password}!` })).status;
        }),
      );
      assert.ok(spread.filter((status) => status !== 429).length <= LOGIN_PER_EMAIL.delay.after + 1, spread.join(' '));
    });

    it('slows one address with growing delays, stops it at 10 failures, and lets the owner in from another address at once', async () => {
      await owner('slowed@example.com');
      const attacker = client('10.9.2.1');
      const failed = async () => (await attacker.logIn('slowed@example.com', 'not the password')).status;
      for (let i = 0; i < 3; i++) assert.equal(await failed(), 400, `failure ${i + 1}`);
      let elapsed = 0;
      for (let n = 3; n < 10; n++) {
        const early = await attacker.logIn('slowed@example.com', PASSWORD);
        assert.equal(early.status, 429, `attempt ${n + 1} too early, even with the right password`);
        const wait = Math.min(60, 2 ** (n - 3));
        assert.equal(early.headers.get('retry-after'), String(wait));
        assert.match(errorOf(early.html) ?? '', new RegExp(`Too many failed attempts: wait ${wait} second`));
        clock.advance(wait * 1000);
        elapsed += wait;
        assert.equal(await failed(), 400, `failure ${n + 1} after waiting ${wait} s`);
      }
      const locked = await attacker.logIn('slowed@example.com', PASSWORD);
      assert.equal(locked.status, 429);
      assert.equal(locked.headers.get('retry-after'), String(15 * 60 - elapsed), 'until the first failure leaves the 15-minute window');
      assert.equal((await attacker.logIn('someone-else@example.com', 'a guess at it')).status, 429, 'the address is stopped for every email');
      assert.equal((await client('10.9.2.2').logIn('slowed@example.com', PASSWORD)).status, 303, 'the owner, elsewhere, gets in at once');
    });

    it('lets failures from other addresses leave the owner alone; under a wide attack, the browser that logged in before still gets in', async () => {
      await owner('victim@example.com');
      for (let i = 1; i <= 10; i++) assert.equal((await client(`10.9.3.${i}`).logIn('victim@example.com', `guess ${i} of many`)).status, 400);
      const ownBrowser = client('10.9.4.1');
      assert.equal((await ownBrowser.logIn('victim@example.com', PASSWORD)).status, 303, 'ten failures elsewhere: the owner gets in from a new address');
      assert.equal((await ownBrowser.submit('/account', '/logout', {})).status, 303);

      // Many more, from many addresses: past 20 in the window the email's attempts are spaced out…
      let refused: Awaited<ReturnType<PageClient['logIn']>> | undefined;
      for (let i = 11; i <= 40 && !refused; i++) {
        const res = await client(`10.9.3.${i}`).logIn('victim@example.com', `guess ${i} of many`);
        if (res.status === 429) refused = res;
        else assert.equal(res.status, 400);
      }
      assert.ok(refused, 'the email is slowed down');
      assert.equal((await client('10.9.5.1').logIn('victim@example.com', PASSWORD)).status, 429, 'a browser never seen waits too');
      // …but the owner's browser (its device cookie from the log-in above) is not held up.
      ownBrowser.headers['x-forwarded-for'] = '10.9.4.2';
      assert.equal((await ownBrowser.logIn('victim@example.com', PASSWORD)).status, 303);
      clock.advance(LOGIN_PER_EMAIL.windowMs);
    });

    it('counts password-reset requests apart from log-ins, and mails one address at most 3 links an hour', async () => {
      await owner('inbox@example.com');
      const attacker = client('10.9.6.1');
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push((await attacker.submit('/password-reset', '/password-reset', { email: 'inbox@example.com' })).status);
      assert.deepEqual(statuses, [200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
      const capped = await client('10.9.6.2').submit('/password-reset', '/password-reset', { email: 'inbox@example.com' });
      assert.equal(capped.status, 429, 'the cap is per inbox, from any address');
      assert.match(errorOf(capped.html) ?? '', /Enough links were mailed to this address for now: use the latest one: wait 1 hour \(3600 seconds\)/);
      const unknown = await client('10.9.6.3').submit('/password-reset', '/password-reset', { email: 'nobody-here@example.com' });
      assert.equal(unknown.status, 200, 'an unknown email is counted the same way');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const mails = service.logs.lines.filter((line) => line.includes('"to":"inbox@example.com"') && line.includes('Set a new Vectorize password'));
      assert.equal(mails.length, 3, 'three mails in the inbox, not ten');
      // Ten requests locked no one out: the owner logs in from the attacker's own address.
      assert.equal((await client('10.9.6.1').logIn('inbox@example.com', PASSWORD)).status, 303);
      // An address asking for links for many inboxes is stopped at 10 in 15 minutes.
      const sprayer = client('10.9.7.1');
      const sprayed: number[] = [];
      for (let i = 0; i < 11; i++) sprayed.push((await sprayer.submit('/password-reset', '/password-reset', { email: `user${i}@example.com` })).status);
      assert.deepEqual(sprayed, [...Array(10).fill(200), 429]);
      const page = await sprayer.get('/password-reset');
      const refusal = await sprayer.post('/password-reset', { _csrf: csrfOf(page.html), email: 'user99@example.com' });
      assert.match(errorOf(refusal.html) ?? '', /Too many password-reset requests/);
      // The operator sees the throttles' refusals by kind.
      const metrics = await (await fetch(`${service.url}/metrics`)).text();
      for (const kind of ['mails', 'resets']) assert.match(metrics, new RegExp(`^vectorize_limit_refusals_total\\{kind="${kind}"\\} [1-9]`, 'm'), kind);
    });
  });
}
