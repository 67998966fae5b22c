// A crashed engine loses nothing (SPEC §9): kill -9 one of two engines in the middle of a burst and the
// other sends everything, the dead engine's leased work included. A live engine's lease is honoured
// until it expires, and only then taken over.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { openPostgres } from '../../../src/db/postgres.ts';
import { registerEndpoint } from '../../helpers/webhooks.ts';
import { eventually, LedgerReceiver, placeOrders, sandboxOnAll, team } from './engines.ts';

const closing: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closing.reverse()) await close();
});

// Short leases and a quick poll, so that the takeover is seen in seconds rather than 30 s.
const tuning = { SANDBAY_DELIVERY_LEASE_MS: '3000', SANDBAY_DELIVERY_POLL_MS: '300' };

test('kill -9 one engine mid-burst: the other sends every delivery, its leased ones included; 0 lost', async () => {
  const receiver = await new LedgerReceiver().start();
  receiver.holdMs = 50; // attempts stay in flight long enough to be cut off by the kill
  closing.push(() => receiver.close());
  const {
    engines: [a, b],
    database,
    close,
  } = await team(2, tuning);
  closing.push(close);
  const [onA, onB] = await sandboxOnAll([a, b]);
  await registerEndpoint(onA, receiver.url, ['order.placed']);
  await placeOrders([onA], 150);
  await eventually('A sending', 30_000, async () => (receiver.total >= 20 ? true : undefined));
  a.child.kill('SIGKILL');
  await a.exited;
  await placeOrders([onB], 50);

  const db = openPostgres({ connectionString: database.url });
  closing.push(() => db.close());
  const pending = async () =>
    (await db.query<{ n: number }>(`select count(*) as n from deliveries where status <> 'succeeded'`))[0].n;
  await eventually('every delivery succeeded', 60_000, async () => ((await pending()) === 0 ? true : undefined));
  const ids = (await db.query<{ id: string }>('select id from deliveries')).map((r) => r.id);
  assert.equal(ids.length, 200);
  assert.ok(
    ids.every((id) => (receiver.seen.get(id) ?? 0) >= 1),
    'every delivery reached the receiver',
  );
  const attempts = await db.query<{ n: number }>('select count(*) as n from attempts');
  assert.deepEqual(
    attempts,
    [{ n: 200 }],
    'one recorded attempt each (an attempt cut off by the kill is sent again, at least once)',
  );
  assert.deepEqual(await db.query('select count(*) as n from deliveries where lease_owner is not null'), [{ n: 0 }]);
});

test("a live engine's lease is not taken before it expires; after, another engine takes the slot", async () => {
  const receiver = await new LedgerReceiver((_id, nth) => (nth === 1 ? 500 : 200)).start();
  closing.push(() => receiver.close());
  const { engines, database, close } = await team(1, tuning);
  closing.push(close);
  const [sb] = await sandboxOnAll(engines);
  await registerEndpoint(sb, receiver.url, ['order.placed']);
  await placeOrders([sb], 1, 1);
  const db = openPostgres({ connectionString: database.url });
  closing.push(() => db.close());
  const [{ id }] = await eventually('the first attempt recorded', 10_000, async () => {
    const rows = await db.query<{ id: string }>(`select id from deliveries where attempt_count = 1`);
    return rows.length === 1 ? rows : undefined;
  });
  // Another engine, alive (its heartbeat vouches for it for a minute), leased the retry, now due, for 2 more seconds.
  await db.query(
    `insert into engine_heartbeats (engine_id, alive_until) values ('ins_other_engine', now() + interval '60 s')`,
  );
  const [{ until }] = await db.query<{ until: Date }>(
    `update deliveries set lease_owner = 'ins_other_engine', lease_slot = 2, lease_until = now() + interval '2 s',
            next_attempt_at = next_attempt_at - interval '1 h'
      where id = $1 returning lease_until as until`,
    [id],
  );
  await eventually('the retry after the lease expired', 20_000, async () => (receiver.total === 2 ? true : undefined));
  // Same machine, same clock: the database's lease_until and the receiver's arrival time compare.
  assert.ok(
    receiver.arrivals[1] >= until.getTime() - 20,
    `sent ${until.getTime() - receiver.arrivals[1]} ms before the lease ran out`,
  );
  await eventually('the retry recorded', 10_000, async () => {
    const rows = await db.query<{ trigger: string }>(`select trigger from attempts where number = 2`);
    return rows[0]?.trigger;
  });
  const [row] = await db.query<{ status: string; lease_owner: string | null }>(
    'select status, lease_owner from deliveries where id = $1',
    [id],
  );
  assert.deepEqual(row, { status: 'succeeded', lease_owner: null });
});
