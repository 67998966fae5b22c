// The deliveries table is the queue (docs/decisions/the-deliveries-table-is-the-queue-not-pg-boss-or.md): a live lease
// blocks every other attempt of the delivery, a result recorded without its lease is dropped, and a lease of an engine
// that is gone is taken again at once. Leases are written here as an engine would write them; the tests with several
// live engines are in tests/integration/team (PostgreSQL).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, problem, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { delivery, placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';
import { DeliveryLeases } from '../../../src/webhooks/leases.ts';
import { EngineLiveness } from '../../../src/webhooks/liveness.ts';

const engine = useEngine({ deliveryPollMs: 100 });
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

const db = () => engine.running.services.db;

/** A sandbox whose one delivery failed its first attempt (pending, attempt 2 due in 30 s). */
async function failedOnce(): Promise<{ sb: TestSandbox; rx: Receiver; id: string }> {
  const sb = await createSandbox(engine.url);
  const rx = await new Receiver().start();
  rx.behaviour = { kind: 'status', status: 500, body: 'nope' };
  await registerEndpoint(sb, rx.url, ['order.placed']);
  await placeOrder(sb);
  await rx.waitFor(1);
  const [summary] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
  await waitForDelivery(sb, summary.id, (x) => x.attemptCount === 1);
  return { sb, rx, id: summary.id };
}

/** Leases the delivery to another engine, for its next slot, for `ms` more milliseconds. */
async function leaseElsewhere(sb: TestSandbox, id: string, owner: string, ms: number): Promise<void> {
  await db().query(
    `update deliveries set lease_owner = $3, lease_until = now() + $4::int * interval '1 ms', lease_slot = attempt_count + 1
      where tenant_id = $1 and id = $2`,
    [sb.id, id, owner, ms],
  );
}

test('retry now and replay answer 409 attempt_in_flight while a live lease is held, and send nothing', async () => {
  const { sb, rx, id } = await failedOnce();
  try {
    // A lease of a live engine (this one: another engine's liveness is only observable on PostgreSQL).
    await leaseElsewhere(sb, id, engine.running.instanceId, 60_000);
    problem(await sb.api(`/api/v1/webhooks/deliveries/${id}/retry`, { method: 'POST' }), 409, 'attempt_in_flight');
    assert.equal(rx.received.length, 1, 'no second attempt was sent');
    await db().query(`update deliveries set status = 'dead' where tenant_id = $1 and id = $2`, [sb.id, id]);
    problem(await sb.api(`/api/v1/webhooks/deliveries/${id}/replay`, { method: 'POST' }), 409, 'attempt_in_flight');
    problem(await sb.api(`/api/v1/webhooks/dlq/${id}/replay`, { method: 'POST' }), 409, 'attempt_in_flight');
    assert.equal(rx.received.length, 1);
    // Once the lease has expired, the replay runs.
    await db().query(`update deliveries set lease_until = now() - interval '1 ms' where tenant_id = $1 and id = $2`, [
      sb.id,
      id,
    ]);
    assert.equal((await sb.api(`/api/v1/webhooks/dlq/${id}/replay`, { method: 'POST' })).status, 200);
    assert.equal(rx.received.length, 2);
  } finally {
    await rx.close();
  }
});

test('a result whose lease was lost is dropped: no attempt row, the delivery untouched', async () => {
  const { sb, rx, id } = await failedOnce();
  try {
    const before = await delivery(sb, id);
    const record = (owner: string, slot: number) =>
      engine.running.services.webhooks.recorder.record({
        tenantId: sb.id,
        deliveryId: id,
        lease: { owner, slot },
        attempt: {
          number: slot,
          trigger: 'retry',
          url: rx.url,
          startedAt: new Date(),
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
          attemptCount: slot,
          cycleAttempts: slot,
          nextAttemptAt: null,
          updatedAt: new Date(),
        },
      });
    const winner = engine.running.instanceId;
    await leaseElsewhere(sb, id, winner, 60_000);
    assert.equal(await record('ins_loser', 2), false, 'another engine holds the lease');
    assert.equal(await record(winner, 3), false, 'the lease is for slot 2, not 3');
    const after = await delivery(sb, id);
    assert.equal(after.status, 'pending');
    assert.deepEqual(
      after.attempts.map((a: any) => a.number),
      [1],
    );
    assert.equal(after.nextAttemptAt, before.nextAttemptAt);
    assert.equal(await record(winner, 2), true, 'the holder of the lease for that slot records');
    const done = await delivery(sb, id);
    assert.equal(done.status, 'succeeded');
    assert.deepEqual(
      done.attempts.map((a: any) => a.number),
      [1, 2],
    );
    const [lease] = await db().query(
      `select lease_owner, lease_until, lease_slot from deliveries where tenant_id = $1 and id = $2`,
      [sb.id, id],
    );
    assert.deepEqual(
      lease,
      { lease_owner: null, lease_until: null, lease_slot: null },
      'recording gives the lease back',
    );
  } finally {
    await rx.close();
  }
});

