// Each attempt's W3C traceparent, beside the attempt in the inspector: the same value the receiver got.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useEngine } from '../helpers/engine.ts';
import { adminSandbox, startReceiver } from './admin-sandbox.ts';
import { expect } from './expect.ts';
import { screenshot, useBrowser } from './browser.ts';

const engine = useEngine();
const browser = useBrowser();

test('the attempts tab shows the traceparent each attempt carried', async (t) => {
  const receiver = await startReceiver(t);
  const { admin, addEndpoint, link } = await adminSandbox(engine);
  const endpoint = await addEndpoint(receiver.url);
  const sent = await admin('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: endpoint.id } });
  const [request] = await receiver.waitFor(1);

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(link(`deliveries/${sent.body.deliveryId}`));
  await page.getByRole('tab', { name: /Attempts/ }).click();
  const [, traceId, spanId] = (request.headers.traceparent as string).split('-');
  await expect(page.getByTestId('detail-trace').locator('code')).text(traceId);
  const shown = page.getByTestId('attempt-1').getByTestId('traceparent');
  await expect(shown.locator('code')).text(spanId);
  assert.equal(await shown.getAttribute('title').then((t) => t?.split(' ')[1]), request.headers.traceparent);
  await screenshot(page, 'attempt-traceparent');
  assert.deepEqual(page.errors, []);
});
