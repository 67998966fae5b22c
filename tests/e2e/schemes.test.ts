// The inspector with signing schemes (SPEC §11) and a receiver's answers (SPEC §5.3): an endpoint
// with all three schemes, its public key, the Standard Webhooks breakdown, a 410 that disables the
// endpoint and one click that turns it back on, a Retry-After on the timeline, your own test data,
// and Copy as curl signed by the engine.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { expect } from './expect.ts';
import { ed25519Accepts } from '../helpers/ed25519.ts';
import { createSandbox, useEngine, type TestSandbox } from '../helpers/engine.ts';
import { Receiver } from '../helpers/receiver.ts';
import { advance, placeOrder, registerEndpoint, waitForDelivery } from '../helpers/webhooks.ts';
import { screenshot, useBrowser } from './browser.ts';
import { inspectorUrl } from './admin-sandbox.ts';

const engine = useEngine();
const browser = useBrowser();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());
let page: Awaited<ReturnType<typeof browser.newPage>>;
let sb: TestSandbox;
let endpoint: any;
let goneId = '';

const escape = (text: string) => text.replace(/[+/=]/g, '\\$&');
const open = (path: string) => page.goto(inspectorUrl(engine, path));

test('an endpoint answered 410 shows it is disabled, why and since when; one click enables it', async () => {
  sb = await createSandbox(engine.url);
  endpoint = await registerEndpoint(sb, receiver.url, ['order.placed'], {
    signature: ['sandbay', 'standard-webhooks', 'standard-webhooks-ed25519'],
  });
  receiver.behaviour = { kind: 'status', status: 410 };
  await placeOrder(sb);
  await receiver.waitFor(1);
  goneId = String(receiver.received[0].headers['webhook-id']);
  await waitForDelivery(sb, goneId, (d) => d.paused !== null);

  page = await browser.newPage();
  await open(`/sandboxes/${sb.id}/endpoints`);
  const card = page.locator(`li[data-endpoint-id="${endpoint.id}"]`);
  await expect(card.getByTestId('endpoint-disabled')).text(/410 Gone to delivery dlv_\w+/);
  for (const scheme of ['sandbay', 'standard-webhooks', 'standard-webhooks-ed25519']) {
    assert.equal(
      await card
        .getByTestId('scheme-picker')
        .getByRole('checkbox', { name: new RegExp(`^${scheme} `) })
        .isChecked(),
      true,
      scheme,
    );
  }
  await expect(card.getByTestId('public-key')).text(new RegExp(endpoint.publicKey.replace(/[+/]/g, '\\$&')));
  await screenshot(page, 'endpoint-schemes');
  // Unticking a scheme is a PATCH (the box follows once it answers, so a click, not Playwright's check()).
  await card
    .getByTestId('scheme-picker')
    .getByRole('checkbox', { name: /^sandbay / })
    .click();
  const signatureNow = async () =>
    (await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}`)).body.signature as string[];
  for (let i = 0; i < 100 && (await signatureNow()).includes('sandbay'); i++)
    await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(await signatureNow(), ['standard-webhooks', 'standard-webhooks-ed25519']);
  const sandbayBox = card.getByTestId('scheme-picker').getByRole('checkbox', { name: /^sandbay / });
  for (let i = 0; i < 100 && (await sandbayBox.isChecked()); i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(await sandbayBox.isChecked(), false, 'the page shows what the API answered');
  await sandbayBox.click();
  for (let i = 0; i < 100 && !(await signatureNow()).includes('sandbay'); i++)
    await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(await signatureNow(), ['sandbay', 'standard-webhooks', 'standard-webhooks-ed25519']);

  await open(`/sandboxes/${sb.id}/deliveries/${goneId}`);
  await expect(page.getByTestId('delivery-paused')).text(
    /endpoint whe_\w+ is disabled \(its receiver answered 410 Gone\)/,
  );
  await expect(page.getByTestId('schedule-note')).text('410 Gone: endpoint disabled');
  // Paused is not due: the next slot waits, no countdown runs, and the list says so too.
  await expect(page.getByTestId('slot-2')).attribute('data-state', 'waiting');
  await expect(page.getByTestId('slot-2')).text(/waiting: endpoint disabled/);
  await expect(page.getByTestId('detail-next')).count(0);
  await expect(page.getByRole('button', { name: /^(Retry now|Fast-forward to next attempt)$/ })).count(0);
  await expect(page.locator(`[data-delivery-id="${goneId}"] .c-next`)).text('paused');
  receiver.behaviour = { kind: 'status', status: 200 };
  await page.getByRole('button', { name: 'Enable endpoint' }).click();
  await expect(page.getByTestId('delivery-paused')).count(0);
  const enabled = (await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}`)).body;
  assert.deepEqual([enabled.enabled, enabled.disabled], [true, null]);
  // Enabled, the delivery keeps its place in the retry schedule: its second attempt was due 30 s after the 410.
  await advance(sb, 31);
  await waitForDelivery(sb, goneId, (d) => d.status === 'succeeded');
  assert.deepEqual(page.errors, []);
});

