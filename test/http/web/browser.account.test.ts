// Sign-up verification and account settings in a real browser (Debian's Chromium through
// playwright-core), at desktop width and at 375 px, with mail through a real SMTP server:
// the free credits come with the confirmed email, and a person changes the password, the email
// and deletes the account from the settings page.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { auditPage } from '../../helpers/a11y.ts';
import { chromiumSkip, launchBrowser, NAME_SHIM, SCREENSHOTS, VIEWPORTS } from '../../helpers/browser.ts';
import { CORPUS, corpusFile, postVectorize } from '../../helpers/http.ts';
import { freePort } from '../../helpers/process.ts';
import { smtpMailbox, startTestService, type TestService } from '../../helpers/service.ts';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp.ts';
import { createSqliteDatabase } from '../../helpers/stores.ts';

const skip = chromiumSkip();
const IMAGE = 'logo/flat_shapes_transparency_300.png';

describe('verification and account settings in Chromium', { skip }, () => {
  let browser: Browser;
  let service: TestService;
  let smtp: SmtpSink;

  before(async () => {
    smtp = await startSmtpSink();
    const port = await freePort();
    service = await startTestService(createSqliteDatabase(), {
      env: { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, SMTP_URL: smtp.url },
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    await service?.database.drop();
    await smtp?.close();
  });

  for (const viewport of VIEWPORTS) {
    describe(`at ${viewport.name} width (${viewport.width} px)`, () => {
      const email = `grace-${viewport.name}@example.com`;
      const password = 'compiler 1952 works';
      let context: BrowserContext;
      let page: Page;
      let shot = 0;
      const problems: string[] = [];
      const screenshot = (name: string) =>
        page.screenshot({ path: join(SCREENSHOTS, `account-${viewport.name}-${String(++shot).padStart(2, '0')}-${name}.png`), fullPage: true });
      const mailbox = () => smtpMailbox(smtp);

      async function newContext(): Promise<{ context: BrowserContext; page: Page }> {
        const created = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
        await created.addInitScript({ content: NAME_SHIM });
        const opened = await created.newPage();
        opened.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
        opened.on('console', (message) => {
          if (message.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) {
            problems.push(`console error: ${message.text()}`);
          }
        });
        return { context: created, page: opened };
      }

      async function logIn(on: Page, address: string, secret: string): Promise<void> {
        await on.goto(`${service.url}/login`);
        await on.getByLabel('Email').fill(address);
        await on.getByLabel('Password').fill(secret);
        await on.getByRole('button', { name: 'Log in' }).click();
      }

      before(async () => {
        ({ context, page } = await newContext());
      });
      afterEach(() => {
        assert.deepEqual(problems.splice(0), [], 'no script error or CSP violation');
      });
      after(async () => {
        await context?.close();
      });

      it('gives the free credits only once the email is confirmed', async () => {
        const since = smtp.mails.length;
        await page.goto(`${service.url}/signup`);
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password').fill(password);
        await page.getByRole('button', { name: 'Sign up' }).click();
        assert.ok(await page.getByRole('heading', { name: 'Check your email' }).isVisible());
        await mailbox().linkTo(email, '/email/confirm', since);

        // Logged in before confirming: no credits, and the converter says so.
        await logIn(page, email, password);
        await page.waitForURL(/\/account$/);
        assert.equal(await page.locator('#credits').textContent(), '0');
        assert.ok(await page.getByRole('heading', { name: 'Confirm your email' }).isVisible());
        await screenshot('unconfirmed');
        await page.getByRole('link', { name: 'Converter' }).click();
        // Loaded, with its script: picked before, the file starts nothing (a CI run waited 30 s for the message).
        await page.waitForURL(/\/try$/);
        // Picking the file starts the conversion.
        await page.getByLabel('Image').setInputFiles(join(CORPUS, IMAGE));
        await page.getByText(/No credits yet: open the link we mailed you/).waitFor();

        // The link again, from the dashboard; the newest one confirms.
        const again = smtp.mails.length;
        await page.getByRole('link', { name: 'Dashboard' }).click();
        await page.getByRole('button', { name: 'Send the link again' }).click();
        assert.ok(await page.getByText(`We sent a new link to ${email}`).isVisible());
        const link = await mailbox().linkTo(email, '/email/confirm', again);
        await page.goto(link);
        assert.ok(await page.getByRole('heading', { name: 'Your email is confirmed' }).isVisible());
        assert.ok(await page.getByText('10 free credits were added').isVisible());
        await screenshot('confirmed');
        await page.getByRole('link', { name: 'Go to your dashboard' }).click();
        assert.equal(await page.locator('#credits').textContent(), '10');
        assert.equal(await page.getByRole('heading', { name: 'Confirm your email' }).count(), 0);
        await page.getByRole('link', { name: 'Converter' }).click();
        // Loaded, with its script: picked before, the file starts nothing (a CI run waited 30 s for the message).
        await page.waitForURL(/\/try$/);
        // Picking the file starts the conversion.
        await page.getByLabel('Image').setInputFiles(join(CORPUS, IMAGE));
        await page.getByText(/^Converted: \d+ nodes/).waitFor();
        assert.equal(await page.locator('#result-credits').textContent(), '9');
      });

      it('changes the password on the settings page, which ends the other sessions', async () => {
        const other = await newContext();
        try {
          await logIn(other.page, email, password);
          await other.page.waitForURL(/\/account$/);
          await page.goto(`${service.url}/account`);
          await page.getByRole('link', { name: 'Account settings' }).click();
          assert.deepEqual(await page.evaluate(auditPage), { unlabelled: [], unnamedButtons: [], lowContrast: [], overflow: 0 });
          await screenshot('settings');
          const form = page.locator('form[action="/account/password"]');
          await form.getByLabel('Current password').fill('not my password at all');
          await form.getByLabel('New password').fill('a newer password 2');
          await form.getByRole('button', { name: 'Change password' }).click();
          assert.match((await page.getByRole('alert').textContent()) ?? '', /Current password: it is not the password of this account/);
          await page.locator('form[action="/account/password"]').getByLabel('Current password').fill(password);
          await page.locator('form[action="/account/password"]').getByLabel('New password').fill('a newer password 2');
          await page.locator('form[action="/account/password"]').getByRole('button', { name: 'Change password' }).click();
          assert.ok(await page.getByText('Your password is changed. Your other sessions have ended.').isVisible());
          await page.goto(`${service.url}/account`);
          assert.ok(await page.getByRole('heading', { name: 'Dashboard' }).isVisible(), 'this session stays');
          await other.page.goto(`${service.url}/account`);
          await other.page.waitForURL(/\/login/);
        } finally {
          await other.context.close();
        }
      });

      it('changes the email through a link mailed to the new address', async () => {
        const newEmail = `grace-new-${viewport.name}@example.com`;
        const since = smtp.mails.length;
        await page.goto(`${service.url}/account/settings`);
        const form = page.locator('form[action="/account/email"]');
        await form.getByLabel('New email').fill(newEmail);
        await form.getByLabel('Current password').fill('a newer password 2');
        await form.getByRole('button', { name: 'Change email' }).click();
        assert.ok(await page.getByText(`We sent a link to ${newEmail}`).isVisible());
        assert.match((await page.locator('main').textContent()) ?? '', new RegExp(`Logged in as ${email.replace('.', '\\.')}`), 'unchanged until the link is opened');
        const link = await mailbox().linkTo(newEmail, '/email/confirm', since);
        await page.goto(link);
        assert.ok(await page.getByRole('heading', { name: 'Your email is changed' }).isVisible());
        await screenshot('email-changed');
        await smtp.waitFor(email, since);
        assert.match(smtp.mails.slice(since).find((m) => m.to.includes(email))?.text ?? '', /now uses/, 'the old address is told');
        await page.getByRole('button', { name: 'Log out' }).click();
        await logIn(page, newEmail, 'a newer password 2');
        await page.waitForURL(/\/account$/);
        assert.ok(await page.getByText(`Logged in as ${newEmail}`).isVisible());
      });

      it('deletes the account: its keys stop, its log-in no longer works', async () => {
        const newEmail = `grace-new-${viewport.name}@example.com`;
        await page.getByRole('link', { name: 'API Keys' }).click();
        await page.getByLabel('Name').fill('to be deleted');
        await page.getByRole('button', { name: 'Create key' }).click();
        const key = await page.getByLabel('New API key').inputValue();
        service.logs.secrets.add(key);
        assert.equal((await postVectorize(service.url, key, { image: corpusFile(IMAGE) })).status, 200);

        await page.goto(`${service.url}/account/settings`);
        const form = page.locator('form[action="/account/delete"]');
        await form.getByLabel('Current password').fill('a newer password 2');
        await form.getByRole('button', { name: 'Delete account' }).click();
        assert.match((await page.getByRole('alert').textContent()) ?? '', /tick the box/);
        await page.locator('form[action="/account/delete"]').getByLabel('Yes, delete my account and its keys').check();
        await page.locator('form[action="/account/delete"]').getByLabel('Current password').fill('a newer password 2');
        await page.locator('form[action="/account/delete"]').getByRole('button', { name: 'Delete account' }).click();
        await page.waitForURL(/\/account\/deleted$/);
        assert.ok(await page.getByRole('heading', { name: 'Your account is deleted' }).isVisible());
        await screenshot('deleted');
        assert.ok(await page.getByRole('link', { name: 'Log in' }).first().isVisible(), 'logged out');
        assert.equal((await postVectorize(service.url, key, { image: corpusFile(IMAGE) })).status, 401);
        await logIn(page, newEmail, 'a newer password 2');
        assert.match((await page.getByRole('alert').textContent()) ?? '', /incorrect/);
      });
    });
  }
});
