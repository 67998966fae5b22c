// Each attempt's W3C traceparent, beside the attempt in the inspector: the same value the receiver got.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, useEngine } from '../helpers/engine.ts';
import { Receiver } from '../helpers/receiver.ts';
import { expect } from './expect.ts';
import { screenshot, useBrowser } from './browser.ts';

const engine = useEngine();
const browser = useBrowser();

test('the attempts tab shows the traceparent each attempt carried', async (t) => {
  const receiver = await new Receiver().start();
  t.after(() => receiver.close());
  const created = await call(engine.url, '/api/v1/sandboxes', { method: 'POST', body: {} });
  const sandboxId = created.body.sandbox.id;
  const admin = (path: string, init: { method?: string; body?: unknown } = {}) =>
    call(engine.url, path, { ...init, token: engine.running.adminKey, headers: { 'sandbay-sandbox': sandboxId } });
  const endpoint = (await admin('/api/v1/webhooks/endpoints', { body: { url: receiver.url, topics: ['order.*'] } }))
    .body;
  const sent = await admin('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: endpoint.id } });
  const [request] = await receiver.waitFor(1);

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(
    `${engine.url}/sandboxes/${sandboxId}/deliveries/${sent.body.deliveryId}?key=${engine.running.adminKey}`,
  );
  await page.getByRole('tab', { name: /Attempts/ }).click();
  const [, traceId, spanId] = (request.headers.traceparent as string).split('-');
  await expect(page.getByTestId('detail-trace').locator('code')).text(traceId);
  const shown = page.getByTestId('attempt-1').getByTestId('traceparent');
  await expect(shown.locator('code')).text(spanId);
  assert.equal(await shown.getAttribute('title').then((t) => t?.split(' ')[1]), request.headers.traceparent);
  await screenshot(page, 'attempt-traceparent');
  assert.deepEqual(page.errors, []);
});