test("the signature tab takes every scheme apart: v1 and v1a matched to their keys, beside Sandbay's header", async () => {
  await open(`/sandboxes/${sb.id}/deliveries/${goneId}`);
  await page.getByRole('tab', { name: 'Signature' }).click();
  await expect(page.getByTestId('attempt-schemes')).text(
    'signed with sandbay + standard-webhooks + standard-webhooks-ed25519',
  );
  await expect(page.getByTestId('sig-v1-match')).text(/matches secret 1/);
  await expect(page.getByTestId('sw-id')).text(goneId);
  const matches = page.getByTestId('sw-signature-match');
  // Which key matched, told apart as the endpoint card and the secrets table show them.
  await expect(matches.nth(0)).text(
    new RegExp(
      `base64 HMAC-SHA256 · ✓ secret 1 \\(current: ${endpoint.secret.slice(0, 6)}•+${escape(endpoint.secret.slice(-4))}\\)`,
    ),
  );
  await expect(matches.nth(1)).text(
    new RegExp(`base64 ed25519 · ✓ public key 1 \\(current: ${escape(endpoint.publicKey.slice(0, 14))}…\\)`),
  );
  const delivery = (await sb.api(`/api/v1/webhooks/deliveries/${goneId}`)).body;
  const last = delivery.attempts.at(-1);
  assert.equal(
    await page.getByTestId('sw-signed-string').innerText(),
    `${goneId}.${last.signatureHeaders['webhook-timestamp']}.${delivery.rawBody}`,
  );
  await screenshot(page, 'signature-standard-webhooks');
});

test('Copy as curl is signed by the engine in every scheme; the command verifies at the receiver, ed25519 included', async () => {
  await page.getByRole('button', { name: 'Copy as curl' }).click();
  const command = await page.getByTestId('curl-command').innerText();
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  assert.doesNotMatch(command, /whsk_|whsec_/, 'signatures only, never a key');
  const before = receiver.received.length;
  await promisify(execFile)('sh', ['-c', `${command} -s -o /dev/null`]);
  const got = receiver.received[before];
  const headers = Object.fromEntries(Object.entries(got.headers).map(([k, v]) => [k, String(v)]));
  assert.ok(new Webhook(endpoint.secret).verify(got.body, headers));
  assert.ok(ed25519Accepts(endpoint.publicKey, headers, got.body));
});

