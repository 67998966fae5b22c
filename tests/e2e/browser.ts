import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { buildOnce } from '../../scripts/build-ui.ts';
import { packageRoot } from '../../src/shared/node/package-root.ts';

export { buildOnce };

/** Debian's Chromium (installed by .ci/run), headless and quiet. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumArgs = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

export const screenshotDir = join(packageRoot(), 'docs', 'screenshots');

/**
 * Launches Chromium for a test file (building the UI first if its sources changed) and
 * closes it after. Pages collect uncaught errors in `errors` so a test can assert none.
 */
export function useBrowser(): { newPage(options?: BrowserContextOptions): Promise<Page & { errors: string[] }> } {
  let browser: Browser | undefined;
  before(async () => {
    if (!existsSync(chromiumPath)) throw new Error(`no Chromium at ${chromiumPath}: apt-get install chromium (as .ci/run does), or set CHROMIUM_PATH`);
    await buildOnce();
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  });
  after(async () => {
    await browser?.close();
  });
  return {
    async newPage(options = {}) {
      if (!browser) throw new Error('the browser starts in before()');
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, ...options });
      const page = (await context.newPage()) as Page & { errors: string[] };
      page.errors = [];
      page.on('pageerror', (err) => page.errors.push(err.message));
      return page;
    },
  };
}

/** Saves a screenshot for the README (docs/screenshots/<name>.png), without passing toasts in the way. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  for (const dismiss of await page.getByRole('button', { name: 'Dismiss' }).all()) await dismiss.click().catch(() => {});
  await page.screenshot({ path: join(screenshotDir, `${name}.png`) });
}
