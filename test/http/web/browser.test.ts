// The web application in a real browser (Debian's Chromium through playwright-core), driven by
// labels and button texts as a person would, at desktop width and at 375 px. One browser for
// the file; each width gets its own context (cookies) and accounts.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount, findAccountByEmail } from '../../../src/accounts/accounts.ts';
import { changeAccount } from '../../../src/accounts/admin.ts';
import { auditPage, focusRing } from '../../helpers/a11y.ts';
import { chromiumSkip, launchBrowser, NAME_SHIM, SCREENSHOTS, VIEWPORTS } from '../../helpers/browser.ts';
import { CORPUS, corpusFile, getResult, postVectorize } from '../../helpers/http.ts';
import { freePort } from '../../helpers/process.ts';
import { smtpMailbox, startTestService, type TestService } from '../../helpers/service.ts';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp.ts';
import { createSqliteDatabase } from '../../helpers/stores.ts';

const skip = chromiumSkip();
const IMAGE = 'logo/flat_shapes_transparency_300.png';
const DOCS_SCREENSHOT = fileURLToPath(new URL('../../../docs/dashboard.png', import.meta.url));

describe('the web application in Chromium', { skip }, () => {
  let browser: Browser;
  let service: TestService;
  let smtp: SmtpSink;

  before(async () => {
    rmSync(SCREENSHOTS, { recursive: true, force: true });
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
      const email = `ada-${viewport.name}@example.com`;
      const password = 'analytical engine 1843';
      let context: BrowserContext;
      let page: Page;
      let key = '';
      let shot = 0;
      const problems: string[] = [];
      const screenshot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${viewport.name}-${String(++shot).padStart(2, '0')}-${name}.png`), fullPage: true });

      before(async () => {
        context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height }, acceptDownloads: true });
        await context.addInitScript({ content: NAME_SHIM });
        page = await context.newPage();
        // Script errors and CSP violations are collected and checked after each flow. (A page
        // answered 4xx, as a refused form is, also logs a console error: that one is expected.)
        page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
        page.on('console', (message) => {
          if (message.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) {
            problems.push(`console error: ${message.text()}`);
          }
        });
      });
      afterEach(() => {
        assert.deepEqual(problems.splice(0), [], 'no script error or CSP violation');
      });
      after(async () => {
        await context?.close();
      });

      it('signs up from the landing page, confirms the email through the mailed link, and lands on the dashboard', async () => {
        await page.goto(service.url);
        assert.ok(await page.getByRole('heading', { name: 'Plans' }).isVisible());
        for (const plan of ['Free', 'Pro', 'Team', 'Lifetime']) assert.ok(await page.getByRole('rowheader', { name: plan }).isVisible(), plan);
        await screenshot('landing');
        const since = smtp.mails.length;
        await page.getByRole('link', { name: 'Sign up' }).first().click();
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password').fill(password);
        await page.getByRole('button', { name: 'Sign up' }).click();
        assert.ok(await page.getByRole('heading', { name: 'Check your email' }).isVisible());
        await screenshot('signed-up');
        const link = await smtpMailbox(smtp).linkTo(email, '/email/confirm', since);
        await page.goto(link);
        assert.ok(await page.getByText('10 free credits were added').isVisible());
        await page.getByRole('link', { name: 'Log in' }).last().click();
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password').fill(password);
        await page.getByRole('button', { name: 'Log in' }).click();
        await page.waitForURL(/\/account$/);
        assert.equal(await page.locator('#credits').textContent(), '10');
      });

      it('creates a key on the API Keys page and uses it with fetch against the API', async () => {
        await page.getByRole('link', { name: 'API Keys' }).click();
        await page.getByLabel('Name').fill('laptop');
        await page.getByRole('button', { name: 'Create key' }).click();
        key = await page.getByLabel('New API key').inputValue();
        assert.match(key, /^vk_[A-Za-z0-9]{43}$/);
        service.logs.secrets.add(key);
        await screenshot('key-created');
        const res = await postVectorize(service.url, key, { image: corpusFile(IMAGE), filename: 'from-fetch.png' });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.credits_remaining, 9);
        // Shown once: the page, loaded again, lists the key by its prefix only.
        await page.goto(`${service.url}/account/keys`);
        assert.ok(!(await page.content()).includes(key));
        assert.ok(await page.getByRole('cell', { name: key.slice(0, 11) }).isVisible());
      });

      it('shows the conversion and the balance on the dashboard', async () => {
        await page.getByRole('link', { name: 'Dashboard' }).click();
        assert.equal(await page.locator('#credits').textContent(), '9');
        assert.match((await page.locator('#today').textContent()) ?? '', /^1 of 5 conversions/);
        assert.ok(await page.getByRole('cell', { name: 'from-fetch.png' }).isVisible());
        assert.ok(await page.getByRole('img', { name: /Conversions per day over the last 30 days: 1 in all/ }).isVisible());
        await screenshot('dashboard');
        if (viewport.name === 'desktop' && process.env.UPDATE_DOCS_SCREENSHOT === '1') await page.screenshot({ path: DOCS_SCREENSHOT, fullPage: true });
      });

      it('converts on /try as soon as the file is picked, previews side by side, zooms to 400 %, and downloads an SVG', async () => {
        await page.getByRole('link', { name: 'Converter' }).click();
        await page.waitForURL(/\/try$/);
        // Picking the file is enough: the conversion starts at once.
        await page.getByLabel('Image').setInputFiles(join(CORPUS, IMAGE));
        await page.getByText(/^Converted: \d+ nodes/).waitFor();
        assert.equal(await page.locator('#result-credits').textContent(), '8');
        const nodes = Number(await page.locator('#result-nodes').textContent());
        assert.ok(nodes > 0);
        for (const name of ['The original image', 'The SVG made of it']) {
          await page.waitForFunction((alt) => (document.querySelector(`img[alt="${alt}"]`) as HTMLImageElement | null)?.naturalWidth ?? 0 > 0, name);
        }
        await page.getByRole('button', { name: 'Actual size' }).click();
        await page.getByRole('button', { name: 'Zoom in' }).click();
        await page.getByRole('button', { name: 'Zoom in' }).click();
        assert.equal(await page.locator('#zoom-value').textContent(), '400 %');
        const widths = await page.$$eval('.pane img', (images) => images.map((image) => (image as HTMLImageElement).getBoundingClientRect().width));
        assert.deepEqual(widths, [1200, 1200], 'both at 400 % of 300 px');
        await screenshot('converted');
        const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#downloads').getByRole('link', { name: 'Download SVG' }).click()]);
        assert.equal(download.suggestedFilename(), 'flat_shapes_transparency_300.svg');
        const svg = readFileSync((await download.path()) as string, 'utf8');
        assert.match(svg, /^(<\?xml[^>]*>\s*)?<svg\b[^>]*viewBox="0 0 300 300"/);
        assert.match(svg, /<\/svg>\s*$/);

        // The conversion is the account's like any other: on the dashboard and in the API.
        await page.getByRole('link', { name: 'Dashboard' }).click();
        assert.equal(await page.locator('#credits').textContent(), '8');
        const row = page.getByRole('row', { name: /flat_shapes_transparency_300\.png/ });
        const id = (await row.locator('code').textContent()) ?? '';
        const meta = await getResult(service.url, key, id);
        assert.equal(meta.status, 200, JSON.stringify(meta.body));
        assert.equal(meta.body.original_name, 'flat_shapes_transparency_300.png');
        assert.equal(meta.body.node_count, nodes);
      });

      it('revokes the key after a confirmation, and the API then answers 401', async () => {
        await page.getByRole('link', { name: 'API Keys' }).click();
        await page.getByRole('button', { name: 'Revoke' }).click();
        assert.ok(await page.getByRole('heading', { name: 'Revoke this key?' }).isVisible());
        await screenshot('revoke-confirm');
        await page.getByRole('button', { name: 'Yes, revoke key' }).click();
        assert.ok(await page.getByText(`The key ${key.slice(0, 11)} is revoked.`).isVisible());
        const res = await postVectorize(service.url, key, { image: corpusFile(IMAGE) });
        assert.equal(res.status, 401);
        assert.equal(res.headers.get('www-authenticate'), 'Bearer');
      });

      it('logs out, and the account pages ask to log in again', async () => {
        await page.getByRole('button', { name: 'Log out' }).click();
        await page.waitForURL(`${service.url}/`);
        assert.ok(await page.getByRole('link', { name: 'Log in' }).isVisible());
        await page.goto(`${service.url}/account`);
        await page.waitForURL(/\/login\?next=%2Faccount/);
        await screenshot('logged-out');
      });

      it('resets the password through a real SMTP server, following the link in the mail', async () => {
        const since = smtp.mails.length;
        await page.getByRole('link', { name: 'Forgot your password?' }).click();
        await page.getByLabel('Email').fill(email);
        await page.getByRole('button', { name: 'Send reset link' }).click();
        assert.ok(await page.getByRole('heading', { name: 'Check your email' }).isVisible());
        const mail = await smtp.waitFor(email, since);
        const link = /http:\/\/127\.0\.0\.1:\d+\/password-reset\/confirm\?token=[\w-]+/.exec(mail.text)?.[0];
        assert.ok(link, mail.text);
        await page.goto(link);
        const newPassword = 'difference engine 1822';
        await page.getByLabel('New password').fill(newPassword);
        await page.getByRole('button', { name: 'Set new password' }).click();
        await page.getByText('Your password was changed').waitFor();
        // The link works once.
        await page.goto(link);
        assert.ok(await page.getByText('This reset link has expired or was already used').isVisible());
        await page.goto(`${service.url}/login`);
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password').fill(password);
        await page.getByRole('button', { name: 'Log in' }).click();
        assert.match((await page.getByRole('alert').textContent()) ?? '', /incorrect/);
        await page.getByLabel('Password').fill(newPassword);
        await page.getByRole('button', { name: 'Log in' }).click();
        await page.waitForURL(/\/account$/);
        await screenshot('password-reset');
      });

      it('admin: changes a plan and adds a pack, then sees both in the ledger', async () => {
        const admin = await findAccountByEmail(service.store.db, email);
        await changeAccount(service.store.db, 'the command line', admin!.id, { role: 'admin' });
        const customer = `customer-${viewport.name}@example.com`;
        await createAccount(service.store.db, { email: customer });
        await page.reload();
        await page.getByRole('link', { name: 'Admin' }).click();
        await page.getByLabel('Email').fill('customer-');
        await page.getByRole('button', { name: 'Find accounts' }).click();
        await page.getByRole('link', { name: customer }).click();
        await page.getByLabel('Plan').selectOption('pro');
        await page.getByRole('button', { name: 'Change plan' }).click();
        assert.ok(await page.getByText('Plan changed to pro.').isVisible());
        await page.getByLabel('Credit pack').selectOption('200');
        await page.getByRole('button', { name: 'Add pack' }).click();
        assert.equal(await page.locator('#account-credits').textContent(), '210');
        const ledger = page.locator('#ledger');
        assert.ok(await ledger.getByRole('row', { name: new RegExp(`plan free → pro.*${email}`) }).isVisible());
        assert.ok(await ledger.getByRole('row', { name: new RegExp(`\\+200 credits.*credit pack of 200, added by ${email}`) }).isVisible());
        await screenshot('admin-ledger');
        const changed = await findAccountByEmail(service.store.db, customer);
        assert.equal(changed?.plan.name, 'pro');
        assert.equal(changed?.credits, 210);
      });

      it('has labelled fields, named buttons, AA contrast, visible focus and no sideways scrolling on every page', async () => {
        const customer = await findAccountByEmail(service.store.db, `customer-${viewport.name}@example.com`);
        const signedIn = ['/', '/account', '/account/keys', '/account/settings', '/try', '/admin', `/admin/accounts/${customer!.id}`, '/admin/plans/free'];
        const anonymous = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
        await anonymous.addInitScript({ content: NAME_SHIM });
        const visitor = await anonymous.newPage();
        try {
          for (const [tab, paths] of [[page, signedIn], [visitor, ['/', '/login', '/signup', '/password-reset']]] as const) {
            for (const path of paths) {
              await tab.goto(`${service.url}${path}`);
              const report = await tab.evaluate(auditPage);
              assert.deepEqual(report, { unlabelled: [], unnamedButtons: [], lowContrast: [], overflow: 0 }, path);
              // Every stop of the Tab key shows a focus ring.
              for (let i = 0; i < 12; i++) {
                await tab.keyboard.press('Tab');
                const ring = await tab.evaluate(focusRing);
                if (ring) assert.notEqual(ring.outline, 'none', `${path}: ${ring.tag} has no visible focus`);
              }
            }
          }
          // Usable by keyboard alone: log in with Tab, typing and Enter.
          await visitor.goto(`${service.url}/login`);
          for (let i = 0; i < 20 && (await visitor.evaluate(() => document.activeElement?.id)) !== 'email'; i++) await visitor.keyboard.press('Tab');
          await visitor.keyboard.type(email);
          await visitor.keyboard.press('Tab');
          await visitor.keyboard.type('difference engine 1822');
          await visitor.keyboard.press('Enter');
          await visitor.waitForURL(/\/account$/);
        } finally {
          await anonymous.close();
        }
      });
    });
  }
});
