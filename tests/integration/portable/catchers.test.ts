// A demo carried to another Sandbay: endpoints and test webhooks aimed at the sandbox's own built-in
// catchers must reach the imported sandbox's catchers there, not the original sandbox (on the server
// the file came from, which may be another laptop, or on this one, where it is another sandbox).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../../src/server/start.ts';
import { createSandbox, sandboxFrom, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { exportBytes, importBytes } from '../../helpers/portable.ts';
import { advance, delivery, placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

const engine = useEngine();
let other: RunningSandbox;

before(async () => {
  other = await startSandbox({ memory: true, port: 0, logRequests: false });
});
after(async () => {
  await other?.close();
});

const requestsOf = async (sb: TestSandbox, name: string) =>
  (await sb.api(`/api/v1/catchers/${name}/requests?limit=100`)).body.data.length;

test("an imported sandbox's endpoints and pending test webhooks aimed at its own catchers reach its catchers on the importing server", async () => {
  const source = await createSandbox(engine.url, 'Catcher demo');
  const catcher = (await source.api('/api/v1/catchers/demo', { method: 'PUT', body: { status: 500 } })).body;
  assert.equal(catcher.url, `${engine.url}/catch/${source.id}/demo`);
  const endpoint = await registerEndpoint(source, catcher.url, ['order.*']);
  const order = await placeOrder(source);
  const test = (
    await source.api('/api/v1/webhooks/test', {
      body: { topic: 'payment.captured', endpoint: `${catcher.url}?from=test` },
    })
  ).body;
  const pending = (await source.api(`/api/v1/webhooks/deliveries?search=${order.id}`)).body.data[0];
  for (const id of [pending.id, test.deliveryId]) await waitForDelivery(source, id, (d) => d.attemptCount === 1);
  const sourceRequests = await requestsOf(source, 'demo');
  assert.equal(sourceRequests, 2);

  const res = await importBytes(other.url, await exportBytes(engine.url, source, 'includeSecrets=true'));
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const imported = sandboxFrom(other.url, res.body);
  const own = `${other.url}/catch/${imported.id}/demo`;
  assert.equal((await imported.api(`/api/v1/webhooks/endpoints/${endpoint.id}`)).body.url, own);
  assert.equal(
    (await delivery(imported, test.deliveryId)).url,
    `${own}?from=test`,
    'a test webhook to the bare catcher URL too, query kept',
  );
  const history = await delivery(imported, pending.id);
  assert.equal(history.attempts[0].url, catcher.url, 'a recorded attempt keeps the URL it was sent to');

  // The retries fall due on the imported sandbox's clock and land in its own catcher, none in the original's.
  await advance(imported, 31);
  for (const id of [pending.id, test.deliveryId]) {
    const retried = await waitForDelivery(imported, id, (d) => d.attemptCount === 2);
    assert.equal(retried.attempts[1].url.startsWith(own), true, retried.attempts[1].url);
    assert.equal(retried.attempts[1].responseStatus, 500, 'answered by the imported catcher (status 500, as exported)');
  }
  assert.equal(await requestsOf(imported, 'demo'), sourceRequests + 2);
  assert.equal(await requestsOf(source, 'demo'), sourceRequests, 'the original sandbox heard nothing of the copy');
});
