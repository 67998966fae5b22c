// Replaying one row of the Dead-letter queue view: a delivery whose replay succeeds is no longer dead, so
// it leaves the view (it stayed, green, with a second Replay button); one whose replay fails dies again
// and stays, with its Replay button, to be tried once more.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { advance } from '../helpers/webhooks.ts';
import { createSandbox, useEngine, type TestSandbox } from '../helpers/engine.ts';
import { useBrowser } from './browser.ts';
import { expect } from './expect.ts';
import { inspectorUrl } from './admin-sandbox.ts';

const engine = useEngine();
const browser = useBrowser();

async function answerWith(sb: TestSandbox, status: number): Promise<void> {
  const res = await sb.api('/api/v1/catchers/demo', { method: 'PUT', body: { mode: 'status', status } });
  assert.ok(res.status === 200 || res.status === 201, JSON.stringify(res.body)); // 201: made on first use
}

/** A test webhook to the catcher while it answers 500, through its five attempts into the DLQ. */
async function deadDelivery(sb: TestSandbox, endpointId: string): Promise<string> {
  const sent = await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: endpointId } });
  assert.equal(sent.status, 202, JSON.stringify(sent.body));
  // An advance runs every attempt due on the way, in order (SPEC §5.5): 2 h take a failing delivery to dead.
  await advance(sb, 2 * 3600);
  const { body } = await sb.api(`/api/v1/webhooks/deliveries/${sent.body.deliveryId}`);
  assert.equal(body.status, 'dead', JSON.stringify(body));
  return body.id;
}

test('a row replayed to success leaves the DLQ view; one whose replay fails stays dead with its Replay button', async (t) => {
  const sb = await createSandbox(engine.url);
  await answerWith(sb, 500);
  const endpoint = await sb.api('/api/v1/webhooks/endpoints', {
    body: { url: `${engine.url}/catch/${sb.id}/demo`, topics: ['*'] },
  });
  assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
  const first = await deadDelivery(sb, endpoint.body.id);
  const second = await deadDelivery(sb, endpoint.body.id);

  const page = await browser.newPage();
  t.after(() => page.context().close());
  await page.goto(inspectorUrl(engine, `/sandboxes/${sb.id}/dlq`));
  await expect(page.getByTestId('connection')).text('Live');
  const row = (id: string) => page.locator(`[data-delivery-id="${id}"]`);
  await expect(row(first)).visible();
  await expect(row(second)).visible();

  // Still failing: the replay's one attempt fails, the row dies again and keeps its Replay button.
  await row(second).getByRole('button', { name: 'Replay' }).click();
  await expect(page.getByText(`Replay of ${second}: dead.`)).visible();
  await expect(row(second).locator('.badge')).text('dead');
  await expect(row(second).getByRole('button', { name: 'Replay' })).visible();

  await answerWith(sb, 200);
  await row(first).getByRole('button', { name: 'Replay' }).click();
  await expect(page.getByText(`Replay of ${first}: succeeded.`)).visible();
  await expect(row(first)).count(0);
  await expect(page.locator('[data-delivery-id]')).count(1);
  await expect(row(second).getByRole('button', { name: 'Replay' })).visible();
  assert.equal((await sb.api(`/api/v1/webhooks/deliveries/${first}`)).body.status, 'succeeded');

  // The deliveries view still lists it, as it is: succeeded.
  await page.getByRole('link', { name: 'Deliveries', exact: true }).click();
  await expect(row(first).locator('.badge')).text('succeeded');
  assert.deepEqual(page.errors, []);
});
