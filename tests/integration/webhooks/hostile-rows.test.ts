// Rows the engine cannot process (SPEC §12, DESIGN.md Habits: a bad row is quarantined, never fatal), written
// straight into the database as another version or a crafted file could have: a sandbox clock far out of
// range, an endpoint signing with a scheme that does not exist, a delivery whose body is no envelope. Each
// bad delivery ends dead with `quarantined: <reason>` (logged once), the process never sees an unhandled
// rejection, and a delivery of another sandbox still succeeds after each.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { delivery, placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

// As `node --unhandled-rejections=strict` would: one unhandled rejection ends the test process, failing the file.
process.on('unhandledRejection', (err) => {
  console.error('unhandled rejection:', err);
  process.exit(70);
});

const logged: string[] = [];
const record = (line: string) => void logged.push(line);
const engine = useEngine({ deliveryPollMs: 100, logger: { info: record, warn: record, error: record } });
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

const db = () => engine.running.services.db;
const yearMs = 365.25 * 86_400_000;

/**
 * Drops CHECK constraints on `table` that name `column`: the hostile row stands for one written before
 * they existed (by another version), which the engine must survive all the same.
 */
async function withoutChecks(table: string, column: string): Promise<void> {
  const checks = await db().query<{ conname: string }>(
    `select conname from pg_constraint
      where conrelid = $1::regclass and contype = 'c' and pg_get_constraintdef(oid) like '%' || $2 || '%'`,
    [table, column],
  );
  for (const { conname } of checks) await db().exec(`alter table ${table} drop constraint "${conname}"`);
}

/** A new sandbox's delivery to a receiver of its own succeeds: the engine still works for everyone else. */
async function othersStillDeliver(): Promise<void> {
  const sb = await createSandbox(engine.url);
  const rx = await new Receiver().start();
  try {
    await registerEndpoint(sb, rx.url, ['order.placed']);
    await placeOrder(sb);
    const [summary] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
    await waitForDelivery(sb, summary.id, (d) => d.status === 'succeeded');
    assert.equal(rx.received.length, 1);
  } finally {
    await rx.close();
  }
}

/** A sandbox whose one delivery is pending (its first attempt got a 500; the next is due in 30 s of its clock). */
async function pendingDelivery(): Promise<{ sb: TestSandbox; id: string; rx: Receiver }> {
  const sb = await createSandbox(engine.url);
  const rx = await new Receiver().start();
  rx.behaviour = { kind: 'status', status: 500, body: 'not yet' };
  await registerEndpoint(sb, rx.url, ['order.placed']);
  await placeOrder(sb);
  const [summary] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
  await waitForDelivery(sb, summary.id, (d) => d.attemptCount === 1);
  return { sb, id: summary.id, rx };
}

/** Waits for the delivery to be quarantined and returns its lastError; asserts the engine said so once. */
async function quarantined(sb: TestSandbox, id: string): Promise<string> {
  const dead = await waitForDelivery(sb, id, (d) => d.status === 'dead');
  assert.match(dead.lastError, /^quarantined: /);
  await othersStillDeliver();
  const lines = logged.filter((l) => l.includes(id) || (l.includes(sb.id) && l.includes('quarantined')));
  assert.equal(lines.length, 1, `logged once: ${JSON.stringify(lines)}`);
  return dead.lastError;
}

for (const [name, offsetMs] of [
  ['300 years ahead', 300 * yearMs],
  ['300 years behind', -300 * yearMs],
  ['at the last date JavaScript holds', 8.64e15 - Date.now()],
  ['at the first date JavaScript holds', -8.64e15 - Date.now()],
] as const) {
  test(`a sandbox clock ${name}: its pending delivery is quarantined, the engine goes on`, async () => {
    const { sb, id, rx } = await pendingDelivery();
    try {
      await withoutChecks('tenants', 'clock_offset_ms');
      await db().query('update tenants set clock_offset_ms = $2 where id = $1', [sb.id, Math.round(offsetMs)]);
      assert.match(await quarantined(sb, id), /clock/);
      assert.equal(rx.received.length, 1, 'nothing more was sent');
    } finally {
      await rx.close();
    }
  });
}

test('an endpoint signing with a scheme that does not exist: its delivery is quarantined, naming the scheme', async () => {
  const sb = await createSandbox(engine.url);
  const rx = await new Receiver().start();
  try {
    const endpoint = await registerEndpoint(sb, rx.url, ['order.placed']);
    await withoutChecks('webhook_endpoints', 'signature');
    await db().query(`update webhook_endpoints set signature = '{nope}' where tenant_id = $1 and id = $2`, [
      sb.id,
      endpoint.id,
    ]);
    await placeOrder(sb);
    const [summary] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
    assert.match(await quarantined(sb, summary.id), /unknown signature scheme "nope"/);
    assert.equal(rx.received.length, 0, 'nothing was sent');
  } finally {
    await rx.close();
  }
});

test('a delivery whose stored body is no envelope: quarantined before it is sent; the API shows its raw bytes', async () => {
  const { sb, id, rx } = await pendingDelivery();
  try {
    await withoutChecks('deliveries', 'body');
    await db().query(
      `update deliveries set body = '{"topic": "order.placed", broken', next_attempt_at = now() where tenant_id = $1 and id = $2`,
      [sb.id, id],
    );
    assert.match(await quarantined(sb, id), /not valid JSON/);
    assert.equal(rx.received.length, 1, 'only the first attempt, before the body was broken');
    const shown = await delivery(sb, id);
    assert.equal(shown.rawBody, '{"topic": "order.placed", broken');
  } finally {
    await rx.close();
  }
});

test('attempt outcomes that cannot be written fail alone: the others of their batch are recorded', async () => {
  const deliveries = [await pendingDelivery(), await pendingDelivery(), await pendingDelivery()];
  const owner = engine.running.instanceId;
  try {
    for (const { sb, id } of deliveries)
      await db().query(
        `update deliveries set lease_owner = $3, lease_until = now() + interval '1 minute', lease_slot = 2
          where tenant_id = $1 and id = $2`,
        [sb.id, id, owner],
      );
    const record = ({ sb, id, rx }: (typeof deliveries)[number], startedAt: Date) =>
      engine.running.services.webhooks.recorder.record({
        tenantId: sb.id,
        deliveryId: id,
        lease: { owner, slot: 2 },
        attempt: {
          number: 2,
          trigger: 'retry',
          url: rx.url,
          startedAt,
          durationMs: 3,
          signatureHeader: 't=1,v1=00',
          responseStatus: 200,
          responseHeaders: {},
          responseBody: 'ok',
          error: null,
          chaos: null,
        },
        delivery: {
          status: 'succeeded',
          attemptCount: 2,
          cycleAttempts: 2,
          nextAttemptAt: null,
          updatedAt: new Date(),
        },
      });
    // Three in one batch: an Invalid Date, a date JavaScript holds but PostgreSQL does not, and a good one.
    const [invalid, outOfRange, good] = await Promise.allSettled([
      record(deliveries[0], new Date(Number.NaN)),
      record(deliveries[1], new Date(-8.64e15)),
      record(deliveries[2], new Date()),
    ]);
    assert.equal(invalid.status, 'rejected');
    assert.equal(outOfRange.status, 'rejected');
    assert.deepEqual(good, { status: 'fulfilled', value: true });
    assert.equal((await delivery(deliveries[2].sb, deliveries[2].id)).status, 'succeeded');
  } finally {
    for (const { rx } of deliveries) await rx.close();
  }
});
