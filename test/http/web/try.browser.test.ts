// The converter that feels instant, in Chromium at 1280 and 375 px: a picture dropped or pasted
// anywhere converts at once, the original and a progress bar show while it runs, and the two
// views zoom about the pointer, pan together, fit, and compare with a slider. The home page's
// samples convert with one click, and a picture dropped there converts on /try. axe-core finds
// no serious or critical violation on / and /try after a conversion.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { findAccountByEmail } from '../../../src/accounts/accounts.ts';
import { grantCredits } from '../../../src/accounts/admin.ts';
import { auditPage } from '../../helpers/a11y.ts';
import { seriousViolations } from '../../helpers/axe.ts';
import { chromiumSkip, launchBrowser, NAME_SHIM, VIEWPORTS } from '../../helpers/browser.ts';
import { corpusFile } from '../../helpers/http.ts';
import { liftFreeLimits, startTestService, type TestService } from '../../helpers/service.ts';
import { createSqliteDatabase } from '../../helpers/stores.ts';

const skip = chromiumSkip();
const IMAGE = corpusFile('logo/flat_shapes_transparency_300.png').toString('base64');

interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Hands a PNG to the page as a drop (or a paste) on the document. */
function dispatchImage(page: Page, how: 'drop' | 'paste', name: string): Promise<void> {
  return page.evaluate(
    ([base64, how, name]) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], name, { type: 'image/png' }));
      const event =
        how === 'drop'
          ? new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true })
          : new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true });
      document.body.dispatchEvent(event);
    },
    [IMAGE, how, name] as const,
  );
}

/** Notes, as it happens, whether the progress bar and the original showed before the SVG. */
function watchConversion(page: Page): Promise<void> {
  return page.evaluate(() => {
    const seen = { progress: false, originalFirst: false };
    (window as unknown as { seen: typeof seen }).seen = seen;
    const box = document.getElementById('progress-box') as HTMLElement;
    const original = document.getElementById('preview-original') as HTMLImageElement;
    const vector = document.getElementById('preview-svg') as HTMLImageElement;
    new MutationObserver(() => {
      if (!box.hidden) seen.progress = true;
      if (original.getAttribute('src') && !vector.getAttribute('src')) seen.originalFirst = true;
    }).observe(document.body, { attributes: true, subtree: true, attributeFilter: ['hidden', 'src'] });
  });
}

const seenOf = (page: Page) => page.evaluate(() => (window as unknown as { seen: { progress: boolean; originalFirst: boolean } }).seen);

async function converted(page: Page): Promise<void> {
  await page
    .getByText(/^Converted: \d+ nodes/)
    .waitFor({ timeout: 60_000 })
    .catch(async (error: unknown) => {
      throw new Error(`not converted; the page says ${JSON.stringify(await page.locator('#convert-status').textContent())}`, { cause: error });
    });
  await page.waitForFunction(() => ((document.getElementById('preview-svg') as HTMLImageElement | null)?.naturalWidth ?? 0) > 0);
}

const boxes = (page: Page) =>
  page.evaluate(() => {
    const box = (el: Element): Box => {
      const r = el.getBoundingClientRect();
      return { left: r.left, top: r.top, width: r.width, height: r.height };
    };
    const panes = ['pane-original', 'pane-svg'].map((id) => box(document.getElementById(id) as HTMLElement));
    const images = ['preview-original', 'preview-svg'].map((id) => box(document.getElementById(id) as HTMLElement));
    return { panes, images, zoom: document.getElementById('zoom-value')?.textContent ?? '' };
  });

/** Each image's place inside its own pane: the two must always agree. */
function assertSamePlace(b: Awaited<ReturnType<typeof boxes>>): void {
  const [po, ps] = b.panes as [Box, Box];
  const [io, is] = b.images as [Box, Box];
  assert.ok(Math.abs(io.left - po.left - (is.left - ps.left)) < 0.5, 'same x in both views');
  assert.ok(Math.abs(io.top - po.top - (is.top - ps.top)) < 0.5, 'same y in both views');
  assert.ok(Math.abs(io.width - is.width) < 0.5 && Math.abs(io.height - is.height) < 0.5, 'same zoom in both views');
}

