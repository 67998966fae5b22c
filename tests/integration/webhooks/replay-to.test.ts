// Replay to another URL (issue 31, docs/decisions/replay-to-another-url.md): the deliveries a filter names
// sent to a local receiver as new deliveries, signed as their endpoint (or with the webhook test secret),
// counted by their first attempt, listed and linked like any resend, retried like any delivery.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { DlqReplays } from '../../../src/webhooks/dlq-replay.ts';
import { createSandbox, problem, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { independentlyVerify, useReceivers, type Received } from '../../helpers/receiver.ts';
import {
  advance,
  delivery,
  placeOrder,
  registerEndpoint,
  waitForDelivery,
  waitForReplayJob,
} from '../../helpers/webhooks.ts';

const engine = useEngine();
const receiver = useReceivers();

const headersOf = (r: Received) => Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
const replay = (sb: TestSandbox, body: Record<string, unknown>) =>
  sb.api('/api/v1/webhooks/deliveries/replay', { body });

test("dead deliveries replayed --to a local receiver: new deliveries signed in the endpoint's schemes with its secret", async () => {
  const sb = await createSandbox(engine.url);
  const production = await receiver(500);
  const local = await receiver(200);
  const endpoint = await registerEndpoint(sb, production.url, ['order.placed'], {
    signature: ['sandbay', 'standard-webhooks'],
  });
  await placeOrder(sb);
  await placeOrder(sb);
  await production.waitFor(2);
  await advance(sb, 2 * 3600);
  const originals = (await sb.api('/api/v1/webhooks/deliveries?status=dead')).body.data.map((d: any) => d.id);
  assert.equal(originals.length, 2);
  const before = production.received.length;

  const preview = await replay(sb, { statuses: ['dead'], to: local.url, dryRun: true });
  assert.equal(preview.status, 200, JSON.stringify(preview.body));
  assert.equal(preview.body.filter.to, local.url);
  const started = await replay(sb, { statuses: ['dead'], to: local.url });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  const job = await waitForReplayJob(sb, started.body.id);
  assert.deepEqual([job.state, job.total, job.succeeded, job.failed], ['completed', 2, 2, 0]);
  assert.equal(job.filter.to, local.url);

  const got = await local.waitFor(2);
  assert.equal(production.received.length, before, "nothing went to the endpoint's own URL");
  const dead = await Promise.all(originals.map((id: string) => delivery(sb, id)));
  for (const original of dead) {
    assert.deepEqual([original.status, original.attempts.length], ['dead', 5], 'the original is left as it was');
    assert.equal(original.resentAs.length, 1, 'listed as resent, like any resend');
    const resent = await waitForDelivery(sb, original.resentAs[0], (d) => d.status === 'succeeded');
    assert.deepEqual([resent.endpointId, resent.signedAs], [null, endpoint.id]);
    assert.equal(resent.attempts[0].url, local.url);
    assert.equal(resent.eventId, original.eventId, 'the same event');
    assert.deepEqual(resent.resentFrom, {
      id: original.id,
      edited: false,
      traceId: original.traceId,
      spanId: original.attempts[4].traceparent.split('-')[2],
    });
    const request = got.find((r) => r.headers['x-service-delivery-id'] === resent.id)!;
    assert.ok(request, 'the receiver sees the new delivery id');
    assert.deepEqual(JSON.parse(request.body).data, original.envelope.data);
    assert.ok(independentlyVerify(String(request.headers['x-service-signature']), request.body, endpoint.secret));
    assert.ok(new StandardWebhook(endpoint.secret).verify(request.body, headersOf(request)));
    const curl = (await sb.api(`/api/v1/webhooks/deliveries/${resent.id}/signed-request`)).body;
    assert.equal(curl.url, local.url, '"Copy as curl" goes where the replay went, signed as the endpoint');
    assert.ok(independentlyVerify(curl.headers['x-service-signature'], curl.body, endpoint.secret));
  }
  const listed = (await sb.api('/api/v1/webhooks/deliveries?status=succeeded')).body.data.map((d: any) => d.id);
  assert.deepEqual(new Set(listed), new Set(dead.map((d) => d.resentAs[0])));
});

test('a new delivery whose first attempt another path made before the job did: counted by that attempt', async () => {
  const sb = await createSandbox(engine.url);
  const production = await receiver(500);
  const local = await receiver(200);
  await registerEndpoint(sb, production.url, ['order.placed']);
  await placeOrder(sb);
  await placeOrder(sb);
  await production.waitFor(2);
  await advance(sb, 2 * 3600);
  const { db, clock, webhooks } = engine.running.services;
  const errors: string[] = [];
  // As when the insert found the target's lock busy and took no lease: the claim loop sends it first.
  const replays = new DlqReplays(
    db,
    clock,
    webhooks.dispatcher,
    async (tenantId, id, to) => {
      const resent = await webhooks.service.resendTo(tenantId, id, to);
      await webhooks.dispatcher.attemptNew(resent);
      return { ...resent, leasedAt: null };
    },
    (message) => errors.push(message),
  );
  const started = await replays.start(sb.id, { statuses: ['dead'], to: local.url });
  await replays.settled(sb.id, started.id);
  const job = await replays.get(sb.id, started.id);
  assert.deepEqual([job.state, job.succeeded, job.failed, job.skipped], ['completed', 2, 0, 0]);
  assert.equal(local.received.length, 2, 'each new delivery sent once');
  assert.deepEqual(errors, []);
});

test('a new delivery quarantined before any attempt is counted skipped: the job does not wait for it', async () => {
  const sb = await createSandbox(engine.url);
  const production = await receiver(500);
  const local = await receiver(200);
  await registerEndpoint(sb, production.url, ['order.placed']);
  await placeOrder(sb);
  await production.waitFor(1);
  await advance(sb, 2 * 3600);
  const { db, clock, webhooks } = engine.running.services;
  // As when the claim loop took it first and quarantined it: dead, its lease given back, never attempted.
  const replays = new DlqReplays(
    db,
    clock,
    webhooks.dispatcher,
    async (tenantId, id, to) => {
      const resent = await webhooks.service.resendTo(tenantId, id, to);
      await db.query(
        `update deliveries set status = 'dead', lease_owner = null, lease_until = null, lease_slot = null
          where tenant_id = $1 and id = $2`,
        [tenantId, resent.id],
      );
      return { ...resent, leasedAt: null };
    },
    () => {},
  );
  const started = await replays.start(sb.id, { statuses: ['dead'], to: local.url });
  await replays.settled(sb.id, started.id);
  const job = await replays.get(sb.id, started.id);
  assert.deepEqual([job.state, job.succeeded, job.failed, job.skipped], ['completed', 0, 0, 1]);
  assert.equal(local.received.length, 0);
});

test('an endpoint disabled by 410 and a test to a bare URL: replayed --to anyway; a failing receiver gets retries', async () => {
  const sb = await createSandbox(engine.url);
  const gone = await receiver(410);
  const local = await receiver(500);
  const endpoint = await registerEndpoint(sb, gone.url, ['order.placed']);
  await placeOrder(sb);
  const [fromEndpoint] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
  await waitForDelivery(sb, fromEndpoint.id, (d) => d.attemptCount === 1);
  assert.equal((await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}`)).body.enabled, false);
  const test = await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: `${gone.url}/bare` } });
  await waitForDelivery(sb, test.body.deliveryId, (d) => d.attemptCount === 1);

  // The endpoint's delivery waits (pending, disabled); the bare URL's is dead (a 410 ends a test's delivery).
  const started = await replay(sb, { statuses: ['failed', 'dead'], to: local.url });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  const job = await waitForReplayJob(sb, started.body.id);
  assert.deepEqual([job.state, job.total, job.succeeded, job.failed], ['completed', 2, 0, 2]);
  const [a, b] = await local.waitFor(2);
  const bySecret = (r: Received, secret: string) =>
    independentlyVerify(String(r.headers['x-service-signature']), r.body, secret);
  const signedByEndpoint = [a, b].filter((r) => bySecret(r, endpoint.secret));
  const signedByTestSecret = [a, b].filter((r) => bySecret(r, sb.webhookTestSecret));
  assert.deepEqual([signedByEndpoint.length, signedByTestSecret.length], [1, 1]);

  const [resent] = (await delivery(sb, fromEndpoint.id)).resentAs;
  const failed = await waitForDelivery(sb, resent, (d) => d.attemptCount === 1);
  assert.equal(failed.status, 'pending', 'retried like any delivery');
  local.behaviour = { kind: 'status', status: 200 };
  await advance(sb, 30);
  const retried = await waitForDelivery(sb, resent, (d) => d.status === 'succeeded');
  assert.deepEqual(
    retried.attempts.map((x: any) => [x.trigger, x.url]),
    [
      ['initial', local.url],
      ['retry', local.url],
    ],
  );
  const retry = local.received.filter((r) => r.headers['x-service-delivery-id'] === resent).at(-1)!;
  assert.ok(bySecret(retry, endpoint.secret), 'a retry is signed as the endpoint too');
  assert.equal(gone.received.filter((r) => r.path === '/hook').length, 1, 'the disabled endpoint got nothing more');
});

test('--to must be an http(s) URL', async () => {
  const sb = await createSandbox(engine.url);
  problem(await replay(sb, { statuses: ['dead'], to: 'ftp://127.0.0.1/x' }), 422, 'validation_failed');
  problem(await replay(sb, { statuses: ['dead'], to: 'localhost:4000' }), 422, 'validation_failed');
});
