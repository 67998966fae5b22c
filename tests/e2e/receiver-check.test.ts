import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startTestReceiver, type TestReceiver } from '../helpers/check-receivers.ts';
import { useEngine } from '../helpers/engine.ts';
import { adminSandbox } from './admin-sandbox.ts';
import { expect } from './expect.ts';
import { screenshot, useBrowser } from './browser.ts';

// Check receiver in the inspector: live progress, the scored table with cause and fix, a link
// from a case to its delivery, and the last runs as the receiver gets fixed; chaos on the endpoint.

const engine = useEngine();
const browser = useBrowser();
const receivers: TestReceiver[] = [];
after(async () => {
  for (const r of receivers) await r.close();
});

test('Check receiver scores the endpoint, links each case to its delivery, and keeps the last runs', async () => {
  const { id: sandboxId, admin, addEndpoint, link } = await adminSandbox(engine);
  const endpoint = await addEndpoint('http://127.0.0.1:9/hook');
  const broken = await startTestReceiver(endpoint.secret, 'skips-timestamp');
  const fixed = await startTestReceiver(endpoint.secret);
  receivers.push(broken, fixed);
  await admin(`/api/v1/webhooks/endpoints/${endpoint.id}`, { method: 'PATCH', body: { url: broken.url } });

  const page = await browser.newPage();
  await page.goto(link('endpoints'));
  const card = page.locator(`li[data-endpoint-id="${endpoint.id}"]`);
  await card.getByRole('button', { name: `Check receiver ${broken.url}` }).click();
  const report = card.getByTestId('check-report');
  await expect(report).attribute('data-status', 'finished');
  await expect(card.getByTestId('check-score')).text('13/15 passed');
  const stale = card.locator('tr[data-case="stale-timestamp"]');
  assert.equal(await stale.getAttribute('data-ok'), 'false');
  assert.match(
    await stale.innerText(),
    /Cause Accepted a correctly signed request whose t is 10 minutes old[\s\S]*Fix Reject a signature whose t is more than 300 s/,
  );
  assert.equal(await card.locator('tr[data-ok="true"]').count(), 13);
  await screenshot(page, 'receiver-check');

  await admin(`/api/v1/webhooks/endpoints/${endpoint.id}`, { method: 'PATCH', body: { url: fixed.url } });
  await page.reload();
  await card.getByRole('button', { name: `Check receiver ${fixed.url}` }).click();
  await expect(card.getByTestId('check-score')).text('15/15 passed');
  const runs = card.getByLabel('Last runs').getByRole('button');
  assert.deepEqual(await runs.allInnerTexts(), ['15/15', '13/15']);
  await runs.nth(1).click();
  await expect(card.getByTestId('check-score')).text('13/15 passed');

  await card.locator('tr[data-case="stale-timestamp"]').getByRole('link', { name: 'delivery' }).click();
  await expect(page.getByText('check · stale-timestamp')).visible();
  assert.match(page.url(), new RegExp(`/sandboxes/${sandboxId}/deliveries/dlv_\\w+$`));
  // The list leaves a check's probes out unless asked for; shown, they are marked as such, so they are not
  // taken for real events (the newest rows: the older run's probes sit below the grid's rendered window).
  await expect(page.locator('[data-delivery-id]')).count(0);
  await page.getByRole('checkbox', { name: 'Check probes' }).check();
  const probe = page
    .locator('[data-delivery-id]')
    .filter({ has: page.getByTestId('check-tag') })
    .first();
  await expect(probe.getByTestId('check-tag')).text('check');
  assert.equal(await probe.getAttribute('title'), null);
  assert.match(
    (await probe.locator('.c-topic').getAttribute('title')) ?? '',
    /^Sent by the receiver check, case [a-z0-9-]+$/,
  );
  assert.deepEqual(page.errors, []);
});

test("a built-in catcher's card says the check is for your own receiver (a catcher answers what you chose, whatever the signature)", async () => {
  const { admin, addEndpoint, link } = await adminSandbox(engine);
  const catcher = (await admin('/api/v1/catchers/demo', { method: 'PUT', body: {} })).body;
  const caught = await addEndpoint(catcher.url, ['*']);
  const own = await addEndpoint('http://127.0.0.1:9/hook', ['*']);
  const page = await browser.newPage();
  await page.goto(link('endpoints'));
  await expect(page.locator(`li[data-endpoint-id="${caught.id}"]`).getByTestId('check-catcher-note')).text(
    /built-in catcher: it answers what you chose/,
  );
  await expect(
    page.locator(`li[data-endpoint-id="${own.id}"]`).getByRole('button', { name: /^Check receiver/ }),
  ).visible();
  await expect(page.locator(`li[data-endpoint-id="${own.id}"]`).getByTestId('check-catcher-note')).count(0);
  assert.deepEqual(page.errors, []);
});

