// The receiver check's API: endpoint checks with the endpoint's live secrets, stored runs,
// live progress, unreachable receivers, and check deliveries kept out of retries and the DLQ.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestReceiver, type TestReceiver } from '../../helpers/check-receivers.ts';
import { createSandbox, problem, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { independentlyVerify } from '../../helpers/receiver.ts';
import { SseClient } from '../../helpers/sse.ts';
import { registerEndpoint } from '../../helpers/webhooks.ts';
import { caseOf, failedCases, runCheck, waitForCheck } from './helpers.ts';

const engine = useEngine();
const closedPort = 'http://127.0.0.1:9/hook';

/** An endpoint subscribed to order.* whose URL is a correct receiver verifying with the endpoint's own secret. */
async function withReceiverEndpoint(
  fn: (sb: TestSandbox, endpoint: { id: string; secret: string }, r: TestReceiver) => Promise<void>,
): Promise<void> {
  const sb = await createSandbox(engine.url);
  // The secret is the endpoint's: register first, then point it at the receiver.
  const endpoint = await registerEndpoint(sb, 'http://127.0.0.1:1/placeholder', ['order.*']);
  const r = await startTestReceiver(endpoint.secret);
  try {
    await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}`, { method: 'PATCH', body: { url: r.url } });
    await fn(sb, endpoint, r);
  } finally {
    await r.close();
  }
}

test("an endpoint check signs with the endpoint's live secrets and sends a real topic outside its subscription", () =>
  withReceiverEndpoint(async (sb, endpoint, r) => {
    const run = await runCheck(sb, { endpointId: endpoint.id });
    assert.deepEqual(failedCases(run), []);
    assert.equal(run.endpointId, endpoint.id);
    assert.equal(run.url, r.url);
    const topics = await Promise.all(
      caseOf(run, 'unknown-topic').deliveryIds.map(
        async (id: string) => (await sb.api(`/api/v1/webhooks/deliveries/${id}`)).body,
      ),
    );
    assert.equal(topics.length, 2);
    assert.notEqual(topics[0].topic.split('.')[0], 'order', 'a real topic the endpoint did not subscribe to');
    assert.equal(topics[1].topic, 'x.unknown');
    assert.ok(topics.every((d) => d.endpointId === endpoint.id && d.check.case === 'unknown-topic'));
    assert.ok(independentlyVerify(topics[0].attempts[0].signatureHeader, topics[0].rawBody, endpoint.secret));
    const one = await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}/checks/${run.id}`);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body, run);
  }));

test("runs are stored newest first, ten kept per endpoint; another endpoint's run is a 404 under this one", async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, closedPort, ['*']);
  const other = await registerEndpoint(sb, closedPort, ['*']);
  const ids: string[] = [];
  for (let i = 0; i < 11; i++) ids.push((await runCheck(sb, { endpointId: endpoint.id })).id);
  const otherRun = await runCheck(sb, { endpointId: other.id });
  const list = await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}/checks?limit=100`);
  assert.equal(list.status, 200);
  assert.deepEqual(
    list.body.data.map((r: any) => r.id),
    ids.slice(1).reverse(),
  );
  const page = await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}/checks?limit=4`);
  assert.equal(page.body.data.length, 4);
  const next = await sb.api(
    `/api/v1/webhooks/endpoints/${endpoint.id}/checks?limit=4&cursor=${encodeURIComponent(page.body.nextCursor)}`,
  );
  assert.deepEqual(
    next.body.data.map((r: any) => r.id),
    ids.slice(3, 7).reverse(),
  );
  problem(await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}/checks/${otherRun.id}`), 404, 'not_found');
  problem(await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}/checks/${ids[0]}`), 404, 'not_found');
  const all = await sb.api('/api/v1/webhooks/checks?limit=100');
  assert.deepEqual(
    all.body.data.map((r: any) => r.id),
    [otherRun.id, ...ids.slice(1).reverse()],
  );
});

test('an unreachable receiver: the valid case names it, the rest are not sent', async () => {
  const sb = await createSandbox(engine.url);
  const run = await runCheck(sb, { url: closedPort, secret: 'whsec_x' });
  assert.equal(run.report.failed, 1);
  assert.equal(run.report.blocked, 14);
  assert.ok(run.report.cases.every((c: any) => c.got.status === null));
  assert.match(caseOf(run, 'valid').cause, /No answer: connection refused/);
  assert.equal(run.report.rootCause.cause, caseOf(run, 'valid').cause);
  assert.equal(caseOf(run, 'tampered-body').status, 'blocked');
  assert.match(caseOf(run, 'tampered-body').cause, /Not sent: the receiver did not answer valid/);
  assert.deepEqual(caseOf(run, 'tampered-body').deliveryIds, []);
});

