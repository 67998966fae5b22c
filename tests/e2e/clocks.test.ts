// Every timestamp the inspector shows says which clock it is on (SPEC §5.5): after a 7 h advance the retry
// timeline (sandbox clock) and the signature's t (real clock) are 7 h apart on one screen, and each names its
// clock on hover. The scan reads every text that looks like a time, on every view a delivery appears in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { advance } from '../helpers/webhooks.ts';
import { createSandbox, useEngine } from '../helpers/engine.ts';
import { screenshot, useBrowser } from './browser.ts';
import { expect } from './expect.ts';
import { inspectorUrl } from './admin-sandbox.ts';

const engine = useEngine();
const browser = useBrowser();

// Runs in the page: source text, as tests/e2e/scroll.ts explains (the Node typings have no DOM). Texts that
// look like a time (14:03:09) and are not inside an element naming its clock on hover. Payloads and headers
// (code, pre, textarea, JSON views) quote the data sent, such as a body's occurredAt, not the inspector's times.
const scanForUnlabelledTimes = `(() => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent ?? '';
    const at = node.parentElement;
    if (!/\\b\\d{1,2}:\\d{2}:\\d{2}\\b/.test(text) || at.closest('code, pre, textarea, .json')) continue;
    const clock = at.closest('[data-clock]');
    if (!clock || !/, (sandbox|real) clock$/.test(clock.getAttribute('title') ?? '')) found.push(text.trim());
  }
  return found;
})()`;
const unlabelledTimes = async (page: Page) => (await page.evaluate(scanForUnlabelledTimes)) as string[];

const clockOf = async (page: Page, testId: string) => {
  const time = page
    .getByTestId(testId)
    .locator('time')
    .or(page.locator(`time[data-testid="${testId}"]`))
    .first();
  return { clock: await time.getAttribute('data-clock'), at: Date.parse((await time.getAttribute('datetime'))!) };
};

test('after a 7 h advance, the timeline is on the sandbox clock and the signature on the real one, and each says so', async (t) => {
  const sb = await createSandbox(engine.url);
  await sb.api('/api/v1/catchers/demo', { method: 'PUT', body: { mode: 'status', status: 500 } });
  const endpoint = await sb.api('/api/v1/webhooks/endpoints', {
    body: { url: `${engine.url}/catch/${sb.id}/demo`, topics: ['*'] },
  });
  await advance(sb, 7 * 3600);
  const sent = await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: endpoint.body.id } });
  const id: string = sent.body.deliveryId;

  const page = await browser.newPage();
  t.after(() => page.context().close());
  await page.goto(inspectorUrl(engine, `/sandboxes/${sb.id}/deliveries/${id}`));
  await expect(page.getByTestId('slot-1')).attribute('data-state', 'failed');
  const attempt = await clockOf(page, 'slot-1');
  assert.equal(attempt.clock, 'sandbox');
  assert.equal(await page.getByTestId('sandbox-time').locator('time').getAttribute('data-clock'), 'sandbox');
  assert.deepEqual(await unlabelledTimes(page), [], 'the header clock and the timeline');

  await page.getByRole('tab', { name: 'Signature' }).click();
  const signed = await clockOf(page, 'sig-time');
  assert.equal(signed.clock, 'real');
  const hours = (attempt.at - signed.at) / 3_600_000;
  assert.ok(hours > 6.9 && hours < 7.1, `the two clocks are 7 h apart on one screen (${hours} h)`);
  assert.deepEqual(await unlabelledTimes(page), [], 'the signature breakdown');
  assert.match((await page.getByTestId('sig-time').getAttribute('title'))!, /, real clock$/);
  await screenshot(page, 'clocks');

  await page.getByRole('tab', { name: 'Attempts' }).click();
  await expect(page.locator('table time[data-clock="sandbox"]')).visible();
  assert.deepEqual(await unlabelledTimes(page), [], 'the attempts table');

  await page.getByRole('link', { name: 'Endpoints', exact: true }).click();
  await expect(page.locator('li.endpoint')).visible();
  await expect(page.locator('table.caught time[data-clock="real"]')).visible();
  assert.deepEqual(await unlabelledTimes(page), [], 'endpoints and catchers');

  await page.getByRole('link', { name: 'Deliveries', exact: true }).click();
  await expect(page.locator(`[data-delivery-id="${id}"] time[data-clock="sandbox"]`)).visible();
  assert.deepEqual(await unlabelledTimes(page), [], 'the deliveries list');

  await page.goto(`${engine.url}/sandboxes/${sb.id}/settings`);
  await expect(page.getByTestId('clock-now')).visible();
  assert.deepEqual(await unlabelledTimes(page), [], 'the clock page: sandbox time and real time');
  assert.deepEqual(page.errors, []);
});
