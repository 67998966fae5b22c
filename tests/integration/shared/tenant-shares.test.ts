import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { outboundPerSandbox, checksPerSandbox } from '../../../src/webhooks/outbound/shares.ts';
import { createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { operatorKey } from '../../helpers/session.ts';
import { waitForDelivery } from '../../helpers/webhooks.ts';
import { waitForCheck } from '../check/helpers.ts';

// Each sandbox's share of a shared server: ten checks at once, twenty requests in flight. The
// receivers are this test's, on loopback, which the operator lists.
const engine = useEngine({
  publicUrl: 'https://sandbay.example.com',
  adminKey: operatorKey,
  allowReceivers: ['127.0.0.1/32'],
  attemptTimeoutMs: 3000,
});
const hanging = new Receiver();
const answering = new Receiver();
before(async () => {
  await hanging.start();
  hanging.behaviour = { kind: 'hang' };
  await answering.start();
});
after(async () => {
  await hanging.close();
  await answering.close();
});

test("a sandbox's eleventh check at once is 429 too_many_checks with Retry-After; another sandbox is not held back", async () => {
  assert.equal(checksPerSandbox, 10);
  const sb = await createSandbox(engine.url, 'checker', operatorKey);
  const ids: string[] = [];
  for (let i = 0; i < checksPerSandbox; i++) {
    const started = await sb.api('/api/v1/webhooks/checks', {
      body: { url: `${hanging.url}?check=${i}`, secret: 'whsec_share' },
    });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    ids.push(started.body.id);
  }
  const eleventh = await sb.api('/api/v1/webhooks/checks', { body: { url: answering.url, secret: 'whsec_share' } });
  const body = problem(eleventh, 429, 'too_many_checks');
  assert.match(body.detail, /already runs 10 receiver checks at once/);
  assert.equal(eleventh.headers.get('retry-after'), '5');

  const other = await createSandbox(engine.url, 'neighbour', operatorKey);
  const theirs = await other.api('/api/v1/webhooks/checks', { body: { url: answering.url, secret: 'whsec_share' } });
  assert.equal(theirs.status, 202, 'the limit is per sandbox');

  await waitForCheck(sb, ids[0]);
  const again = await sb.api('/api/v1/webhooks/checks', { body: { url: answering.url, secret: 'whsec_share' } });
  assert.equal(again.status, 202, 'a slot is free once a check has finished');
  for (const id of [...ids, again.body.id]) await waitForCheck(sb, id);
});

test("a sandbox's requests in flight are capped at twenty; the rest wait their turn and go out after", async () => {
  assert.equal(outboundPerSandbox, 20);
  const sb = await createSandbox(engine.url, 'burst', operatorKey);
  const before = hanging.received.length;
  const burst = outboundPerSandbox + 5;
  const ids: string[] = [];
  // Distinct URLs: each its own target, so only the sandbox's share holds them back.
  for (let i = 0; i < burst; i++) {
    const sent = await sb.api('/api/v1/webhooks/test', {
      body: { topic: 'order.placed', endpoint: `${hanging.url}?burst=${i}` },
    });
    assert.equal(sent.status, 202);
    ids.push(sent.body.deliveryId);
  }
  await hanging.waitFor(before + outboundPerSandbox);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(hanging.received.length - before, outboundPerSandbox, 'twenty in flight, five waiting');

  const other = await createSandbox(engine.url, 'bystander', operatorKey);
  const theirs = await other.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: answering.url } });
  const delivered = await waitForDelivery(other, theirs.body.deliveryId, (d) => d.attempts.length === 1);
  assert.equal(delivered.attempts[0].responseStatus, 200, "another sandbox's delivery does not wait behind them");

  await hanging.waitFor(before + burst, 15_000);
  for (const id of ids) await waitForDelivery(sb, id, (d) => d.attempts.length === 1, 15_000);
});
