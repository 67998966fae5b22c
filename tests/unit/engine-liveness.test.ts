// The engine's heartbeat on a real database, with the database taken away and given back: when an
// engine may take over other engines' leases, and when it must re-check a lease of its own before
// it sends (docs/decisions/liveness-is-a-heartbeat-row-not-a-session-lock.md).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Db } from '../../src/db/database.ts';
import { DatabaseUnavailableError } from '../../src/db/errors.ts';
import { openSandboxDatabase } from '../../src/server/database.ts';
import { DeliveryLeases, type LeasedDelivery } from '../../src/webhooks/leases.ts';
import { EngineLiveness } from '../../src/webhooks/liveness.ts';
import { monotonicNow } from '../../src/shared/monotonic.ts';

let real: Db;
let down = false;
/** The real database, unreachable while `down` is set (as a restart or a cut connection makes it). */
let db: Db;
before(async () => {
  real = await openSandboxDatabase({ memory: true });
  db = {
    ...real,
    query: (sql, params, options) =>
      down
        ? Promise.reject(new DatabaseUnavailableError('connection refused', 'ECONNREFUSED'))
        : real.query(sql, params, options),
  };
});
after(() => real.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const errors: string[] = [];
const aliveMs = 1_000; // beats every 100 ms

test("other engines' leases are taken over only after three heartbeats in a row; an outage starts that count again", async () => {
  const liveness = new EngineLiveness(db, 'ins_beating', { aliveMs, exclusive: false, onError: (m) => errors.push(m) });
  await liveness.start();
  try {
    assert.equal(
      liveness.settled(),
      false,
      'just started: a live engine may not have beaten since the database came back',
    );
    await sleep(400);
    assert.equal(liveness.settled(), true);
    const [row] = await real.query<{ n: number }>(
      `select count(*)::int as n from engine_heartbeats where engine_id = 'ins_beating' and alive_until > now()`,
    );
    assert.equal(row.n, 1, 'its row says it is alive');

    down = true;
    await sleep(250);
    assert.equal(liveness.settled(), false, 'a failed heartbeat: no takeover');
    assert.equal(liveness.trustedSince(), Number.POSITIVE_INFINITY, 'no lease of its own is trusted unchecked');
    assert.ok(liveness.aliveRoomMs() < aliveMs - 200, 'its last heartbeat vouches for it less and less');
    assert.ok(errors.some((m) => m.startsWith('engine heartbeat failed')));
    const outageEnded = monotonicNow();
    down = false;
    assert.equal(await liveness.nextBeat(1_000), true, 'a beat lands soon after the database is back');
    assert.ok(liveness.trustedSince() >= outageEnded - 50);
    assert.equal(liveness.settled(), false);
    await sleep(400);
    assert.equal(liveness.settled(), true);
  } finally {
    down = false;
    await liveness.close();
  }
  assert.deepEqual(
    await real.query(`select 1 from engine_heartbeats where engine_id = 'ins_beating'`),
    [],
    'a closed engine leaves no row',
  );
});

test('a lease taken before an outage is checked with the database before its attempt; one taken since, with room left, is not', async () => {
  const liveness = new EngineLiveness(db, 'ins_sender', {
    aliveMs: 20_000,
    exclusive: false,
    onError: () => undefined,
  });
  const leases = new DeliveryLeases(db, liveness, 30_000, 10_000);
  await liveness.start();
  try {
    const lease = (leasedAt: number): LeasedDelivery => ({
      tenantId: 'ten_none',
      id: 'dlv_none',
      endpointId: null,
      targetUrl: null,
      topic: 'order.placed',
      body: '{}',
      attemptCount: 0,
      cycleAttempts: 0,
      slot: 1,
      sandboxNowMs: Date.now(),
      leasedAt,
    });
    assert.equal(await leases.readyToSend(lease(monotonicNow())), true, 'fresh: sent without a round trip');
    const before = monotonicNow() - 1;
    down = true;
    await sleep(2_100); // a failed beat
    down = false;
    // The lease predates the outage: renewing it is how the engine learns whether it is still its own.
    // No such delivery here, so the renewal finds nothing: the attempt must not go out.
    assert.equal(await leases.readyToSend(lease(before)), false);
    // Once a heartbeat has landed again, a lease taken since is trusted as before.
    await liveness.nextBeat(2_000);
    assert.equal(await leases.readyToSend(lease(monotonicNow())), true);
  } finally {
    down = false;
    await liveness.close();
  }
});
