// Toasts never cover the delivery detail: four fast-forwards in a row leave at most two toasts,
// none of them over the detail panel (the signature breakdown's byte count and HMAC rows stay readable).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useEngine } from '../helpers/engine.ts';
import { adminSandbox } from './admin-sandbox.ts';
import { overlaps } from './boxes.ts';
import { expect } from './expect.ts';
import { screenshot, useBrowser } from './browser.ts';

const engine = useEngine();
const browser = useBrowser();

test('fast-forwarding a failing delivery again and again: at most two toasts, and never over the detail panel', async () => {
  const { admin, addEndpoint, link } = await adminSandbox(engine);
  const endpoint = await addEndpoint('http://127.0.0.1:9/hook');
  const sent = await admin('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: endpoint.id } });

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(link(`deliveries/${sent.body.deliveryId}`));
  await expect(page.getByTestId('slot-1')).attribute('data-state', 'failed');
  await page.getByRole('tab', { name: 'Signature' }).click();
  for (let slot = 2; slot <= 5; slot++) {
    await expect(page.getByTestId(`slot-${slot}`)).attribute('data-state', 'scheduled');
    await page.getByRole('button', { name: 'Fast-forward to next attempt' }).click();
    await expect(page.getByTestId(`slot-${slot}`)).attribute('data-state', 'failed');
  }
  await page.getByTestId('byte-count').scrollIntoViewIfNeeded();
  // TOAST_SCREENSHOT=file.png keeps what the page looked like, to look at.
  if (process.env.TOAST_SCREENSHOT) await page.screenshot({ path: process.env.TOAST_SCREENSHOT });
  const toasts = page.locator('.toast');
  assert.ok((await toasts.count()) <= 2, `${await toasts.count()} toasts`);
  await expect(page.locator('.toast', { hasText: /×\s*\d/ })).count(1);
  const detail = (await page.locator('.detail').boundingBox())!;
  for (const box of await Promise.all((await toasts.all()).map((t) => t.boundingBox()))) {
    assert.ok(
      box && !overlaps(box, detail),
      `a toast at ${JSON.stringify(box)} covers the detail panel at ${JSON.stringify(detail)}`,
    );
  }
  await screenshot(page, 'fast-forward-toasts');
  assert.deepEqual(page.errors, []);
});
