// An imported sandbox starts quiet (SPEC §12), and ONE action resumes it (issue 28): POST
// /api/v1/webhooks/endpoints/enable {"disabledReason": "imported"} enables every endpoint the import paused,
// oldest first, and their deliveries go out; an endpoint off for another reason stays off; on a shared server
// an endpoint whose URL the outbound policy refuses now (the import refuses what it refuses then) stays
// disabled and is named in the answer.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, sandboxFrom, problem, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { testResolver } from '../../helpers/outbound.ts';
import { exportBytes, importBytes } from '../../helpers/portable.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { operatorKey } from '../../helpers/session.ts';
import { placeOrder, registerEndpoint } from '../../helpers/webhooks.ts';

const laptop = useEngine();
// A shared server (published beyond loopback): its policy refuses loopback receivers.
const shared = useEngine({
  publicUrl: 'http://sandbay.test:8080',
  adminKey: operatorKey,
  outboundLookup: testResolver({
    'receiver.example': ['93.184.216.34'],
    // Not found when the import checks it (so accepted then), loopback by the time it is enabled.
    'moved.example': (call) => (call === 1 ? undefined : ['127.0.0.1']),
  }),
});
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

async function imported(to: string, source: TestSandbox, headers: Record<string, string> = {}) {
  const res = await importBytes(to, await exportBytes(laptop.url, source), { headers });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { sandbox: sandboxFrom(to, res.body), report: res.body.report };
}

const enable = (sb: TestSandbox, body: unknown) => sb.api('/api/v1/webhooks/endpoints/enable', { body });

test('one call enables every endpoint the import paused, and their deliveries go out; one off by hand stays off', async () => {
  const source = await createSandbox(laptop.url);
  const first = await registerEndpoint(source, `${receiver.url}/first`, ['order.placed']);
  const second = await registerEndpoint(source, `${receiver.url}/second`, ['order.placed']);
  const byHand = await registerEndpoint(source, `${receiver.url}/by-hand`, ['order.placed'], { enabled: false });
  const { sandbox, report } = await imported(laptop.url, source);
  assert.deepEqual(
    report.receivers.endpoints.map((e: any) => e.endpointId),
    [first.id, second.id, byHand.id],
  );

  const res = await enable(sandbox, { disabledReason: 'imported' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(
    res.body.enabled.map((e: any) => [e.id, e.enabled, e.disabled]),
    [
      [first.id, true, null],
      [second.id, true, null],
    ],
  );
  assert.deepEqual(res.body.refused, []);
  const list = (await sandbox.api('/api/v1/webhooks/endpoints')).body.data;
  assert.equal(list.find((e: any) => e.id === byHand.id).disabled.reason, 'user', 'off by hand stays off');

  const before = receiver.received.length;
  await placeOrder(sandbox);
  const got = await receiver.waitFor(before + 2);
  assert.deepEqual(
    got
      .slice(before)
      .map((r) => r.path)
      .sort(),
    ['/hook/first', '/hook/second'],
  );

  assert.deepEqual((await enable(sandbox, { disabledReason: 'imported' })).body, { enabled: [], refused: [] });
});

test('a reason that is none, or none at all, is 422 with the path', async () => {
  const sb = await createSandbox(laptop.url);
  const body = problem(await enable(sb, { disabledReason: 'paused' }), 422, 'validation_failed');
  assert.equal(body.errors[0].path, '/disabledReason');
  problem(await enable(sb, {}), 422, 'validation_failed');
});

test('on a shared server an endpoint the outbound policy refuses stays disabled and is named', async () => {
  const source = await createSandbox(laptop.url);
  const local = await registerEndpoint(source, `http://moved.example:${receiver.port}/hook`, ['order.placed']);
  const remote = await registerEndpoint(source, 'http://receiver.example/hook', ['order.placed']);
  const { sandbox } = await imported(shared.url, source, { authorization: `Bearer ${operatorKey}` });

  const res = await enable(sandbox, { disabledReason: 'imported' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(
    res.body.enabled.map((e: any) => e.id),
    [remote.id],
  );
  assert.equal(res.body.refused.length, 1);
  assert.equal(res.body.refused[0].endpointId, local.id);
  assert.equal(res.body.refused[0].url, local.url);
  assert.match(res.body.refused[0].message, /^Refused by the outbound policy: .*loopback/);
  const still = (await sandbox.api(`/api/v1/webhooks/endpoints/${local.id}`)).body;
  assert.equal(still.enabled, false);
  assert.equal(still.disabled.reason, 'imported');
});
