import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { after, before, test } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../../src/server/start.ts';
import { verifyWebhook } from '../../../src/receiver/index.ts';
import { createSandbox, sandboxFrom, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { exportBytes, importBytes, portableRows } from '../../helpers/portable.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { advance, delivery, placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

// The source engine runs on the test driver (PGlite, or PostgreSQL with SANDBAY_TEST_DRIVER=pg); the
// other is always PGlite, so the pg pass carries sandboxes from PostgreSQL to PGlite and back.
const engine = useEngine();
let pglite: RunningSandbox;
const ok = new Receiver();
const failing = new Receiver();
let source: TestSandbox;
let pendingId = '';
let deadId = '';

before(async () => {
  pglite = await startSandbox({ memory: true, port: 0, logRequests: false });
});

// Built once, at the first test (the engine of useEngine starts in its own hook).
let prepared: Promise<void> | undefined;
const ready = () => (prepared ??= prepare());

async function prepare(): Promise<void> {
  await ok.start();
  await failing.start();
  failing.behaviour = { kind: 'status', status: 500, body: 'down for maintenance' };
  source = await createSandbox(engine.url, 'Demo for Acme');
  const good = await registerEndpoint(source, ok.url, ['order.*']);
  await source.api(`/api/v1/webhooks/endpoints/${good.id}/rotate-secret`, { method: 'POST' });
  const down = await registerEndpoint(source, failing.url, ['order.placed']);
  // One delivery to the failing receiver goes through all five attempts to the DLQ…
  await placeOrder(source);
  await failing.waitFor(1);
  await advance(source, 7200);
  deadId = (await source.api('/api/v1/webhooks/dlq')).body.data[0].id;
  // …and a later one has failed once and waits for its retry.
  const order = await placeOrder(source);
  await source.api(`/api/v1/orders/${order.id}/cancel`, { method: 'POST' });
  await failing.waitFor(6);
  await ok.waitFor(3);
  const list = (await source.api('/api/v1/webhooks/deliveries?limit=100')).body.data;
  for (const d of list) await waitForDelivery(source, d.id, (x) => x.status !== 'pending' || x.attemptCount >= 1);
  const settled = (await source.api('/api/v1/webhooks/deliveries?status=pending')).body.data;
  assert.equal(settled.length, 1, 'one delivery waits for its retry');
  pendingId = settled[0].id;
  // Its retry is due 30 s later in real time: on a slow machine the source engine would send it while the
  // tests run (one more attempt in the file, one more request at the receiver). Paused, it waits in the
  // source for good, and each copy resumes it by enabling the endpoint.
  await source.api(`/api/v1/webhooks/endpoints/${down.id}`, { method: 'PATCH', body: { enabled: false } });
  // A catcher with a request in its log (its body is bytes).
  await source.api('/api/v1/catchers/demo', { method: 'PUT', body: { status: 202 } });
  await fetch(`${engine.url}/catch/${source.id}/demo`, {
    method: 'POST',
    body: new Uint8Array([0, 1, 2, 255]),
    headers: { 'content-type': 'application/octet-stream' },
  });
}

after(async () => {
  await pglite?.close();
  await ok.close();
  await failing.close();
});

async function allDeliveries(sb: TestSandbox): Promise<any[]> {
  const out: any[] = [];
  for (let cursor = ''; ;) {
    const page = (await sb.api(`/api/v1/webhooks/deliveries?limit=100${cursor ? `&cursor=${cursor}` : ''}`)).body;
    out.push(...page.data);
    if (!page.nextCursor) return out;
    cursor = page.nextCursor;
  }
}

/** What the inspector shows of a sandbox's deliveries: the list, each with its attempts, and the DLQ. */
async function inspectorView(sb: TestSandbox) {
  const list = await allDeliveries(sb);
  const details = await Promise.all(list.map((d) => delivery(sb, d.id)));
  const dlq = (await sb.api('/api/v1/webhooks/dlq')).body.data;
  // Trace ids are the sandbox's own (docs/decisions/trace-context.md): an imported sandbox's deliveries are new traces.
  const untraced = ({ envelope: _e, traceId: _t, attempts, ...d }: Record<string, any>) => ({
    ...d,
    attempts: attempts.map(({ traceparent: _p, ...a }: Record<string, unknown>) => a),
  });
  return { list, details: details.map(untraced), dlq };
}

/** An imported sandbox's endpoints arrive disabled (imported): the rows and views otherwise equal the original's. */
function asOriginal(rows: Record<string, any[]>): Record<string, unknown[]> {
  for (const e of rows.webhook_endpoints) assert.equal(e.enabled, false, `endpoint ${e.id} arrived quiet`);
  assert.ok(rows.webhook_endpoints.some((e) => e.disabled_reason === 'imported'));
  return { ...rows, webhook_endpoints: rows.webhook_endpoints.map(withoutOnOff) };
}
const withoutOnOff = ({ enabled: _e, disabled_reason: _r, disabled_at: _a, ...rest }: any) => rest;
const withoutPaused = (view: Awaited<ReturnType<typeof inspectorView>>) =>
  JSON.parse(JSON.stringify(view, (key, value) => (key === 'paused' ? undefined : value)));

/** The one action an imported sandbox waits for: its endpoints enabled, so their pending deliveries resume. */
async function resume(sb: TestSandbox, report: any): Promise<void> {
  for (const e of report.receivers.endpoints) {
    const res = await sb.api(`/api/v1/webhooks/endpoints/${e.endpointId}`, {
      method: 'PATCH',
      body: { enabled: true },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }
}

async function roundTrip(
  from: { url: string; running: RunningSandbox },
  sb: TestSandbox,
  to: { url: string; running: RunningSandbox },
  includeSecrets: boolean,
) {
  await ready();
  const bytes = await exportBytes(from.url, sb, includeSecrets ? 'includeSecrets=true' : '');
  const res = await importBytes(to.url, bytes);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { imported: sandboxFrom(to.url, res.body), report: res.body.report, body: res.body };
}

for (const includeSecrets of [true, false]) {
  test(`export → import ${includeSecrets ? 'with' : 'without'} secrets, onto PGlite and back: every table's rows equal, the inspector shows the same deliveries`, async () => {
    await ready();
    const there = await roundTrip(
      { url: engine.url, running: engine.running },
      source,
      { url: pglite.url, running: pglite },
      includeSecrets,
    );
    const back = await roundTrip(
      { url: pglite.url, running: pglite },
      there.imported,
      { url: engine.url, running: engine.running },
      includeSecrets,
    );
    const rows = await portableRows(engine.running.services.db, source.id, includeSecrets);
    const original: Record<string, any[]> = { ...rows, webhook_endpoints: rows.webhook_endpoints.map(withoutOnOff) };
    assert.notEqual(there.imported.id, source.id);
    assert.deepEqual(
      asOriginal((await portableRows(pglite.services.db, there.imported.id, includeSecrets)) as any),
      original,
    );
    assert.deepEqual(
      asOriginal((await portableRows(engine.running.services.db, back.imported.id, includeSecrets)) as any),
      original,
    );
    assert.ok(
      original.deliveries.length >= 5 && original.attempts.length >= 9 && original.catcher_requests.length === 1,
    );

    const view = withoutPaused(await inspectorView(source));
    assert.deepEqual(withoutPaused(await inspectorView(there.imported)), view);
    assert.deepEqual(withoutPaused(await inspectorView(back.imported)), view);
    assert.deepEqual(
      there.report.receivers.endpoints.map((e: any) => e.url).sort(),
      rows.webhook_endpoints.map((e: any) => e.url).sort(),
      'the report names every receiver the file would call',
    );
    assert.equal(there.report.signature, 'unsigned', "another Sandbay's file is not vouched for");
    assert.equal(back.report.signature, 'unsigned');
    assert.deepEqual(
      (await there.imported.api('/api/v1/sandbox')).body.counts,
      (await source.api('/api/v1/sandbox')).body.counts,
    );
    assert.equal(there.body.sandbox.name, 'Demo for Acme');
    assert.equal(there.report.secrets, includeSecrets ? 'imported' : 'issued');
    assert.notEqual(there.body.credentials.clientSecret, source.clientSecret);
  });
}

test('with secrets, the imported endpoints sign with the same secrets: every recorded signature verifies with them', async () => {
  await ready();
  const { imported, report } = await roundTrip(
    { url: engine.url, running: engine.running },
    source,
    { url: pglite.url, running: pglite },
    true,
  );
  assert.deepEqual(report.newSecrets, []);
  const endpoints = (await imported.api('/api/v1/webhooks/endpoints')).body.data;
  let verified = 0;
  for (const d of await allDeliveries(imported)) {
    const detail = await delivery(imported, d.id);
    const secrets = (await imported.api(`/api/v1/webhooks/endpoints/${d.endpointId}/secrets`)).body.data.map(
      (s: any) => s.secret,
    );
    const original = (await source.api(`/api/v1/webhooks/endpoints/${d.endpointId}/secrets`)).body.data.map(
      (s: any) => s.secret,
    );
    assert.deepEqual(secrets, original);
    for (const a of detail.attempts) {
      const t = Number(/t=(\d+)/.exec(a.signatureHeader)![1]);
      assert.equal(
        verifyWebhook({ payload: detail.rawBody, header: a.signatureHeader, secret: secrets, now: t }).deliveryId,
        d.id,
      );
      verified++;
    }
  }
  assert.ok(verified >= 9 && endpoints.length === 2);
});

test('without secrets, every endpoint gets a new secret and the report names them', async () => {
  await ready();
  const { imported, report, body } = await roundTrip(
    { url: engine.url, running: engine.running },
    source,
    { url: pglite.url, running: pglite },
    false,
  );
  const endpoints = (await source.api('/api/v1/webhooks/endpoints')).body.data;
  assert.deepEqual(report.newSecrets.map((e: any) => e.endpointId).sort(), endpoints.map((e: any) => e.id).sort());
  for (const e of endpoints) {
    const before = (await source.api(`/api/v1/webhooks/endpoints/${e.id}/secrets`)).body.data.map((s: any) => s.secret);
    const now = (await imported.api(`/api/v1/webhooks/endpoints/${e.id}/secrets`)).body.data.map((s: any) => s.secret);
    assert.equal(now.length, before.length, 'a rotation still has both secrets live');
    assert.ok(now.every((s: string) => /^whsec_/.test(s) && !before.includes(s)));
  }
  assert.notEqual(body.webhookTestSecret, source.webhookTestSecret);
});

test('the imported sandbox resumes the sandbox clock: its pending retry fires at the same sandbox time, to the same receiver', async () => {
  await ready();
  const original = await delivery(source, pendingId);
  const sourceClock = (await source.api('/api/v1/sandbox/clock')).body;
  const { imported, report } = await roundTrip(
    { url: engine.url, running: engine.running },
    source,
    { url: pglite.url, running: pglite },
    true,
  );
  const clock = (await imported.api('/api/v1/sandbox/clock')).body;
  assert.ok(
    Math.abs(Date.parse(clock.now) - Date.parse(sourceClock.now)) < 5_000,
    `${clock.now} resumes ${sourceClock.now}`,
  );
  assert.ok(Math.abs(Date.parse(report.clock.now) - Date.parse(clock.now)) < 5_000);
  const copy = await delivery(imported, pendingId);
  assert.equal(copy.nextAttemptAt, original.nextAttemptAt);
  assert.equal(copy.paused.reason, 'endpoint_disabled', 'it waits for its endpoint, which arrived disabled');
  await resume(imported, report);
  const received = failing.received.length;
  await advance(imported, (Date.parse(copy.nextAttemptAt) - Date.parse(clock.now)) / 1000 + 1);
  const retried = await delivery(imported, pendingId);
  assert.equal(retried.attempts.length, original.attempts.length + 1);
  assert.equal(retried.attempts.at(-1).trigger, 'retry');
  assert.equal(retried.attempts.at(-1).startedAt, original.nextAttemptAt, 'the retry ran as of its due sandbox time');
  assert.equal(failing.received.length, received + 1);
  assert.equal(failing.received.at(-1)!.body, original.rawBody, 'the same bytes as every attempt before');
  // The original is untouched: its retry has not run.
  assert.equal((await delivery(source, pendingId)).attempts.length, original.attempts.length);
});

test('a dead delivery stays in the DLQ of the imported sandbox and replays from there', async () => {
  await ready();
  const { imported, report } = await roundTrip(
    { url: engine.url, running: engine.running },
    source,
    { url: pglite.url, running: pglite },
    true,
  );
  assert.deepEqual(
    (await imported.api('/api/v1/webhooks/dlq')).body.data.map((d: any) => d.id),
    [deadId],
  );
  await resume(imported, report);
  failing.behaviour = { kind: 'status', status: 200, body: 'back' };
  try {
    const replayed = await imported.api(`/api/v1/webhooks/dlq/${deadId}/replay`, { method: 'POST' });
    assert.equal(replayed.status, 200);
    assert.equal(replayed.body.status, 'succeeded');
    assert.equal(replayed.body.attempts.at(-1).number, 6);
  } finally {
    failing.behaviour = { kind: 'status', status: 500, body: 'down for maintenance' };
  }
});

test('a file this Sandbay exported is reported signed by it; the same file edited and re-hashed is unsigned', async () => {
  await ready();
  const here = { url: engine.url, running: engine.running };
  const signed = await roundTrip(here, source, here, false);
  assert.equal(signed.report.signature, 'signed-by-this-sandbay');
  const lines = gunzipSync(await exportBytes(engine.url, source))
    .toString('utf8')
    .split('\n')
    .slice(0, -1);
  lines[0] = JSON.stringify({ ...JSON.parse(lines[0]), sandbox: { ...JSON.parse(lines[0]).sandbox, name: 'Edited' } });
  const body = lines
    .slice(0, -1)
    .map((l) => `${l}\n`)
    .join('');
  const end = JSON.parse(lines.at(-1)!);
  end.end.sha256 = createHash('sha256').update(body).digest('hex');
  const res = await importBytes(engine.url, gzipSync(`${body}${JSON.stringify(end)}\n`));
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.equal(res.body.report.signature, 'unsigned');
});

test('every line of an exported file is valid against its JSON Schema in docs/', async () => {
  await ready();
  const schema = JSON.parse(readFileSync(new URL('../../../docs/sandbox-file.schema.json', import.meta.url), 'utf8'));
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
  for (const query of ['', 'includeSecrets=true']) {
    const lines = gunzipSync(await exportBytes(engine.url, source, query))
      .toString('utf8')
      .split('\n');
    assert.equal(lines.pop(), '', 'every line ends in a newline');
    const invalid = lines
      .map((l, i) =>
        validate(JSON.parse(l)) ? null : `line ${i + 1}: ${JSON.stringify(validate.errors?.slice(0, 2))}`,
      )
      .filter(Boolean);
    assert.deepEqual(invalid, []);
    assert.equal(JSON.parse(lines[0]).secrets, query ? 'included' : 'omitted');
  }
});