describe('the converter in Chromium: drop, paste, compare, samples', { skip }, () => {
  let browser: Browser;
  let service: TestService;

  before(async () => {
    service = await startTestService(createSqliteDatabase());
    await liftFreeLimits(service);
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
        const email = `lovelace-${viewport.name}@example.com`;
        const client = service.pages();
        await client.signUp(email, 'notes on the engine 1843');
        const account = await findAccountByEmail(service.store.db, email);
        await grantCredits(service.store.db, 'the test', account!.id, { amount: 100 });
        context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
        await context.addInitScript({ content: NAME_SHIM });
        await context.addCookies([...client.cookies].map(([name, value]) => ({ name, value, url: service.url })));
        page = await context.newPage();
        page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
        page.on('console', (message) => {
          if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
        });
      });
      afterEach(() => {
        assert.deepEqual(problems.splice(0), [], 'no script error or CSP violation');
      });
      after(async () => {
        await context?.close();
      });

      it('converts a picture dropped on the page at once, showing the original and the progress while it runs', async () => {
        await page.goto(`${service.url}/try`);
        await watchConversion(page);
        await dispatchImage(page, 'drop', 'dropped.png');
        await converted(page);
        assert.deepEqual(await seenOf(page), { progress: true, originalFirst: true });
        assert.equal(await page.locator('#result-credits').textContent(), '109');
        const fidelity = Number(await page.locator('#result-fidelity').textContent());
        assert.ok(fidelity > 0.5 && fidelity <= 1, `fidelity shown: ${fidelity}`);
        assert.ok(await page.locator('#progress-box').isHidden(), 'the progress bar goes when done');
        assert.ok(await page.locator('#downloads').getByRole('link', { name: 'Download SVG' }).isVisible(), 'the downloads show');
        // Fitted: the whole picture in view.
        const b = await boxes(page);
        assertSamePlace(b);
        const [pane, image] = [b.panes[1] as Box, b.images[1] as Box];
        assert.ok(image.left >= pane.left - 0.5 && image.top >= pane.top - 0.5, JSON.stringify(b));
        assert.ok(image.left + image.width <= pane.left + pane.width + 0.5 && image.top + image.height <= pane.top + pane.height + 0.5);
      });

      it('converts a pasted picture at once', async () => {
        await page.goto(`${service.url}/try`);
        await dispatchImage(page, 'paste', 'pasted.png');
        await converted(page);
        assert.equal(await page.locator('#result-credits').textContent(), '108');
      });

      it('zooms with the wheel about the pointer: the point under it stays put, in both views', async () => {
        await page.locator('#compare').scrollIntoViewIfNeeded();
        const b = await boxes(page);
        const pane = b.panes[1] as Box;
        const image = b.images[1] as Box;
        // Whole pixels: the browser puts mouse events there.
        const at = { x: Math.round(pane.left + pane.width * 0.37), y: Math.round(pane.top + pane.height * 0.41) };
        // The picture's point (in its own pixels) under the pointer.
        const point = { x: ((at.x - image.left) / image.width) * 300, y: ((at.y - image.top) / image.height) * 300 };
        await page.mouse.move(at.x, at.y);
        for (let i = 0; i < 3; i++) await page.mouse.wheel(0, -200);
        await page.waitForFunction(() => parseInt(document.getElementById('zoom-value')?.textContent ?? '', 10) > 300);
        const z = await boxes(page);
        assertSamePlace(z);
        const zoomed = z.images[1] as Box;
        assert.ok(zoomed.width > image.width * 1.5, `zoomed in: ${z.zoom}`);
        const now = { x: zoomed.left + (point.x / 300) * zoomed.width, y: zoomed.top + (point.y / 300) * zoomed.height };
        assert.ok(Math.abs(now.x - at.x) <= 2 && Math.abs(now.y - at.y) <= 2, `${JSON.stringify(now)} stays at ${JSON.stringify(at)}`);
      });

      it('zooms with the keys and the buttons up to 800 %, pans with the arrows, and fits with 0', async () => {
        await page.locator('#pane-svg').focus();
        await page.keyboard.press('1');
        assert.equal(await page.locator('#zoom-value').textContent(), '100 %');
        await page.keyboard.press('+');
        assert.equal(await page.locator('#zoom-value').textContent(), '125 %');
        await page.keyboard.press('-');
        assert.equal(await page.locator('#zoom-value').textContent(), '100 %');
        const before = await boxes(page);
        await page.keyboard.press('ArrowRight');
        const moved = await boxes(page);
        assertSamePlace(moved);
        assert.ok(Math.abs((moved.images[1] as Box).left - ((before.images[1] as Box).left - 40)) < 0.5, 'the arrow moves the view');
        await page.getByRole('button', { name: 'Actual size' }).click();
        for (let i = 0; i < 3; i++) await page.getByRole('button', { name: 'Zoom in' }).click();
        assert.equal(await page.locator('#zoom-value').textContent(), '800 %');
        const big = await boxes(page);
        assertSamePlace(big);
        assert.equal(Math.round((big.images[1] as Box).width), 2400);
        await page.locator('#pane-svg').focus();
        await page.keyboard.press('0');
        const fitted = await boxes(page);
        const [pane, image] = [fitted.panes[1] as Box, fitted.images[1] as Box];
        assert.ok(image.left >= pane.left - 0.5 && image.left + image.width <= pane.left + pane.width + 0.5, 'fits across');
        assert.ok(image.top >= pane.top - 0.5 && image.top + image.height <= pane.top + pane.height + 0.5, 'fits down');
      });

      it('pans both views together by dragging, and Fit brings the whole picture back', async () => {
        await page.getByRole('button', { name: 'Zoom in' }).click();
        await page.locator('#compare').scrollIntoViewIfNeeded();
        const b = await boxes(page);
        const pane = b.panes[1] as Box;
        // A quarter across: the slider's divider (the phone's default view) is at the middle.
        const start = { x: pane.left + pane.width / 4, y: pane.top + pane.height / 2 };
        await page.mouse.move(start.x, start.y);
        await page.mouse.down();
        await page.mouse.move(start.x + 30, start.y + 20, { steps: 5 });
        await page.mouse.up();
        const dragged = await boxes(page);
        assertSamePlace(dragged);
        assert.ok(Math.abs((dragged.images[0] as Box).left - (b.images[0] as Box).left - 30) < 0.5, 'the original moved with the pointer');
        assert.ok(Math.abs((dragged.images[1] as Box).top - (b.images[1] as Box).top - 20) < 0.5, 'the SVG moved with the pointer');
        await page.getByRole('button', { name: 'Fit' }).click();
        const fitted = await boxes(page);
        const [p, image] = [fitted.panes[1] as Box, fitted.images[1] as Box];
        assert.ok(image.left >= p.left - 0.5 && image.left + image.width <= p.left + p.width + 0.5);
        assert.ok(image.top >= p.top - 0.5 && image.top + image.height <= p.top + p.height + 0.5);
      });

      it('compares with a slider: the divider moves with the keys and by dragging, and an overlay fades the SVG', async () => {
        await page.getByLabel('Slider').check();
        // The fitted view fits the new, wider view again: the picture in its middle.
        const centred = await boxes(page);
        const [view, picture] = [centred.panes[1] as Box, centred.images[1] as Box];
        assert.ok(Math.abs(picture.left + picture.width / 2 - (view.left + view.width / 2)) < 1, 'centred across');
        assert.ok(Math.abs(picture.top + picture.height / 2 - (view.top + view.height / 2)) < 1, 'centred down');
        const slider = page.getByLabel('Divider: original on the left, SVG on the right');
        await slider.fill('50');
        await slider.focus();
        await page.keyboard.press('ArrowRight');
        assert.equal(await slider.inputValue(), '51');
        assert.equal(await page.locator('#divider').evaluate((el) => (el as HTMLElement).style.left), '51%');
        assert.match(await page.locator('#pane-svg').evaluate((el) => (el as HTMLElement).style.clipPath), /inset\(0(px)? 0(px)? 0(px)? 51%\)/);
        await page.locator('#compare').scrollIntoViewIfNeeded();
        const pane = (await boxes(page)).panes[1] as Box;
        const handle = await page.locator('#divider').boundingBox();
        assert.ok(handle);
        await page.mouse.move(handle.x + handle.width / 2, pane.top + pane.height / 2);
        await page.mouse.down();
        await page.mouse.move(pane.left + pane.width * 0.25, pane.top + pane.height / 2, { steps: 5 });
        await page.mouse.up();
        assert.ok(Math.abs(Number(await slider.inputValue()) - 25) <= 1, await slider.inputValue());
        await page.getByLabel('Overlay').check();
        await page.getByLabel('SVG opacity over the original').fill('30');
        assert.equal(await page.locator('#pane-svg').evaluate((el) => (el as HTMLElement).style.opacity), '0.3');
        await page.getByLabel('Side by side').check();
      });

      it('has no serious or critical axe-core violation on /try after a conversion, and passes the page audit', async () => {
        for (const path of ['/try', '/']) {
          if (path === '/try') {
            await page.goto(`${service.url}/try`);
            await dispatchImage(page, 'drop', 'audit.png');
            await converted(page);
          } else {
            await page.goto(`${service.url}${path}`);
          }
          const violations = await seriousViolations(page);
          assert.deepEqual(violations, [], path);
          const report = await page.evaluate(auditPage);
          assert.deepEqual(report, { unlabelled: [], unnamedButtons: [], lowContrast: [], overflow: 0 }, path);
        }
      });

      it('converts a home-page sample with one click', async () => {
        await page.goto(service.url);
        await page.getByRole('button', { name: 'Convert the flat shapes' }).click();
        await page.waitForURL(/\/try\?sample=shapes$/);
        await converted(page);
        assert.ok(await page.getByText('Converted: ').isVisible());
      });

      it('converts a picture dropped on the home page on /try at once', async () => {
        await page.goto(service.url);
        await dispatchImage(page, 'drop', 'from-home.png');
        await page.waitForURL(/\/try$/);
        await converted(page);
        assert.match((await page.locator('#convert-status').textContent()) ?? '', /^Converted/);
      });
    });
  }

  it('sends a visitor who drops a picture on the home page to log in, then converts it', { skip }, async () => {
    const client = service.pages();
    const email = 'babbage@example.com';
    const password = 'difference engine 1822';
    await client.signUp(email, password);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript({ content: NAME_SHIM });
    const page = await context.newPage();
    try {
      await page.goto(service.url);
      await dispatchImage(page, 'drop', 'waiting.png');
      await page.waitForURL(/\/login\?next=%2Ftry$/);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(/\/try$/);
      await converted(page);
    } finally {
      await context.close();
    }
  });
});
