import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { expect } from './expect.ts';
import { call, useEngine } from '../helpers/engine.ts';
import { screenshot, useBrowser } from './browser.ts';
import { inspectorUrl } from './admin-sandbox.ts';

// One journey through the inspector, as a user would take it (issue 4's acceptance walk):
// portal → catcher endpoint → live test webhook → signature check → failing retries fast-
// forwarded into the DLQ → replay → reset. Each step builds on the previous one's sandbox.

const engine = useEngine();
const browser = useBrowser();
let page: Awaited<ReturnType<typeof browser.newPage>>;
let sandboxId = '';
let catcherName = '';

const admin = (path: string, init: { method?: string; body?: unknown } = {}) =>
  call(engine.url, path, { ...init, token: engine.running.adminKey, headers: { 'sandbay-sandbox': sandboxId } });

test('the portal creates a sandbox in one click and shows its credentials', async () => {
  page = await browser.newPage();
  await page.goto(inspectorUrl(engine, '/portal/sandbox'));
  assert.equal(new URL(page.url()).search, '', 'the key leaves the address bar');
  await expect(page.getByRole('heading', { name: 'No sandbox yet' })).visible();
  await page.getByRole('button', { name: 'Create sandbox' }).click();
  const credentials = page
    .getByRole('region', { name: /Sandbox / })
    .or(page.locator('[aria-labelledby="creds-title"]'));
  await expect(credentials.getByText('Client ID')).visible();
  sandboxId = await page.getByRole('combobox', { name: 'Sandbox' }).inputValue();
  assert.match(sandboxId, /^sbx_/);
  const secret = page.locator('[aria-labelledby="creds-title"] code[data-secret]').first();
  assert.equal(await secret.getAttribute('data-secret'), 'masked', 'secrets are masked until asked');
  await expect(credentials.getByText('shown this once: keep it now')).visible();
  await expect(credentials.getByTestId('client-secret-hint')).count(0);
  assert.match(
    await page.getByTestId('curl-example').innerText(),
    /curl -s http:\/\/127\.0\.0\.1:\d+\/api\/v1\/orders/,
  );
  const cards = page.locator('[aria-labelledby="cards-title"]');
  await expect(cards.getByText('4242 4242 4242 4242')).visible();
  await expect(cards.getByText('3-D Secure challenge on every payment').first()).visible();
  await screenshot(page, 'portal');
});

test('a built-in catcher becomes an endpoint; bad input gets inline messages', async () => {
  await page.getByRole('link', { name: 'Endpoints' }).click();
  await expect(page.getByRole('heading', { name: 'No endpoints yet' })).visible();
  await page.getByRole('button', { name: 'Add endpoint' }).first().click();
  await page.getByLabel('Endpoint URL').fill('localhost:3000/hooks');
  await page.getByRole('button', { name: 'Create endpoint' }).click();
  await expect(page.getByText('Only http and https receivers are supported')).visible();
  await expect(page.getByText('Pick at least one topic')).visible();
  await page.getByLabel('All payout topics').check();
  await page.getByLabel('order.placed').check();
  await expect(page.getByText('Pick at least one topic')).count(0);
  // The find box narrows the picker; a name no topic has gets the API's "did you mean", by meaning too.
  const find = page.getByLabel('Find a topic');
  await find.fill('refund');
  await expect(page.locator('.topic-picker label.topic')).count(1);
  await find.fill('payment.succeeded');
  await expect(page.locator('.topic-find [role=status]')).text(
    'No topic is called payment.succeeded. Did you mean payment.captured?',
  );
  await page.locator('.topic-find').getByRole('button', { name: 'payment.captured' }).click();
  assert.equal(await find.inputValue(), '', 'picking a suggestion clears the find box');
  assert.ok(await page.getByLabel('payment.captured').isChecked());
  await screenshot(page, 'endpoint-form');
  await page.getByRole('button', { name: 'Cancel' }).click();

  await page.getByRole('button', { name: 'Create catcher' }).click();
  const card = page.locator('li.catcher');
  await expect(card).visible();
  catcherName = (await card.getAttribute('data-catcher'))!;
  assert.equal(catcherName, 'demo', "names are the sandbox's own, so every sandbox starts with demo");
  await expect(card.getByText(`${engine.url}/catch/${sandboxId}/demo`, { exact: true })).visible();
  await card.getByRole('button', { name: 'Register as endpoint' }).click();
  await expect(page.locator('li.endpoint')).visible();
  const endpoints = await admin('/api/v1/webhooks/endpoints');
  assert.deepEqual(
    endpoints.body.data.map((e: any) => [e.url, e.topics]),
    [[`${engine.url}/catch/${sandboxId}/${catcherName}`, ['*']]],
  );
  assert.match(
    await page.locator('li.endpoint code[data-secret]').innerText(),
    /•/,
    'the new endpoint lists its secret masked',
  );
  await screenshot(page, 'endpoints');
});