test('the lease of an engine that is gone is taken again at once, not when it expires', async () => {
  const { sb, rx, id } = await failedOnce();
  try {
    rx.behaviour = { kind: 'status', status: 200 };
    // A crashed engine's lease with ten minutes left, on a retry that is due now.
    await leaseElsewhere(sb, id, 'ins_crashed_engine', 600_000);
    await db().query(
      `update deliveries set next_attempt_at = now() - interval '1 s' where tenant_id = $1 and id = $2`,
      [sb.id, id],
    );
    await rx.waitFor(2, 10_000);
    const done = await waitForDelivery(sb, id, (d) => d.status === 'succeeded');
    assert.deepEqual(
      done.attempts.map((a: any) => [a.number, a.trigger]),
      [
        [1, 'initial'],
        [2, 'retry'],
      ],
    );
  } finally {
    await rx.close();
  }
});

test("a disabled endpoint's deliveries are not leased; enabling it claims them by NOTIFY", async () => {
  const sb = await createSandbox(engine.url);
  const rx = await new Receiver().start();
  try {
    const endpoint = (
      await sb.api('/api/v1/webhooks/endpoints', { body: { url: rx.url, topics: ['order.placed'], enabled: false } })
    ).body;
    await placeOrder(sb);
    await placeOrder(sb);
    const leased = await db().query(
      `select count(*) as n from deliveries where tenant_id = $1 and lease_owner is not null`,
      [sb.id],
    );
    assert.deepEqual(leased, [{ n: 0 }]);
    assert.equal(rx.received.length, 0);
    await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}`, { method: 'PATCH', body: { enabled: true } });
    await rx.waitFor(2, 5_000);
    assert.equal(new Set(rx.received.map((r) => r.headers['x-service-delivery-id'])).size, 2);
  } finally {
    await rx.close();
  }
});

test('while another engine advances a sandbox, this one leaves its due work to that advance', async () => {
  const { sb, rx, id } = await failedOnce();
  try {
    rx.behaviour = { kind: 'status', status: 200 };
    // The mark another engine's advance holds (SandboxClock.whileAdvancing), over a retry due now and a new order.
    const mark = (sql: string) => db().query(`update tenants set advancing_until = ${sql} where id = $1`, [sb.id]);
    await mark(`now() + interval '60 s'`);
    await db().query(
      `update deliveries set next_attempt_at = now() - interval '1 s' where tenant_id = $1 and id = $2`,
      [sb.id, id],
    );
    await placeOrder(sb);
    await new Promise((r) => setTimeout(r, 600)); // several polls (100 ms)
    assert.equal(rx.received.length, 1, 'neither the due retry nor the new delivery was sent');
    assert.deepEqual(
      await db().query(`select count(*) as n from deliveries where tenant_id = $1 and lease_owner is not null`, [
        sb.id,
      ]),
      [{ n: 0 }],
    );
    // The advance ends (or its mark runs out): the work is this engine's again.
    await mark('null');
    await rx.waitFor(3, 10_000);
    await waitForDelivery(sb, id, (d) => d.status === 'succeeded');
  } finally {
    await rx.close();
  }
});

test('an NTP step back of the wall clock stretches neither a lease nor the heartbeat: a slot taken over is not sent twice', async () => {
  const { sb, rx, id } = await failedOnce();
  const { endpointId } = await delivery(sb, id);
  const wallNow = Date.now;
  // A second engine in this process, on the same database, with a one-second lease.
  const aliveMs = 60_000;
  const liveness = new EngineLiveness(db(), 'ins_stepped_engine', { aliveMs, exclusive: false, onError: () => {} });
  const leases = new DeliveryLeases(db(), liveness, 1_000, 100);
  try {
    await leases.start();
    const claimed = (
      await leases.claimMany({ tenantId: sb.id, endpointId, targetUrl: null }, [
        { id, when: { statuses: ['pending'] } },
      ])
    ).get(id);
    assert.ok(typeof claimed === 'object', 'leased to the second engine');
    // NTP steps this machine's wall clock back an hour (the whole process sees it, as it would).
    Date.now = () => wallNow() - 3_600_000;
    assert.ok(liveness.aliveRoomMs() <= aliveMs, 'the heartbeat vouches for no more than one alive period');
    // The lease runs out (a second on the monotonic clock) and another engine takes the slot.
    await new Promise((r) => setTimeout(r, 1_000));
    await leaseElsewhere(sb, id, 'ins_other_engine', 60_000);
    assert.equal(await leases.readyToSend(claimed), false, 'the lease is checked again, and found taken');
  } finally {
    Date.now = wallNow;
    await liveness.close();
    await rx.close();
  }
});