test('chaos is set on the endpoint form and shown on the card', async () => {
  const { admin, link } = await adminSandbox(engine);
  const page = await browser.newPage();
  await page.goto(link('endpoints'));
  await page.getByRole('button', { name: 'Add endpoint' }).first().click();
  await page.getByLabel('Endpoint URL').fill('http://127.0.0.1:9/hook');
  await page.getByLabel('All order topics').check();
  await page.getByText('Chaos (off): inject the faults real senders cause').click();
  await page.getByLabel('Duplicate %').fill('20');
  await page.getByLabel('Reorder window (ms)').fill('5000');
  await page.getByLabel('Seed').fill('7');
  await page.getByRole('button', { name: 'Create endpoint' }).click();
  await expect(page.locator('li.endpoint').getByText('on (seed 7)')).visible();
  const list = await admin('/api/v1/webhooks/endpoints');
  assert.deepEqual(list.body.data[0].chaos, { duplicateRate: 0.2, reorderWindowMs: 5000, delayMs: 0, seed: 7 });
  const chaos = page.locator('li.endpoint').getByTestId('chaos');
  await chaos.locator('summary').click();
  // A percentage is judged as one, in the form's own words (not the API's 0–1 rate); the endpoint keeps its chaos.
  await chaos.getByLabel('Duplicate %').fill('250');
  await expect(chaos.locator('.field-error')).text('A percentage from 0 to 100.');
  await chaos.getByRole('button', { name: 'Save chaos' }).click();
  await expect(page.locator('li.endpoint').getByText('on (seed 7)')).visible();
  await chaos.getByLabel('Duplicate %').fill('20');
  await chaos.getByRole('button', { name: 'Turn off' }).click();
  await expect(chaos.locator('summary')).text('Chaos: off');
  assert.deepEqual(page.errors, []);
});

test('a receiver that rejects correct deliveries: the root cause once, the cases it blocks greyed as not scored', async () => {
  const { admin, addEndpoint, link } = await adminSandbox(engine);
  const endpoint = await addEndpoint('http://127.0.0.1:9/hook');
  const broken = await startTestReceiver(endpoint.secret, 'strips-prefix');
  receivers.push(broken);
  await admin(`/api/v1/webhooks/endpoints/${endpoint.id}`, { method: 'PATCH', body: { url: broken.url } });

  const page = await browser.newPage();
  await page.goto(link('endpoints'));
  const card = page.locator(`li[data-endpoint-id="${endpoint.id}"]`);
  await card.getByRole('button', { name: `Check receiver ${broken.url}` }).click();
  await expect(card.getByTestId('check-report')).attribute('data-status', 'finished');
  await expect(card.getByTestId('check-score')).text('0/15 passed');
  const root = card.getByTestId('check-root-cause');
  assert.match(
    await root.innerText(),
    /Root cause \(valid\): Your receiver rejects correctly signed deliveries .* without its whsec_ prefix[\s\S]*Not scored until valid passes: tampered-body, wrong-secret/,
  );
  assert.equal(await card.locator('tr[data-status="blocked"]').count(), 14);
  assert.match(await card.locator('tr[data-case="tampered-body"]').innerText(), /Not scored: blocked by valid/);
  assert.equal(await card.locator('tr[data-status="passed"]').count(), 0, 'no refusal counts as a pass');
  assert.equal(await card.getByText('Fix', { exact: true }).count(), 1, 'the fix is given once, on valid');
  await screenshot(page, 'receiver-check-blocked');
  assert.deepEqual(page.errors, []);
});

test("the doctor reads the receiver's Sandbay-Echo by itself: what it verified, and the fix in its language", async () => {
  const { admin, addEndpoint, link } = await adminSandbox(engine);
  const endpoint = await addEndpoint('http://127.0.0.1:9/hook');
  const broken = await startTestReceiver(endpoint.secret, 'secret-with-newline', 'echoes');
  receivers.push(broken);
  await admin(`/api/v1/webhooks/endpoints/${endpoint.id}`, { method: 'PATCH', body: { url: broken.url } });
  const sent = await admin('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: endpoint.id } });

  const page = await browser.newPage();
  await page.goto(link(`deliveries/${sent.body.deliveryId}`));
  await expect(page.getByTestId('slot-1')).attribute('data-state', 'failed');
  await page.getByRole('tab', { name: 'Receiver doctor' }).click();
  const echo = page.getByTestId('echo-diagnosis');
  await expect(echo.locator('[data-code="secret_whitespace"]')).visible();
  assert.match(
    await echo.innerText(),
    /Its secret ends with a newline[\s\S]*Fix In Node\.js: createHmac\('sha256', secret\) with the whole whsec_… string/,
  );
  await screenshot(page, 'doctor-echo');
  assert.deepEqual(page.errors, []);
});