test('a test webhook appears live in the open deliveries view', async () => {
  await page.getByRole('link', { name: 'Deliveries' }).click();
  await expect(page.getByRole('heading', { name: 'No deliveries yet' })).visible();
  await expect(page.getByTestId('connection')).text('Live');
  const endpoint = (await admin('/api/v1/webhooks/endpoints')).body.data[0];
  const sent = await admin('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: endpoint.id } });
  const row = page.locator(`[data-delivery-id="${sent.body.deliveryId}"]`);
  await expect(row).visible();
  await expect(row.locator('.badge')).text('succeeded');
  await page.getByRole('grid', { name: 'Deliveries, newest first' }).focus();
  await page.keyboard.press('ArrowDown'); // the keyboard opens the first delivery
  await expect(page.getByRole('heading', { name: sent.body.deliveryId })).visible();
  assert.match(page.url(), new RegExp(`/sandboxes/${sandboxId}/deliveries/${sent.body.deliveryId}$`));
  await expect(page.getByTestId('slot-1')).attribute('data-state', 'succeeded');
  await screenshot(page, 'deliveries');
});

test("the signature breakdown's HMAC is the one we compute ourselves", async () => {
  await page.getByRole('tab', { name: 'Signature' }).click();
  const id = page.url().split('/').at(-1)!;
  const delivery = (await admin(`/api/v1/webhooks/deliveries/${id}`)).body;
  const [{ secret }] = (await admin(`/api/v1/webhooks/endpoints/${delivery.endpointId}/secrets`)).body.data;
  const header = delivery.attempts[0].signatureHeader as string;
  const t = /t=(\d+)/.exec(header)![1];
  const ours = createHmac('sha256', secret).update(`${t}.${delivery.rawBody}`, 'utf8').digest('hex');
  await expect(page.getByTestId('recomputed-hmac')).text(ours);
  await expect(page.getByTestId('sig-v1-value')).text(ours);
  await expect(page.getByTestId('sig-v1-match')).text(/matches secret 1/);
  assert.equal(await page.getByTestId('sig-timestamp').innerText(), t);
  assert.equal(await page.getByTestId('signed-string').innerText(), `${t}.${delivery.rawBody}`);
  await expect(page.getByTestId('byte-count')).text(
    new RegExp(`= ${Buffer.byteLength(`${t}.${delivery.rawBody}`)} bytes`),
  );
  assert.equal(
    (await page.locator('[data-testid="recomputed"] code[data-secret]').innerText()) !== secret,
    true,
    'the secret stays masked',
  );
  await screenshot(page, 'signature');

  await page.getByRole('button', { name: 'Copy as curl' }).click();
  const command = await page.getByTestId('curl-command').innerText();
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  assert.doesNotMatch(command, new RegExp(secret), 'the command carries a signature, never the secret');
  await promisify(execFile)('sh', ['-c', `${command} -s -o /dev/null`]);
  const [caught] = (await admin(`/api/v1/catchers/${catcherName}/requests`)).body.data;
  assert.equal(caught.body, delivery.rawBody);
  assert.deepEqual(
    [caught.verification.verified, caught.verification.deliveryId],
    [true, id],
    'the re-signed curl verifies at the receiver',
  );

  await page.getByRole('tab', { name: 'Receiver doctor' }).click();
  await page.getByLabel('Body your receiver verified').fill(JSON.stringify(JSON.parse(delivery.rawBody), null, 2));
  await page.getByLabel('X-Service-Signature header').fill(header);
  await page.getByLabel('Secret', { exact: true }).fill(secret);
  await page.getByRole('button', { name: 'Diagnose' }).click();
  await expect(page.locator('[data-code="reserialised_json"]')).visible();
  assert.equal(await page.getByTestId('diagnosis').getAttribute('data-verified'), 'false');
  await page.locator('[data-code="reserialised_json"]').scrollIntoViewIfNeeded();
  await screenshot(page, 'doctor');
});

test('a failing catcher is fast-forwarded through the retry timeline into the DLQ', async () => {
  await page.getByRole('link', { name: 'Endpoints' }).click();
  await page.locator('li.catcher').getByLabel('Answer with').selectOption('500');
  await expect(page.locator('li.catcher').getByLabel('Answer with')).value('500');
  await page
    .locator('li.endpoint')
    .getByRole('button', { name: /Send test webhook to/ })
    .click();
  await page.getByRole('link', { name: 'Open delivery' }).click();
  await expect(page.getByTestId('slot-1')).attribute('data-state', 'failed');
  for (let slot = 2; slot <= 5; slot++) {
    await expect(page.getByTestId(`slot-${slot}`)).attribute('data-state', 'scheduled');
    await page.getByRole('button', { name: 'Fast-forward to next attempt' }).click();
    await expect(page.getByTestId(`slot-${slot}`)).attribute('data-state', 'failed');
  }
  await expect(page.getByTestId('slot-dlq')).attribute('data-state', 'reached');
  await expect(page.locator('.detail .pane-head .badge')).text('dead');
  await screenshot(page, 'timeline-dlq');
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, 'timeline-dlq-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  const id = page.url().split('/').at(-1)!;
  const delivery = (await admin(`/api/v1/webhooks/deliveries/${id}`)).body;
  assert.deepEqual(
    delivery.attempts.map((a: any) => a.responseStatus),
    [500, 500, 500, 500, 500],
  );
});

test('the DLQ replays the dead delivery to success once the receiver is fixed', async () => {
  await page.getByRole('link', { name: 'Endpoints' }).click();
  await page.locator('li.catcher').getByLabel('Answer with').selectOption('200');
  await expect(page.locator('li.catcher').getByLabel('Answer with')).value('200');
  await page.getByRole('link', { name: 'DLQ' }).click();
  const rows = page.locator('[data-delivery-id]');
  await expect(rows).count(1);
  const id = await rows.first().getAttribute('data-delivery-id');
  await screenshot(page, 'dlq');
  await page.getByRole('button', { name: 'Replay all' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Replay all' }).click();
  await expect(page.getByText('Replayed 1: 1 succeeded, 0 failed.')).visible();
  await expect(page.getByRole('heading', { name: 'The dead-letter queue is empty' })).visible();
  const delivery = (await admin(`/api/v1/webhooks/deliveries/${id}`)).body;
  assert.equal(delivery.status, 'succeeded');
  assert.equal(delivery.attempts.at(-1).trigger, 'replay');
});

test('a reset, confirmed, empties the delivery log and keeps the endpoint', async () => {
  await page.getByRole('link', { name: 'Clock & reset' }).click();
  await page.getByRole('button', { name: 'Reset sandbox…' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Reset', exact: true }).click();
  await expect(page.getByText(/^Reset in [\d.]+ ms/)).visible();
  await page.getByRole('link', { name: 'Deliveries' }).click();
  await expect(page.getByRole('heading', { name: 'No deliveries yet' })).visible();
  assert.equal((await admin('/api/v1/webhooks/deliveries')).body.data.length, 0);
  assert.equal((await admin('/api/v1/webhooks/endpoints')).body.data.length, 1);
  assert.deepEqual(page.errors, [], 'no uncaught errors in the page');
});
