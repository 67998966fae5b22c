// What a delivery's SQL costs on PGlite, in the engine's own process: the CPU of the statements every attempt goes
// through (its lease, its outcome and attempt record), per delivery, with the real migrations, DeliveryLeases and
// AttemptRecorder; beside them a bare one-row update and insert at the same batch size. On PGlite the statements run
// on the engine's thread, so their sum is a floor under the engine's CPU per delivery: it says how far batching alone
// can take the deliveries/s (docs/performance.md, "Delivery SQL").
import type { Db } from '../../src/db/database.ts';
import { openSandboxDatabase } from '../../src/server/database.ts';
import { AttemptRecorder } from '../../src/webhooks/attempt-recorder.ts';
import { DeliveryLeases, type LeasedDelivery } from '../../src/webhooks/leases.ts';
import { EngineLiveness } from '../../src/webhooks/liveness.ts';
import { sectionRows, type BenchRow } from './table.ts';

const row = sectionRows('delivery-sql');
const deliveries = 5_000;
const endpoints = 4;
/** Outcomes recorded together: the engine's ten in flight on each of four endpoints. */
const inFlight = 40;

/** CPU microseconds that `work` takes (this process: PGlite runs on its thread). */
async function cpuOf(work: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return used.user + used.system;
}

/** A sandbox with `endpoints` endpoints and `deliveries` due deliveries of an order-sized body, spread over them. */
async function seed(db: Db): Promise<void> {
  await db.query(`insert into tenants (id, name, webhook_test_secret) values ('sbx_bench', 'bench', 'whsec_bench')`);
  await db.query(
    `insert into webhook_endpoints (tenant_id, id, url, topics, created_at, updated_at)
     select 'sbx_bench', 'we_' || g, 'http://127.0.0.1:9/hook', '{order.placed}', now(), now() from generate_series(1, $1::int) g`,
    [endpoints],
  );
  const body = JSON.stringify({ topic: 'order.placed', data: { id: 'ord_bench', items: [], note: 'x'.repeat(400) } });
  await db.query(
    `insert into deliveries (tenant_id, id, event_id, endpoint_id, topic, status, body, next_attempt_at, created_at, updated_at)
     select 'sbx_bench', 'dlv_' || g, 'evt_' || g, 'we_' || (g % $2::int + 1), 'order.placed', 'pending', $3,
            now() - interval '1 second', now(), now()
       from generate_series(1, $1::int) g`,
    [deliveries, endpoints, body],
  );
  await db.query('analyze deliveries');
}

/**
 * Every due delivery leased and its first attempt recorded as a 200, as the claim loop and the dispatcher go: a claim
 * per endpoint (up to 200 leases), then their outcomes `inFlight` at a time. Returns the CPU of each half.
 */
async function deliverAll(
  leases: DeliveryLeases,
  recorder: AttemptRecorder,
): Promise<{ claim: number; outcome: number }> {
  const cpu = { claim: 0, outcome: 0 };
  let delivered = 0;
  for (let e = 1; e <= endpoints; e++) {
    const target = { tenantId: 'sbx_bench', endpointId: `we_${e}`, targetUrl: null };
    for (;;) {
      let claimed: LeasedDelivery[] = [];
      cpu.claim += await cpuOf(async () => {
        ({ claimed } = await leases.claimTarget(target));
      });
      if (claimed.length === 0) break;
      cpu.outcome += await cpuOf(() => recordAll(recorder, claimed, leases.owner));
      delivered += claimed.length;
    }
  }
  if (delivered !== deliveries) throw new Error(`bench: delivered ${delivered} of ${deliveries}`);
  return { claim: cpu.claim / deliveries, outcome: cpu.outcome / deliveries };
}

/** The leased deliveries' first attempts recorded as 200s, `inFlight` outcomes at a time. */
async function recordAll(recorder: AttemptRecorder, leased: LeasedDelivery[], owner: string): Promise<void> {
  for (let i = 0; i < leased.length; i += inFlight) {
    const kept = await Promise.all(
      leased.slice(i, i + inFlight).map((d) =>
        recorder.record({
          tenantId: d.tenantId,
          deliveryId: d.id,
          lease: { owner, slot: d.slot },
          attempt: {
            number: d.slot,
            trigger: 'initial',
            url: 'http://127.0.0.1:9/hook',
            startedAt: new Date(),
            durationMs: 1,
            signatureHeader: 't=1,v1=00',
            responseStatus: 200,
            responseHeaders: { 'content-type': 'text/plain' },
            responseBody: 'ok',
            error: null,
            chaos: null,
          },
          delivery: {
            status: 'succeeded',
            attemptCount: d.slot,
            cycleAttempts: 1,
            nextAttemptAt: null,
            updatedAt: new Date(),
          },
        }),
      ),
    );
    if (kept.some((k) => !k)) throw new Error('bench: an outcome was not recorded');
  }
}

/** The same number of rows touched by the plainest statements, `inFlight` rows each: the floor of any row write. */
async function bareRows(db: Db): Promise<{ update: number; insert: number }> {
  const batches = Array.from({ length: deliveries / inFlight }, (_, b) =>
    Array.from({ length: inFlight }, (_, i) => `dlv_${b * inFlight + i + 1}`),
  );
  const update = await cpuOf(async () => {
    for (const ids of batches)
      await db.query(
        `update deliveries set last_status = 200 where tenant_id = 'sbx_bench' and id = any($1::text[])`,
        [ids],
        {
          prepare: true,
        },
      );
  });
  await db.query('create table bench_rows (tenant_id text, id text, at timestamptz, primary key (tenant_id, id))');
  const insert = await cpuOf(async () => {
    for (const ids of batches)
      await db.query(`insert into bench_rows select 'sbx_bench', u, now() from unnest($1::text[]) u`, [ids], {
        prepare: true,
      });
  });
  return { update: update / deliveries, insert: insert / deliveries };
}

export async function run(): Promise<BenchRow[]> {
  const db = await openSandboxDatabase({ memory: true });
  try {
    await seed(db);
    const liveness = new EngineLiveness(db, 'eng_bench', { aliveMs: 30_000, exclusive: true, onError: () => {} });
    const leases = new DeliveryLeases(db, liveness, 60_000, 10_000);
    await leases.start();
    const recorder = new AttemptRecorder(db);
    const { claim, outcome } = await deliverAll(leases, recorder);
    await leases.close();
    const bare = await bareRows(db);
    const floor = claim + outcome;
    return [
      row('PGlite: the claim (lease) of one delivery, in claims of up to 200', claim, 'µs CPU'),
      row(`PGlite: its outcome and attempt record, ${inFlight} a statement`, outcome, 'µs CPU'),
      row('PGlite: the two together, the SQL under one delivery', floor, 'µs CPU'),
      row('PGlite: deliveries/s that SQL alone leaves one core', 1e6 / floor, '/s'),
      row(`PGlite: a bare one-column update of one row, ${inFlight} a statement`, bare.update, 'µs CPU'),
      row(`PGlite: a bare three-column insert of one row, ${inFlight} a statement`, bare.insert, 'µs CPU'),
    ];
  } finally {
    await db.close();
  }
}
