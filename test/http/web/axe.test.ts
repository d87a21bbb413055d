// axe-core on every page, at desktop width and at 375 px: no serious or critical violation of
// WCAG 2.1 A/AA (and axe's best practices), signed out, signed in, as an admin, before and
// after a conversion, on the error pages and on the API reference. And on each, no table
// breaks a word or a number across lines (a phone scrolls the table instead).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { findAccountByEmail } from '../../../src/accounts/accounts.ts';
import { changeAccount } from '../../../src/accounts/admin.ts';
import { seriousViolations } from '../../helpers/axe.ts';
import { chromiumSkip, launchBrowser, NAME_SHIM, VIEWPORTS } from '../../helpers/browser.ts';
import { CORPUS } from '../../helpers/http.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { createSqliteDatabase } from '../../helpers/stores.ts';

const skip = chromiumSkip();
const PASSWORD = 'accessible pages 2026';
const IMAGE = `${CORPUS}/logo/flat_shapes_transparency_300.png`;

/** Words (and numbers) in table cells laid out on more than one line. Runs in the page. */
function brokenWordsInTables(): string[] {
  const broken: string[] = [];
  for (const cell of document.querySelectorAll('td, th')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of (node.textContent ?? '').matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(word[0]);
      }
    }
  }
  return broken;
}

describe('axe-core on every page', { skip }, () => {
  let browser: Browser;
  let service: TestService;

  before(async () => {
    service = await startTestService(createSqliteDatabase());
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    await service?.database.drop();
  });

  for (const viewport of VIEWPORTS) {
    describe(`at ${viewport.name} width (${viewport.width} px)`, () => {
      const email = `axe-${viewport.name}@example.com`;
      let context: BrowserContext;
      let page: Page;

      async function check(name: string): Promise<void> {
        await page.waitForLoadState('load');
        const violations = await seriousViolations(page);
        assert.deepEqual(
          violations.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.targets.join(', ')})`),
          [],
          `${name} (${page.url()})`,
        );
        assert.deepEqual(await page.evaluate(brokenWordsInTables), [], `${name}: a word or number in a table is broken across lines`);
      }

      async function visit(path: string): Promise<void> {
        const response = await page.goto(`${service.url}${path}`);
        assert.ok(response, path);
        // The API reference draws its operations with a script after the load.
        if (path.startsWith('/docs')) await page.locator('.opblock').first().waitFor();
        await check(path);
      }

      before(async () => {
        context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
        await context.addInitScript({ content: NAME_SHIM });
        page = await context.newPage();
      });
      after(async () => {
        await context?.close();
      });

      it('the pages a visitor sees', async () => {
        for (const path of ['/', '/signup', '/login', '/password-reset', '/password-reset/confirm?token=expired', '/no/such/page', '/docs/']) {
          await visit(path);
        }
        await page.goto(`${service.url}/signup`);
        await page.getByLabel('Email').fill(`visitor-${email}`);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: /sign up/i }).click();
        await check('after sign-up');
      });

      it('the pages of a signed-in account, the converter before and after a conversion', async () => {
        const since = service.mailbox.mark();
        await service.pages().submit('/signup', '/signup', { email, password: PASSWORD });
        const link = await service.mailbox.linkTo(email, '/email/confirm', since);
        await page.goto(link.replace(/^https?:\/\/[^/]+/, service.url));
        await check('email confirmed');
        await page.goto(`${service.url}/login`);
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Log in' }).click();
        await page.waitForURL(/\/account/);
        for (const path of ['/account', '/account/settings', '/account/billing', '/try']) await visit(path);

        await page.locator('input[type=file]').first().setInputFiles(IMAGE);
        const form = page.locator('#convert-form');
        if (await page.locator('#result').isHidden()) await form.evaluate((f: HTMLFormElement) => f.requestSubmit());
        await page.locator('#result').waitFor({ state: 'visible', timeout: 60_000 });
        await page.locator('#preview-svg').waitFor({ state: 'visible' });
        await check('/try with a result');
        await visit('/account');

        await visit('/account/keys');
        await page.getByLabel('Name').fill('laptop');
        await page.getByRole('button', { name: 'Create key' }).click();
        await check('a new key');
        await page.getByRole('button', { name: 'Revoke' }).first().click();
        await check('revoke confirmation');
        await page.getByRole('button', { name: 'Yes, revoke key' }).click();
        await check('after revoking');
      });

      it('the admin pages', async () => {
        const account = await findAccountByEmail(service.store.db, email);
        assert.ok(account);
        await changeAccount(service.store.db, 'test', account.id, { role: 'admin' });
        for (const path of ['/admin', `/admin?q=${encodeURIComponent('axe-')}`, `/admin/accounts/${account.id}`, '/admin/plans/free', '/admin/prices/pack_50']) {
          await visit(path);
        }
      });
    });
  }
});