test('check deliveries stay out of the DLQ and cannot be retried or replayed', async () => {
  const sb = await createSandbox(engine.url);
  const run = await runCheck(sb, { url: closedPort, secret: 'whsec_x' });
  const id = caseOf(run, 'valid').deliveryIds[0];
  assert.equal((await sb.api(`/api/v1/webhooks/deliveries/${id}`)).body.status, 'dead');
  assert.deepEqual((await sb.api('/api/v1/webhooks/dlq')).body.data, []);
  const job = await sb.api('/api/v1/webhooks/dlq/replay', { body: {} });
  assert.equal(job.status, 202);
  assert.equal(job.body.total, 0, 'the DLQ replay job leaves check deliveries out');
  problem(await sb.api(`/api/v1/webhooks/deliveries/${id}/replay`, { method: 'POST' }), 409, 'check_delivery');
  problem(await sb.api(`/api/v1/webhooks/dlq/${id}/replay`, { method: 'POST' }), 409, 'check_delivery');
  assert.deepEqual((await sb.api(`/api/v1/webhooks/deliveries?status=dead`)).body.data, [], 'not listed by default');
  const listed = await sb.api(`/api/v1/webhooks/deliveries?status=dead&includeChecks=true`);
  assert.deepEqual(
    listed.body.data.map((d: any) => d.id),
    [id],
    'still in the delivery log, listed when asked for',
  );
  const replayable = await sb.api('/api/v1/webhooks/deliveries/replay', { body: { statuses: ['dead'], dryRun: true } });
  assert.equal(replayable.body.total, 0, 'a replay by filter leaves them out too');
});

test("a bare-URL check defaults to the sandbox's webhookTestSecret; its secret is readable for the breakdown", async () => {
  const sb = await createSandbox(engine.url);
  const r = await startTestReceiver(sb.webhookTestSecret);
  try {
    const run = await runCheck(sb, { url: r.url });
    assert.deepEqual(failedCases(run), []);
    const secrets = await sb.api(`/api/v1/webhooks/checks/${run.id}/secrets`);
    assert.equal(secrets.status, 200);
    assert.equal(secrets.body.data[0].secret, sb.webhookTestSecret);
  } finally {
    await r.close();
  }
});

test('progress is announced on the live stream as check.updated', async () => {
  const sb = await createSandbox(engine.url);
  const sse = new SseClient(`${engine.url}/api/v1/events/stream`, { authorization: `Bearer ${sb.token}` });
  await sse.open();
  try {
    const run = await runCheck(sb, { url: closedPort, secret: 'whsec_x' });
    const last = await sse.waitFor(
      (m) => m.event === 'check.updated' && m.data.id === run.id && m.data.runStatus === 'finished',
    );
    assert.deepEqual(last.data, { id: run.id, endpointId: null, done: 15, total: 15, runStatus: 'finished' });
    assert.ok(sse.messages.some((m) => m.event === 'attempt.finished' && m.data.trigger === 'check'));
  } finally {
    sse.close();
  }
});

test('bad requests are clear problems', async () => {
  const sb = await createSandbox(engine.url);
  problem(await sb.api('/api/v1/webhooks/endpoints/whe_nope/checks', { body: {} }), 404, 'not_found');
  problem(await sb.api('/api/v1/webhooks/endpoints/whe_nope/checks'), 404, 'not_found');
  problem(await sb.api('/api/v1/webhooks/checks', { body: { url: 'ftp://x' } }), 422, 'validation_failed');
  problem(
    await sb.api('/api/v1/webhooks/checks', { body: { url: closedPort, effectsUrl: 'nope' } }),
    422,
    'validation_failed',
  );
  problem(await sb.api('/api/v1/webhooks/checks', { body: { url: closedPort, extra: 1 } }), 400, 'unknown_field');
  problem(await sb.api('/api/v1/webhooks/checks/chk_nope'), 404, 'not_found');
  const other = await createSandbox(engine.url);
  const run = await runCheck(sb, { url: closedPort, secret: 'whsec_x' });
  problem(await other.api(`/api/v1/webhooks/checks/${run.id}`), 404, 'not_found');
});

test('a check started with an Idempotency-Key runs once; the same key answers the same run', () =>
  withReceiverEndpoint(async (sb, endpoint) => {
    const start = () =>
      sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}/checks`, {
        body: {},
        headers: { 'idempotency-key': 'check-once' },
      });
    const first = await start();
    assert.equal(first.status, 202);
    const run = await waitForCheck(sb, first.body.id);
    assert.deepEqual(failedCases(run), []);
    const again = await start();
    assert.equal(again.status, 202);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.body.id, first.body.id);
    const runs = await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}/checks`);
    assert.deepEqual(
      runs.body.data.map((x: any) => x.id),
      [first.body.id],
      'one run stored',
    );
  }));
