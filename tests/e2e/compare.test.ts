// The Compare tab: a delivery's previous attempt against its latest, at once, and against another delivery.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, useEngine } from '../helpers/engine.ts';
import { Receiver } from '../helpers/receiver.ts';
import { expect } from './expect.ts';
import { screenshot, useBrowser } from './browser.ts';

const engine = useEngine();
const browser = useBrowser();

test('Compare shows what changed between two attempts, then between two deliveries', async (t) => {
  const receiver = await new Receiver().start();
  t.after(() => receiver.close());
  const created = await call(engine.url, '/api/v1/sandboxes', { method: 'POST', body: {} });
  const sandboxId = created.body.sandbox.id;
  const admin = (path: string, init: { method?: string; body?: unknown } = {}) =>
    call(engine.url, path, { ...init, token: engine.running.adminKey, headers: { 'sandbay-sandbox': sandboxId } });
  const endpoint = (await admin('/api/v1/webhooks/endpoints', { body: { url: receiver.url, topics: ['order.*'] } }))
    .body;
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
  await page.goto(
    `${engine.url}/sandboxes/${sandboxId}/deliveries/${first.body.deliveryId}?key=${engine.running.adminKey}`,
  );
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
