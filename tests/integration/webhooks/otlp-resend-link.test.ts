// A resend's trace links back to the original's (issue 31): its first attempt's span carries an OpenTelemetry
// link to the original delivery's last attempt, in the original's trace, so a tracing tool follows the chain.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { OtlpCollector } from '../../helpers/otlp-collector.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { advance, placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

const collector = new OtlpCollector();
await collector.start();
const engine = useEngine({ otlpEndpoint: collector.url });
const rx = await new Receiver().start();
const local = await new Receiver().start();
after(async () => {
  await rx.close();
  await local.close();
  await collector.close();
});

const spanOf = (attempt: { traceparent: string }) => attempt.traceparent.split('-')[2];

test("a resend's first span links to the original's last attempt; a replay --to's too; their retries to the attempt before", async () => {
  const sb = await createSandbox(engine.url);
  rx.behaviour = { kind: 'status', status: 500 };
  await registerEndpoint(sb, rx.url, ['order.placed']);
  await placeOrder(sb);
  const [{ id }] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
  await waitForDelivery(sb, id, (d) => d.attemptCount === 1);
  await advance(sb, 30);
  const original = await waitForDelivery(sb, id, (d) => d.attemptCount === 2);

  const resend = await sb.api(`/api/v1/webhooks/deliveries/${id}/resend`, { body: {} });
  assert.equal(resend.status, 202, JSON.stringify(resend.body));
  const resent = await waitForDelivery(sb, resend.body.id, (d) => d.attemptCount === 1);
  local.behaviour = { kind: 'status', status: 500 };
  const job = await sb.api('/api/v1/webhooks/deliveries/replay', {
    body: { statuses: ['failed'], ids: [id], to: local.url },
  });
  assert.equal(job.status, 202, JSON.stringify(job.body));
  await local.waitFor(1);
  const [viaReplay] = (await sb.api(`/api/v1/webhooks/deliveries/${id}`)).body.resentAs.slice(1);
  const replayed = await waitForDelivery(sb, viaReplay, (d) => d.attemptCount === 1);
  await advance(sb, 30); // the replay's retry, and the resend's
  const retried = await waitForDelivery(sb, viaReplay, (d) => d.attemptCount === 2);

  const toOriginal = [{ traceId: original.traceId, spanId: spanOf(original.attempts[1]) }];
  const [first] = await collector.waitFor((s) => s.spanId === spanOf(resent.attempts[0]), 1);
  assert.equal(first.traceId, resent.traceId, 'the resend is a trace of its own');
  assert.deepEqual(first.links, toOriginal, "linked to the original's last attempt when it was resent");
  assert.equal(first.attributes['sandbay.delivery.resent_from'], id);
  assert.deepEqual(resent.resentFrom, { id, edited: false, ...toOriginal[0] }, 'the API names the same span');

  const [replaySpan, replayRetry] = await Promise.all([
    collector.waitFor((s) => s.spanId === spanOf(replayed.attempts[0]), 1),
    collector.waitFor((s) => s.spanId === spanOf(retried.attempts[1]), 1),
  ]);
  assert.deepEqual(replaySpan[0].links, toOriginal);
  assert.equal(replaySpan[0].attributes['url.full'], local.url);
  assert.deepEqual(replayRetry[0].links, [{ traceId: retried.traceId, spanId: spanOf(retried.attempts[0]) }]);
  assert.equal(replayRetry[0].attributes['sandbay.delivery.resent_from'], id);
});
