// Rough edges a new user hits in the inspector (issue 14 §4): the key prompt, toasts that go
// away by themselves, and replaying a large DLQ with progress and Cancel.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createSandbox, useEngine } from '../helpers/engine.ts';
import { Receiver } from '../helpers/receiver.ts';
import { registerEndpoint } from '../helpers/webhooks.ts';
import { useBrowser } from './browser.ts';
import { insertDeliveries } from './bulk.ts';
import { expect } from './expect.ts';
import { inspectorUrl } from './admin-sandbox.ts';

const receiver = new Receiver();
// Closed before the engine (after hooks run in the order they are declared): the requests it holds hung
// end there, or the engine's close would wait out their attempts, a minute each.
after(() => receiver.close());
// Hung replays stay in flight for the whole test (cancel must stop the rest, not wait them out).
const engine = useEngine({ attemptTimeoutMs: 60_000 });
const browser = useBrowser();

test("the key prompt shows this engine's own URL, and a wrong key is told apart from a missing one", async (t) => {
  const page = await browser.newPage();
  t.after(() => page.context().close());
  await page.goto(`${engine.url}/sandboxes/sbx_x/deliveries`);
  await expect(page.getByRole('heading', { name: 'Sandbay needs its admin key' })).visible();
  assert.notEqual(engine.running.port, 4400);
  await expect(page.getByTestId('ready-url')).text(`Sandbay ready: ${engine.url}/?key=…`);
  assert.equal(await page.getByText('Key not accepted').count(), 0, 'no key yet is not a wrong key');

  await page.getByLabel('Admin key').fill('sbk_not_this_install');
  await page.getByRole('button', { name: 'Open the inspector' }).click();
  await expect(page.getByText(/^Key not accepted: it is not the admin key of this Sandbay/)).visible();
  assert.match(page.url(), /\/sandboxes\/sbx_x\/deliveries$/, 'checked in place, no reload');

  await page.goto(`${engine.url}/?key=sbk_wrong_in_the_url`);
  await expect(page.getByText(/^Key not accepted/)).visible();
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Sandbay needs its admin key' })).visible();
  assert.equal(await page.getByText('Key not accepted').count(), 0, 'a refused key is not tried again on reload');
});

test('toasts fade by themselves; hovering keeps one until the pointer leaves', async (t) => {
  const page = await browser.newPage();
  t.after(() => page.context().close());
  await page.goto(inspectorUrl(engine, '/portal/sandbox'));
  await page.getByRole('button', { name: 'Create sandbox' }).click();
  const toast = page.locator('.toast', { hasText: 'created and seeded.' });
  await expect(toast).visible();
  await toast.hover();
  await new Promise((r) => setTimeout(r, 6500)); // longer than a success toast's 5 s
  assert.equal(await toast.count(), 1, 'held while hovered');
  await page.mouse.move(5, 5);
  await toast.waitFor({ state: 'detached', timeout: 9000 }); // the rest of its 5 s, then the fade

  await page.getByRole('button', { name: 'Create sandbox' }).click();
  const second = page.locator('.toast', { hasText: 'created and seeded.' });
  await expect(second).visible();
  await second.waitFor({ state: 'detached', timeout: 8000 });
  assert.deepEqual(page.errors, []);
});

test('replaying a large DLQ shows progress and can be cancelled; a replay started elsewhere shows too', async (t) => {
  await receiver.start();
  receiver.behaviour = { kind: 'hang' };
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, receiver.url, ['order.placed']);
  await insertDeliveries(engine.running.services.db, sb.id, 40, { status: 'dead', endpointId: endpoint.id });
  const page = await browser.newPage();
  t.after(() => page.context().close());
  await page.goto(inspectorUrl(engine, `/sandboxes/${sb.id}/dlq`));
  await expect(page.getByTestId('row-count')).text('40 shown');

  await page.getByRole('button', { name: 'Replay all' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Replay all' }).click();
  const progress = page.getByTestId('dlq-replay');
  await expect(progress).text(/^Replaying 0 of 40\s+0 succeeded · 0 failed\s+Cancel replay$/);
  assert.equal(await progress.locator('progress').getAttribute('max'), '40');
  await receiver.waitFor(10);
  await progress.getByRole('button', { name: 'Cancel replay' }).click();
  await expect(progress).text(/^Replay cancelled after 0 of 40: 0 succeeded, 0 failed\.\s*×$/);
  const [job] = (await sb.api('/api/v1/webhooks/dlq-replays')).body.data;
  assert.equal(job.state, 'cancelled');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(receiver.received.length, 10, 'ten were in flight; none started after Cancel');

  // Another sandbox's replay, started from the API (or the CLI), is picked up when its DLQ opens.
  const other = await createSandbox(engine.url);
  const otherEndpoint = await registerEndpoint(other, receiver.url, ['order.placed']);
  await insertDeliveries(engine.running.services.db, other.id, 15, {
    status: 'dead',
    endpointId: otherEndpoint.id,
    prefix: 'other',
  });
  const started = await other.api('/api/v1/webhooks/dlq/replay', { method: 'POST' });
  assert.equal(started.status, 202);
  await page.goto(`${engine.url}/sandboxes/${other.id}/dlq`);
  await expect(page.getByTestId('dlq-replay')).text(/^Replaying 0 of 15/);
  await expect(page.getByRole('button', { name: 'Replay all' })).attribute('disabled', '');
  assert.deepEqual(page.errors, []);
});
