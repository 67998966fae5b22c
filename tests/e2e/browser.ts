import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { buildOnce } from '../../scripts/build-ui.ts';
import { packageRoot } from '../../src/shared/node/package-root.ts';
import { requireTool, tools } from '../helpers/tools.ts';

export { buildOnce };

/** Chromium (Debian's, installed by .ci/run; or CHROMIUM_PATH), found when a browser test starts. */
export const chromiumPath = () => requireTool(tools.chromium);
export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const screenshotDir = join(packageRoot(), 'docs', 'screenshots');

/**
 * Launches Chromium for a test file (building the UI first if its sources changed) and
 * closes it after. Pages collect uncaught errors in `errors` so a test can assert none.
 */
export function useBrowser(): { newPage(options?: BrowserContextOptions): Promise<Page & { errors: string[] }> } {
  let browser: Browser | undefined;
  before(async () => {
    const executablePath = chromiumPath(); // a one-line failure naming what to install, before any build
    await buildOnce();
    browser = await chromium.launch({ executablePath, args: chromiumArgs });
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

/** Whether this run refreshes the docs' screenshots (UPDATE_SCREENSHOTS=1); a plain `npm test` leaves them alone. */
const updatingScreenshots = process.env.UPDATE_SCREENSHOTS === '1';

/** Saves a screenshot for the docs (docs/screenshots/<name>.png) when asked, without passing toasts in the way. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (!updatingScreenshots) return;
  mkdirSync(screenshotDir, { recursive: true });
  for (const dismiss of await page.getByRole('button', { name: 'Dismiss' }).all())
    await dismiss.click().catch(() => {});
  await page.screenshot({ path: join(screenshotDir, `${name}.png`) });
}
