// Insertion order is not commit order: a row inserted first (lower sequence) can commit after a later one.
// A client polling a newest-first list for what is new (reading until the first row it has seen) must
// still get it, and must not wait for it: lists order rows by the position their transaction took in
// its sandbox at COMMIT (migration 075; docs/decisions/lists-and-the-live-stream-are-in-commit-order.md). The
// transactions held open here run on a server of the file's own.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import type { RunningSandbox } from '../../src/server/start.ts';
import { createSandbox, type TestSandbox } from '../helpers/engine.ts';
import { Receiver } from '../helpers/receiver.ts';
import { withOpenTransaction } from '../helpers/team.ts';
import { placeOrder, registerEndpoint } from '../helpers/webhooks.ts';
import { useOwnServer } from './own-server.ts';

const own = useOwnServer();
const receiver = new Receiver();
let engine: RunningSandbox;
before(async () => {
  await receiver.start();
  engine = await own.start();
});
after(() => receiver.close());

/** A client polling a newest-first list: reads pages until it meets a row it has seen; returns the new ids. */
async function pollNew(sandbox: TestSandbox, path: string, seen: Set<string>): Promise<string[]> {
  const fresh: string[] = [];
  for (let cursor: string | null = null; ;) {
    const res = await sandbox.api(`${path}?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    for (const row of res.body.data as { id: string }[]) {
      if (seen.has(row.id)) return fresh;
      seen.add(row.id);
      fresh.push(row.id);
    }
    cursor = res.body.nextCursor;
    if (!cursor) return fresh;
  }
}

/**
 * Inserts an event and its delivery in an open transaction of another connection (they take the lower sequence
 * numbers).
 */
async function insertHeld(client: pg.Client, sandbox: TestSandbox, suffix: string) {
  await client.query(
    `insert into events (tenant_id, id, topic, occurred_at, data) values ($1, $2, 'order.placed', now(), '{}')`,
    [sandbox.id, `evt_late${suffix}`],
  );
  await client.query(
    `insert into deliveries (tenant_id, id, event_id, target_url, topic, status, body, created_at, updated_at)
     values ($1, $2, $3, 'http://127.0.0.1:9/', 'order.placed', 'succeeded', '{}', now(), now())`,
    [sandbox.id, `dlv_late${suffix}`, `evt_late${suffix}`],
  );
  return { eventId: `evt_late${suffix}`, deliveryId: `dlv_late${suffix}` };
}

test('a row that commits after a later one is not skipped by a client polling the events and deliveries lists', async () => {
  const sandbox = await createSandbox(engine.url);
  await registerEndpoint(sandbox, receiver.url, ['order.placed']);
  await placeOrder(sandbox);
  const seenEvents = new Set<string>();
  const seenDeliveries = new Set<string>();
  assert.equal((await pollNew(sandbox, '/api/v1/events', seenEvents)).length, 1);
  assert.equal((await pollNew(sandbox, '/api/v1/webhooks/deliveries', seenDeliveries)).length, 1);

  const held = await withOpenTransaction(await own.url(), async (slow) => {
    const rows = await insertHeld(slow, sandbox, '1');
    await placeOrder(sandbox); // a higher sequence number, committed first
    // Polled while the first transaction is still open: the order's rows are listed at once; the held
    // ones, uncommitted, are not, and will take a later position when they commit.
    const whileHeldEvents = await pollNew(sandbox, '/api/v1/events', seenEvents);
    const whileHeldDeliveries = await pollNew(sandbox, '/api/v1/webhooks/deliveries', seenDeliveries);
    assert.ok(
      !whileHeldEvents.includes(rows.eventId) && !whileHeldDeliveries.includes(rows.deliveryId),
      'uncommitted rows are not listed',
    );
    assert.equal(
      whileHeldEvents.length,
      1,
      'the order committed first is listed without waiting for the open transaction',
    );
    assert.equal(whileHeldDeliveries.length, 1);
    await slow.query('commit');
    return rows;
  });
  await pollNew(sandbox, '/api/v1/events', seenEvents);
  await pollNew(sandbox, '/api/v1/webhooks/deliveries', seenDeliveries);
  assert.ok(seenEvents.has(held.eventId), 'the late event was polled');
  assert.ok(seenDeliveries.has(held.deliveryId), 'the late delivery was polled');
  assert.equal(seenEvents.size, 3);
  assert.equal(seenDeliveries.size, 3);

  // Paging the whole list from the first page still shows every row once.
  const all = await pollNew(sandbox, '/api/v1/webhooks/deliveries', new Set());
  assert.equal(new Set(all).size, 3);
});

test('what committed before a list request is listed (read-your-writes), even while another transaction is open', async () => {
  const sandbox = await createSandbox(engine.url);
  await registerEndpoint(sandbox, receiver.url, ['order.placed']);
  await withOpenTransaction(await own.url(), async (other) => {
    await other.query('select pg_current_xact_id()'); // the oldest transaction running: the old design's horizon
    const order = await placeOrder(sandbox);
    const events = (await sandbox.api('/api/v1/events?limit=1')).body.data;
    assert.equal(events[0]?.data.orderId, order.id);
    await other.query('commit');
  });
});