test('a Retry-After shows on the retry timeline with what it did', async () => {
  receiver.behaviour = { kind: 'status', status: 429, headers: { 'retry-after': '600' } };
  await placeOrder(sb);
  const [latest] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
  await waitForDelivery(sb, latest.id, (d) => d.attemptCount === 1);
  await open(`/sandboxes/${sb.id}/deliveries/${latest.id}`);
  await expect(page.getByTestId('schedule-note')).text('Retry-After 600 s → next attempt 10 min later');
  await expect(page.getByTestId('slot-2')).attribute('data-state', 'scheduled');
  // A second answer's note has a line of its own below the track, readable beside the first.
  receiver.behaviour = { kind: 'status', status: 503, headers: { 'retry-after': '7200' } };
  await advance(sb, 600);
  await waitForDelivery(sb, latest.id, (d) => d.attemptCount === 2);
  const notes = page.getByTestId('schedule-note');
  await expect(notes).count(2);
  await expect(notes.nth(1)).text('Retry-After 7200 s → next attempt 1 h later (capped at 1 h)');
  const [a, b] = [await notes.nth(0).boundingBox(), await notes.nth(1).boundingBox()];
  const overlap =
    a!.x < b!.x + b!.width && b!.x < a!.x + a!.width && a!.y < b!.y + b!.height && b!.y < a!.y + a!.height;
  assert.equal(overlap, false, `the notes overlap: ${JSON.stringify([a, b])}`);
  await screenshot(page, 'timeline-retry-after');
  receiver.behaviour = { kind: 'status', status: 200 };
});

test('the test webhook form sends your own data; data that breaks the topic schema is refused under the data field, naming the path', async () => {
  await open(`/sandboxes/${sb.id}/endpoints`);
  const form = page.locator('form[aria-labelledby="test-title"]');
  await form.getByLabel('Endpoint id or URL').fill(endpoint.id);
  await form.getByLabel('Your data (optional)').fill('{"total": "lots"}');
  await form.getByRole('button', { name: 'Send test webhook' }).click();
  // Said under the data it is about; the endpoint it goes to is fine.
  await expect(form.locator('.field-error')).text(/\/data\/total: .*expected number/);
  await expect(form.getByLabel('Your data (optional)')).attribute('aria-invalid', 'true');
  assert.equal(await form.getByLabel('Endpoint id or URL').getAttribute('aria-invalid'), null);
  await form.getByLabel('Your data (optional)').fill('{"total": 10.5, "giftNote": "Kolay gelsin"}');
  const before = receiver.received.length;
  await form.getByRole('button', { name: 'Send test webhook' }).click();
  await receiver.waitFor(before + 1);
  const body = JSON.parse(receiver.received[before].body);
  assert.deepEqual([body.type, body.data.total, body.data.giftNote], ['order.placed', 10.5, 'Kolay gelsin']);
  assert.deepEqual(page.errors, []);
});

test('the receiver doctor reads Standard Webhooks headers and a public key, and names a re-serialised body', async () => {
  const ed = await registerEndpoint(sb, receiver.url, ['order.cancelled'], { signature: 'standard-webhooks-ed25519' });
  const order = await placeOrder(sb);
  await sb.api(`/api/v1/orders/${order.id}/cancel`, { method: 'POST' });
  const [d] = (await sb.api(`/api/v1/webhooks/deliveries?endpointId=${ed.id}`)).body.data;
  const delivery = await waitForDelivery(sb, d.id, (x) => x.attemptCount === 1);
  await open(`/sandboxes/${sb.id}/deliveries/${d.id}`);
  await page.getByRole('tab', { name: 'Receiver doctor' }).click();
  await page.getByRole('button', { name: 'Fill with what Sandbay sent' }).click();
  assert.match(
    await page.getByLabel('Standard Webhooks headers').inputValue(),
    new RegExp(`^webhook-id: ${d.id}\nwebhook-timestamp: \\d+\nwebhook-signature: v1a,`),
  );
  await page.getByLabel('Secret or public key').fill(ed.publicKey);
  await page.getByRole('button', { name: 'Diagnose' }).click();
  await expect(page.getByTestId('diagnosis')).attribute('data-verified', 'true');
  await page.getByLabel('Body your receiver verified').fill(JSON.stringify(JSON.parse(delivery.rawBody), null, 2));
  await page.getByRole('button', { name: 'Diagnose' }).click();
  await expect(page.getByTestId('diagnosis')).attribute('data-verified', 'false');
  await expect(page.locator('.finding[data-code="reserialised_json"]')).visible();
  assert.deepEqual(page.errors, []);
});
