// Replay by filter in the inspector (issue 31): pick rows in the deliveries list and replay just those,
// or replay everything the list's filters name; progress shows above the list.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { expect } from './expect.ts';
import { createSandbox, useEngine } from '../helpers/engine.ts';
import { Receiver } from '../helpers/receiver.ts';
import { registerEndpoint, waitForDelivery } from '../helpers/webhooks.ts';
import { screenshot, useBrowser } from './browser.ts';
import { inspectorUrl } from './admin-sandbox.ts';

const engine = useEngine();
const browser = useBrowser();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

const deliveredIds = (from: number) =>
  receiver.received.slice(from).map((r) => String(r.headers['x-service-delivery-id']));

test('picked rows are replayed and nothing else; "Replay all matching" replays what the topic filter names', async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, receiver.url, ['*']);
  const ids: Record<string, string> = {};
  for (const topic of ['order.placed', 'order.cancelled', 'payment.captured', 'product.created']) {
    const res = await sb.api('/api/v1/webhooks/test', { body: { topic, endpoint: endpoint.id } });
    ids[topic] = res.body.deliveryId;
    await waitForDelivery(sb, ids[topic], (d) => d.status === 'succeeded');
  }

  const page = await browser.newPage();
  await page.goto(inspectorUrl(engine, `/sandboxes/${sb.id}/deliveries`));
  const bar = page.getByTestId('pick-bar');
  await expect(bar.getByText('Pick rows to replay them')).visible();
  await page.getByRole('checkbox', { name: `Pick ${ids['order.cancelled']}` }).check();
  await page.getByRole('checkbox', { name: `Pick ${ids['product.created']}` }).check();
  await expect(bar.getByText('2 picked')).visible();
  assert.equal(new URL(page.url()).pathname.endsWith('/deliveries'), true, 'picking does not open the delivery');
  await screenshot(page, 'replay-picked');

  let from = receiver.received.length;
  await bar.getByRole('button', { name: 'Replay picked' }).click();
  await expect(page.getByTestId('dlq-replay')).text(/Replayed 2: 2 succeeded, 0 failed/);
  await expect(bar.getByText('Pick rows to replay them')).visible();
  assert.deepEqual(deliveredIds(from).sort(), [ids['order.cancelled'], ids['product.created']].sort());

  await page.getByRole('button', { name: 'Dismiss' }).first().click();
  await page.getByLabel('Topic').selectOption('order.placed');
  from = receiver.received.length;
  await bar.getByRole('button', { name: 'Replay all matching…' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Replay all' }).click();
  await expect(page.getByTestId('dlq-replay')).text(/Replayed 1: 1 succeeded, 0 failed/);
  assert.deepEqual(deliveredIds(from), [ids['order.placed']]);
  assert.deepEqual(page.errors, []);
});
