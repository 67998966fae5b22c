import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, useEngine } from '../helpers/engine.ts';
import { registerEndpoint } from '../helpers/webhooks.ts';
import { useBrowser } from './browser.ts';
import { insertDeliveries } from './bulk.ts';
import { loadAllRows, scriptedScroll } from './scroll.ts';
import { CuttingProxy } from './cutting-proxy.ts';
import { expect } from './expect.ts';
import { inspectorUrl } from './admin-sandbox.ts';

const engine = useEngine();
const browser = useBrowser();

const openDeliveries = async (sandboxId: string, suffix = '') => {
  const page = await browser.newPage();
  await page.goto(inspectorUrl(engine, `/sandboxes/${sandboxId}/deliveries${suffix}`));
  await expect(page.getByTestId('connection')).text('Live');
  return page;
};

// Sandbay closes a stream when the tab goes, but only once it notices the socket closed.
async function subscribers(expected: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (engine.running.services.webhooks.stream.subscriberCount !== expected && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  assert.equal(engine.running.services.webhooks.stream.subscriberCount, expected);
}

test('10,000 deliveries scroll with fewer than 100 rows in the DOM', async (t) => {
  const sb = await createSandbox(engine.url);
  await insertDeliveries(engine.running.services.db, sb.id, 10_000);
  const page = await openDeliveries(sb.id);
  t.after(() => page.context().close());
  await expect(page.locator('[data-delivery-id]').first()).visible();
  const whileLoading = await loadAllRows(page, 10_000);
  await expect(page.locator('[data-delivery-id="dlv_bulk000001"]')).visible();
  const scroll = await scriptedScroll(page);
  assert.ok(scroll.steps > 100, 'the scroll went through the whole list');
  for (const rows of [whileLoading, scroll.maxRows])
    assert.ok(rows > 10 && rows < 100, `${rows} rows were in the DOM at once`);
  const slow = scroll.longTasks.map((d) => `${Math.round(d)} ms`).join(', ') || 'none';
  t.diagnostic(`long tasks during a scripted scroll of 10,000 rows: ${slow} (npm run bench tracks this)`);
});

test('one SSE connection serves every view of a tab', async (t) => {
  await subscribers(0);
  const sb = await createSandbox(engine.url);
  const page = await openDeliveries(sb.id);
  t.after(() => page.context().close());
  for (const view of ['Endpoints', 'DLQ', 'Clock & reset', 'Portal', 'Deliveries']) {
    await page.getByRole('link', { name: view, exact: true }).click();
    await expect(page.getByTestId('connection')).text('Live');
  }
  await subscribers(1);
});

test("a clock advanced elsewhere (the CLI, a script) moves the open inspector's clock at once", async (t) => {
  const sb = await createSandbox(engine.url);
  const page = await openDeliveries(sb.id);
  t.after(() => page.context().close());
  const clock = page.getByRole('link', { name: 'Sandbox clock: open clock and reset' });
  await expect(clock).text(/^Sandbox time\s*\d\d:\d\d:\d\d$/);
  await sb.api('/api/v1/sandbox/clock/advance', { body: { seconds: 7200 } });
  await expect(clock).text(/\+2 h$/);
});

test('a lost stream reconnects and fills the gap', async (t) => {
  const proxy = new CuttingProxy(engine.running.port);
  const base = await proxy.start();
  const sb = await createSandbox(engine.url);
  const page = await browser.newPage();
  t.after(async () => {
    await page.context().close();
    await proxy.close();
  });
  await page.goto(`${base}/sandboxes/${sb.id}/deliveries?key=${engine.running.adminKey}`);
  await expect(page.getByTestId('connection')).text('Live');
  const before = await sb.api('/api/v1/webhooks/test', {
    body: { topic: 'order.placed', endpoint: 'http://127.0.0.1:9/nobody-listens' },
  });
  await expect(page.locator(`[data-delivery-id="${before.body.deliveryId}"]`)).visible();
  proxy.cut();
  await expect(page.getByTestId('connection')).text('Reconnecting…');
  const missed = await sb.api('/api/v1/webhooks/test', {
    body: { topic: 'payment.captured', endpoint: 'http://127.0.0.1:9/nobody-listens' },
  });
  assert.equal(missed.status, 202);
  proxy.restore();
  await expect(page.getByTestId('connection')).text('Live');
  await expect(page.locator(`[data-delivery-id="${missed.body.deliveryId}"]`)).visible();
  await expect(page.locator(`[data-delivery-id="${missed.body.deliveryId}"] .c-last`)).text(/connection refused/);
});

test('a deep link opens the delivery with only the admin cookie', async (t) => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, 'http://127.0.0.1:9/closed');
  const sent = await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: endpoint.id } });
  const page = await browser.newPage();
  t.after(() => page.context().close());
  await page.goto(inspectorUrl(engine, '/'));
  const linked = await page.context().newPage(); // a new tab: no key in its storage, the cookie only
  await linked.goto(`${engine.url}/sandboxes/${sb.id}/deliveries/${sent.body.deliveryId}`);
  await expect(linked.getByRole('heading', { name: sent.body.deliveryId })).visible();
  await linked.getByRole('tab', { name: 'Signature' }).click();
  await expect(linked.getByTestId('sig-v1-match')).text(/matches secret 1/);
  await linked.goto(`${engine.url}/sandboxes/${sb.id}/deliveries/dlv_doesnotexist`);
  await expect(linked.getByRole('heading', { name: 'No such delivery here' })).visible();
  await linked.goto(`${engine.url}/sandboxes/sbx_gone/deliveries`);
  await expect(linked.getByRole('heading', { name: 'No such sandbox' })).visible();
  assert.deepEqual(page.errors, []);
});

test('without the key the inspector explains how to get in', async (t) => {
  const page = await browser.newPage();
  t.after(() => page.context().close());
  await page.goto(`${engine.url}/sandboxes/sbx_x/deliveries`);
  await expect(page.getByRole('heading', { name: 'Sandbay needs its admin key' })).visible();
  await page.getByLabel('Admin key').fill('not a key');
  await page.getByRole('button', { name: 'Open the inspector' }).click();
  await expect(page.getByText('The admin key starts with sbk_')).visible();
  await page.getByLabel('Admin key').fill(engine.running.adminKey!);
  await page.getByRole('button', { name: 'Open the inspector' }).click();
  await expect(page.getByRole('heading', { name: 'No such sandbox' })).visible();
});

test('switching sandboxes in the header shows the other sandbox, never a mix', async (t) => {
  const a = await createSandbox(engine.url, 'Shop A');
  const b = await createSandbox(engine.url, 'Shop B');
  const send = (sb: typeof a) =>
    sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: 'http://127.0.0.1:9/closed' } });
  const [fromA, fromB] = [(await send(a)).body.deliveryId, (await send(b)).body.deliveryId];
  const page = await openDeliveries(a.id);
  t.after(() => page.context().close());
  await expect(page.locator(`[data-delivery-id="${fromA}"]`)).visible();
  await page.getByRole('combobox', { name: 'Sandbox' }).selectOption(b.id);
  await expect(page.locator(`[data-delivery-id="${fromB}"]`)).visible();
  await expect(page.locator(`[data-delivery-id="${fromA}"]`)).count(0);
  assert.match(page.url(), new RegExp(`/sandboxes/${b.id}/deliveries$`));
  const late = (await send(a)).body.deliveryId;
  await expect(page.locator(`[data-delivery-id="${fromB}"]`)).visible();
  await expect(page.locator(`[data-delivery-id="${late}"]`)).count(0);
});
