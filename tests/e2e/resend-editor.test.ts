// Edit and resend in the inspector (issue 31): the envelope's data in a JSON editor, checked against the
// topic's schema as you type, the diff to the original shown, then sent; the receiver gets the edited body,
// and original and resend link to each other.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { expect } from './expect.ts';
import { createSandbox, useEngine } from '../helpers/engine.ts';
import { independentlyVerify, Receiver } from '../helpers/receiver.ts';
import { delivery, placeOrder, registerEndpoint, waitForDelivery } from '../helpers/webhooks.ts';
import { screenshot, useBrowser } from './browser.ts';
import { inspectorUrl } from './admin-sandbox.ts';

const engine = useEngine();
const browser = useBrowser();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

test('the editor refuses what breaks the schema as you type, shows the diff, and sends the edit as a new delivery', async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, receiver.url, ['order.placed']);
  await placeOrder(sb);
  const [{ id }] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
  const original = await waitForDelivery(sb, id, (d) => d.status === 'succeeded');

  const page = await browser.newPage();
  await page.goto(inspectorUrl(engine, `/sandboxes/${sb.id}/deliveries/${id}`));
  await page.getByRole('button', { name: 'Edit and resend' }).click();
  const dialog = page.getByRole('dialog');
  const editor = dialog.getByTestId('resend-data');
  await expect(dialog.getByTestId('resend-valid')).visible();
  await expect(dialog.getByText('No change: it is resent with the data it had')).visible();

  const edited = { ...original.envelope.data, total: 'lots' };
  await editor.fill(JSON.stringify(edited, null, 2));
  await expect(dialog.getByTestId('resend-issues')).text(/\/data\/total\s+Invalid input: expected number/);
  assert.equal(await dialog.getByRole('button', { name: 'Send edited' }).isDisabled(), true);
  await editor.fill('{"total": ');
  await expect(dialog.getByText(/^Not JSON/)).visible();

  await editor.fill(JSON.stringify({ ...original.envelope.data, total: 0.01, note: 'from the editor' }, null, 2));
  await expect(dialog.getByTestId('resend-valid')).visible();
  const diff = dialog.getByTestId('resend-diff');
  await expect(diff.locator('tr.change-changed')).text(
    new RegExp(`/data/total\\s+${original.envelope.data.total}\\s+0\\.01`),
  );
  await expect(diff.locator('tr.change-added')).text(/\/data\/note\s+\(none\)\s+"from the editor"/);
  await screenshot(page, 'resend-editor');
  await dialog.getByRole('button', { name: 'Send edited' }).click();

  await expect(page.getByTestId('resent-from')).visible();
  const resentId = new URL(page.url()).pathname.split('/').pop()!;
  assert.notEqual(resentId, id);
  await expect(page.locator('dt', { hasText: 'Edited from' })).visible();
  await expect(page.getByTestId('resent-from')).text(id);
  await expect(page.getByTestId('resent-from-trace').locator('code')).text(original.traceId);

  const [, got] = await receiver.waitFor(2);
  assert.equal(got.headers['x-service-delivery-id'], resentId);
  assert.deepEqual(JSON.parse(got.body).data, { ...original.envelope.data, total: 0.01, note: 'from the editor' });
  assert.ok(independentlyVerify(String(got.headers['x-service-signature']), got.body, endpoint.secret));
  assert.equal((await delivery(sb, id)).rawBody, original.rawBody, 'the original is unchanged');

  await page.getByTestId('resent-from').getByRole('link').click();
  await expect(page.getByTestId('resent-as')).text(resentId);
  assert.deepEqual(page.errors, []);
});
