// Debian's Chromium driven by playwright-core, one browser process per test file. Where
// /usr/bin/chromium is missing the browser tests are skipped with a message, unless
// REQUIRE_CHROMIUM=1 (as CI sets it), which turns that into a failure.
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Screenshots of every flow, at each width; the folder is in .gitignore. */
export const SCREENSHOTS = fileURLToPath(new URL('../../test-output/screenshots/', import.meta.url));

// Without the background-networking flags Chromium keeps calling out to Google's services,
// which this closed network refuses many times a second.
// playwright-core adds --headless itself (headless: true).
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** `false` when Chromium can run here, else why the browser tests are skipped. */
export function chromiumSkip(): string | false {
  if (existsSync(CHROMIUM_PATH)) return false;
  const problem = `Chromium not found at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`;
  if (process.env.REQUIRE_CHROMIUM === '1') throw new Error(`${problem} (REQUIRE_CHROMIUM=1)`);
  process.stderr.write(`# skipping browser tests: ${problem}\n`);
  return problem;
}

export async function launchBrowser(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // playwright-core gives every launch a fresh temporary profile (--user-data-dir) of its own.
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: FLAGS, timeout: 30_000 });
}

/**
 * An init script for every page: tsx compiles with esbuild's keepNames, whose `__name` helper the
 * functions passed to page.evaluate call inside the page, where it does not exist.
 */
export const NAME_SHIM = 'globalThis.__name = (fn) => fn;';

export const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 375, height: 740 },
] as const;
