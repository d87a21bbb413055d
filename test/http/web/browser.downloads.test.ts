// The converter's downloads in a real browser (Debian's Chromium through playwright-core), at
// desktop width and at 375 px: convert on /try, download every format through its link, open
// each file (the PDF through pdftoppm, the PNG through sharp), then find the result and its
// downloads again on the dashboard after a reload, without a word or number cut across lines.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Download, Page } from 'playwright-core';
import sharp from 'sharp';
import { chromiumSkip, launchBrowser, NAME_SHIM, SCREENSHOTS, VIEWPORTS } from '../../helpers/browser.ts';
import { CORPUS } from '../../helpers/http.ts';
import { renderPdf } from '../../helpers/renderers.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { createSqliteDatabase } from '../../helpers/stores.ts';

const skip = chromiumSkip();
const IMAGE = 'logo/flat_shapes_transparency_300.png';
const BASE = 'flat_shapes_transparency_300';
const FORMATS = ['SVG', 'PDF', 'EPS', 'DXF', 'PNG'] as const;

/** Why the PDF cannot be opened here (no pdftoppm), or false; CI (REQUIRE_RENDERERS=1) requires it. */
function pdftoppmProblem(): string | false {
  try {
    execFileSync('pdftoppm', ['-v'], { stdio: 'ignore' });
    return false;
  } catch {
    const problem = 'pdftoppm not installed (Debian package poppler-utils)';
    if (process.env.REQUIRE_RENDERERS === '1') throw new Error(`${problem} (REQUIRE_RENDERERS=1)`);
    process.stderr.write(`# the downloaded PDF is checked by its header only: ${problem}\n`);
    return problem;
  }
}

/** The downloaded file opens as what it says it is. */
async function checkFile(format: (typeof FORMATS)[number], bytes: Buffer, canRenderPdf: boolean): Promise<void> {
  const head = bytes.toString('latin1', 0, 64);
  switch (format) {
    case 'SVG':
      assert.match(bytes.toString('utf8'), /^(<\?xml[^>]*>\s*)?<svg\b[^>]*viewBox="0 0 300 300"[\s\S]*<\/svg>\s*$/);
      break;
    case 'PDF': {
      assert.match(head, /^%PDF-/);
      if (canRenderPdf) {
        const page = await sharp(await renderPdf(bytes)).metadata();
        assert.equal(page.format, 'png');
        assert.ok((page.width ?? 0) > 100 && (page.height ?? 0) > 100, `${page.width} × ${page.height}`);
      }
      break;
    }
    case 'EPS':
      assert.match(head, /^%!PS-Adobe-3\.0 EPSF-3\.0/);
      break;
    case 'DXF':
      assert.match(head, /^\s*0\r?\nSECTION/);
      assert.match(bytes.toString('latin1'), /\n\s*0\r?\nEOF\s*$/);
      break;
    case 'PNG': {
      const meta = await sharp(bytes).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ['png', 300, 300]);
      break;
    }
  }
}

async function save(download: Download): Promise<Buffer> {
  assert.equal(await download.failure(), null);
  return readFileSync((await download.path()) as string);
}

/** Texts in the dashboard's conversions table that a line break cuts in two (none, at any width). */
function cutTexts(): string[] {
  const cut: string[] = [];
  const walker = document.createTreeWalker(document.querySelector('table.conversions') ?? document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent?.trim() ?? '';
    if (text === '') continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const lines = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
    if (lines.size > 1) cut.push(text);
  }
  return cut;
}

describe('converter downloads in Chromium', { skip }, () => {
  let browser: Browser;
  let service: TestService;
  let canRenderPdf = false;

  before(async () => {
    canRenderPdf = pdftoppmProblem() === false;
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
      let context: BrowserContext;
      let page: Page;
      const problems: string[] = [];

      before(async () => {
        // Signed up and confirmed through the test mailbox; the browser takes over the session.
        const client = service.pages();
        await client.signUp(`downloads-${viewport.name}@example.com`, 'long enough password');
        context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height }, acceptDownloads: true });
        await context.addInitScript({ content: NAME_SHIM });
        await context.addCookies([...client.cookies].map(([name, value]) => ({ name, value, url: service.url })));
        page = await context.newPage();
        page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
        page.on('console', (message) => {
          if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
        });
      });
      after(async () => {
        await context?.close();
      });

      it('converts on /try and downloads every format through its link', async () => {
        await page.goto(`${service.url}/try`);
        // Picking the file starts the conversion.
        await page.getByLabel('Image').setInputFiles(join(CORPUS, IMAGE));
        await page.getByText(/^Converted: \d+ nodes/).waitFor();
        const credits = await page.locator('#result-credits').textContent();
        assert.equal(credits, '9');
        const downloads = page.locator('#downloads');
        assert.ok(await downloads.isVisible());
        for (const format of FORMATS) {
          const link = downloads.getByRole('link', { name: `Download ${format}`, exact: true });
          await link.scrollIntoViewIfNeeded();
          const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
          assert.equal(download.suggestedFilename(), `${BASE}.${format.toLowerCase()}`);
          await checkFile(format, await save(download), canRenderPdf);
        }
        await page.screenshot({ path: join(SCREENSHOTS, `${viewport.name}-downloads-try.png`), fullPage: true });
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'the page does not scroll sideways');
        assert.deepEqual(problems.splice(0), [], 'no script error or CSP violation');
      });

      it('finds the result and its downloads on the dashboard after a reload, with no credit spent', async () => {
        await page.getByRole('link', { name: 'Dashboard' }).click();
        await page.waitForURL(/\/account$/);
        await page.reload();
        assert.equal(await page.locator('#credits').textContent(), '9', 'the downloads spent nothing');
        const row = page.getByRole('row', { name: new RegExp(`${BASE}\\.png`) });
        for (const format of FORMATS) {
          const link = row.getByRole('link', { name: `Download ${format} of ${BASE}.png` });
          await link.scrollIntoViewIfNeeded();
          const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
          assert.equal(download.suggestedFilename(), `${BASE}.${format.toLowerCase()}`);
          await checkFile(format, await save(download), canRenderPdf);
        }
        await page.screenshot({ path: join(SCREENSHOTS, `${viewport.name}-downloads-dashboard.png`), fullPage: true });
        assert.deepEqual(await page.evaluate(cutTexts), [], 'no word or number of the list is cut across lines');
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'only the table scrolls sideways, not the page');
        assert.equal(await page.locator('#credits').textContent(), '9');
        assert.deepEqual(problems.splice(0), [], 'no script error or CSP violation');
      });
    });
  }
});
