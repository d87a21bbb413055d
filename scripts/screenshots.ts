// `npm run screenshots`: pictures of every page at 1280 and 375 px, into docs/pages/. Starts the
// service on a temporary SQLite store, signs an account up (the confirmation link read from the
// log), makes it an admin, converts a picture on /try, and saves each page as a palette PNG.
// Needs Chromium (/usr/bin/chromium or CHROMIUM_PATH).
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import type { Page } from 'playwright-core';
import { findAccountByEmail } from '../src/accounts/accounts.ts';
import { changeAccount, grantCredits } from '../src/accounts/admin.ts';
import { launchBrowser, NAME_SHIM, VIEWPORTS } from '../test/helpers/browser.ts';
import { corpusFile } from '../test/helpers/http.ts';
import { liftFreeLimits, startTestService } from '../test/helpers/service.ts';
import { createSqliteDatabase } from '../test/helpers/stores.ts';

const OUT = fileURLToPath(new URL('../docs/pages/', import.meta.url));
const PICTURE = corpusFile('logo/flat_shapes_transparency_300.png').toString('base64');

async function save(page: Page, name: string, width: number, clip?: string): Promise<void> {
  const png = clip ? await page.locator(clip).screenshot() : await page.screenshot({ fullPage: true });
  // UI pictures have few colours: a palette PNG is a fraction of the size, and stays sharp.
  await sharp(png).png({ palette: true, quality: 85, compressionLevel: 9, effort: 8 }).toFile(join(OUT, `${name}-${width}.png`));
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const database = createSqliteDatabase();
const service = await startTestService(database);
const browser = await launchBrowser();
try {
  await liftFreeLimits(service);
  for (const viewport of VIEWPORTS) {
    const email = `screens-${viewport.width}@example.com`;
    const client = service.pages();
    await client.signUp(email, 'a long enough password');
    const account = await findAccountByEmail(service.store.db, email);
    await changeAccount(service.store.db, 'the screenshot script', account!.id, { role: 'admin' });
    await grantCredits(service.store.db, 'the screenshot script', account!.id, { amount: 40 });

    const visitor = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
    const anonymous = await visitor.newPage();
    for (const [name, path] of [['home', '/'], ['signup', '/signup'], ['login', '/login'], ['reset', '/password-reset'], ['404', '/no-such-page']] as const) {
      await anonymous.goto(`${service.url}${path}`, { waitUntil: 'networkidle' });
      await save(anonymous, name, viewport.width);
    }
    await anonymous.goto(`${service.url}/`, { waitUntil: 'networkidle' });
    await save(anonymous, 'pricing', viewport.width, 'section[aria-labelledby=pricing-heading]');
    await visitor.close();

    const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
    await context.addInitScript({ content: NAME_SHIM });
    await context.addCookies([...client.cookies].map(([name, value]) => ({ name, value, url: service.url })));
    const page = await context.newPage();
    await page.goto(`${service.url}/try`, { waitUntil: 'networkidle' });
    await save(page, 'try-before', viewport.width);
    await page.evaluate((base64) => {
      const data = new DataTransfer();
      data.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], 'shapes.png', { type: 'image/png' }));
      document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }, PICTURE);
    await page.getByText(/^Converted: \d+ nodes/).waitFor({ timeout: 60_000 });
    await page.waitForFunction(() => ((document.getElementById('preview-svg') as HTMLImageElement | null)?.naturalWidth ?? 0) > 0);
    await save(page, 'try-after', viewport.width);
    await page.getByLabel('Slider').check();
    await page.locator('#compare').scrollIntoViewIfNeeded();
    await save(page, 'try-slider', viewport.width, '#result');
    for (const [name, path] of [
      ['home-signed-in', '/'],
      ['account', '/account'],
      ['keys', '/account/keys'],
      ['settings', '/account/settings'],
      ['billing', '/account/billing'],
      ['admin', '/admin'],
      ['admin-account', `/admin/accounts/${account!.id}`],
    ] as const) {
      await page.goto(`${service.url}${path}`, { waitUntil: 'networkidle' });
      await save(page, name, viewport.width);
    }
    await context.close();
  }
} finally {
  await browser.close();
  await service.close();
  await database.drop();
}
const files = readdirSync(OUT);
const total = files.reduce((sum, name) => sum + statSync(join(OUT, name)).size, 0);
process.stdout.write(`${files.length} pictures in docs/pages/, ${(total / 1024).toFixed(0)} KB\n`);
