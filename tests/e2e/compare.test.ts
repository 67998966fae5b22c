// The Compare tab: a delivery's previous attempt against its latest, at once, and against another delivery.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useEngine } from '../helpers/engine.ts';
import { adminSandbox, startReceiver } from './admin-sandbox.ts';
import { expect } from './expect.ts';
import { screenshot, useBrowser } from './browser.ts';

const engine = useEngine();
const browser = useBrowser();

test('Compare shows what changed between two attempts, then between two deliveries', async (t) => {
  const receiver = await startReceiver(t);
  const { admin, addEndpoint, link } = await adminSandbox(engine);
  const endpoint = await addEndpoint(receiver.url);
  receiver.behaviour = { kind: 'status', status: 500, body: 'boom: total must be positive' };
  const first = await admin('/api/v1/webhooks/test', {
    body: { topic: 'order.placed', endpoint: endpoint.id, data: { total: 10 } },
  });
  await receiver.waitFor(1);
  receiver.behaviour = { kind: 'status', status: 200, body: 'ok' };
  await admin('/api/v1/sandbox/clock/advance', { body: { seconds: 30 } });
  await receiver.waitFor(2);
  const second = await admin('/api/v1/webhooks/test', {
    body: { topic: 'order.placed', endpoint: endpoint.id, data: { total: 12.5 } },
  });
  await receiver.waitFor(3);

  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(link(`deliveries/${first.body.deliveryId}`));
  await page.getByRole('tab', { name: 'Compare' }).click();
  const answers = page.getByTestId('answer-changes');
  await expect(answers.locator('tr', { hasText: 'status' })).text(/^status\s+500\s+200$/);
  await expect(answers.locator('tr', { hasText: 'body' })).text(/^body\s+boom: total must be positive\s+ok$/);

  await page.getByLabel('Another delivery to compare with').fill(second.body.deliveryId);
  await page.getByRole('button', { name: 'Compare' }).click();
  await expect(page.getByTestId('envelope-changes').locator('tr', { hasText: '/data/total' })).text(
    /^\/data\/total\s+replace\s+10\s+12\.5$/,
  );
  await screenshot(page, 'compare');
  assert.deepEqual(page.errors, []);
});
