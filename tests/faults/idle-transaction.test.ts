// A session left open in a transaction (a teammate's psql `BEGIN`), in the engines' database or in another
// database of the same server (transaction ids are server-wide): the live stream and the lists do not wait
// on it. Each delivery reaches every engine's stream within the usual budget and every list at once, and
// Last-Event-ID resumes exactly, on the other engine too
// (docs/decisions/lists-and-the-live-stream-are-in-commit-order.md).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { RunningSandbox } from '../../src/server/start.ts';
import { call, createSandbox, type TestSandbox } from '../helpers/engine.ts';
import { Receiver } from '../helpers/receiver.ts';
import { SseClient } from '../helpers/sse.ts';
import { placeOrder, registerEndpoint, waitForDelivery } from '../helpers/webhooks.ts';
import { idleInTransaction, useOwnServer } from './own-server.ts';

const own = useOwnServer();
const receiver = new Receiver();
let a: RunningSandbox;
let b: RunningSandbox;
let idle: { end(): Promise<void> }[] = [];
before(async () => {
  await receiver.start();
  a = await own.start();
  b = await own.start();
  // Opened once the engines run, so every transaction of theirs is younger than both.
  idle = [await idleInTransaction(await own.url()), await idleInTransaction(await own.database())];
});
after(async () => {
  for (const session of idle) await session.end();
  await receiver.close();
});

/**
 * Well above a delivery's usual trip to the stream (tens of milliseconds), far below "as long as the session stays
 * open".
 */
const budgetMs = 3000;

const streamOn = (engine: RunningSandbox, sandbox: TestSandbox, lastEventId?: string) =>
  new SseClient(`${engine.url}/api/v1/events/stream`, {
    authorization: `Bearer ${sandbox.token}`,
    ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
  });
const listOn = async (engine: RunningSandbox, sandbox: TestSandbox, path: string) => {
  const res = await call(engine.url, path, { token: sandbox.token });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as any[];
};

test("with transactions left open in this and another database, a delivery reaches every engine's stream and every list at once", async () => {
  const sandbox = await createSandbox(a.url);
  await registerEndpoint(sandbox, receiver.url, ['order.placed']);
  const [onA, onB] = [streamOn(a, sandbox), streamOn(b, sandbox)];
  await onA.open();
  await onB.open();
  try {
    const order = await placeOrder(sandbox);
    const [createdA, createdB] = await Promise.all(
      [onA, onB].map((s) => s.waitFor((m) => m.event === 'delivery.created', budgetMs)),
    );
    assert.equal(createdA.data.id, createdB.data.id);
    assert.equal(createdA.id, createdB.id, 'the same message id on every engine');
    await Promise.all(
      [onA, onB].map((s) =>
        s.waitFor((m) => m.event === 'delivery.updated' && m.data.status === 'succeeded', budgetMs),
      ),
    );
    for (const engine of [a, b]) {
      assert.equal(
        (await listOn(engine, sandbox, '/api/v1/webhooks/deliveries'))[0]?.id,
        createdA.data.id,
        'listed at once',
      );
      assert.equal((await listOn(engine, sandbox, '/api/v1/events'))[0]?.data.orderId, order.id);
    }

    // The DLQ too: an endpoint deleted with a delivery waiting dead-letters it.
    const paused = await registerEndpoint(sandbox, receiver.url, ['order.placed'], { enabled: false });
    await placeOrder(sandbox);
    const waiting = (await listOn(a, sandbox, `/api/v1/webhooks/deliveries?endpointId=${paused.id}`))[0];
    assert.equal(waiting?.status, 'pending');
    assert.equal(
      (await call(b.url, `/api/v1/webhooks/endpoints/${paused.id}`, { method: 'DELETE', token: sandbox.token })).status,
      204,
    );
    for (const engine of [a, b])
      assert.equal((await listOn(engine, sandbox, '/api/v1/webhooks/dlq'))[0]?.id, waiting.id);
  } finally {
    onA.close();
    onB.close();
  }
});

test('Last-Event-ID resumes exactly on the other engine while the transactions stay open: no gap, nothing twice', async () => {
  const sandbox = await createSandbox(a.url);
  await registerEndpoint(sandbox, receiver.url, ['order.placed']);
  const first = streamOn(b, sandbox);
  await first.open();
  await placeOrder(sandbox);
  const seen = await first.waitFor((m) => m.event === 'delivery.updated' && m.data.status === 'succeeded', budgetMs);
  first.close();

  const missed: string[] = [];
  for (let i = 0; i < 5; i++) {
    const d = (await listOn(b, sandbox, '/api/v1/webhooks/deliveries'))[0];
    await placeOrder(sandbox);
    const fresh = (await listOn(a, sandbox, '/api/v1/webhooks/deliveries'))[0];
    assert.notEqual(fresh.id, d.id, 'the new delivery is listed at once');
    missed.push(fresh.id);
  }
  for (const id of missed) await waitForDelivery(sandbox, id, (d) => d.status === 'succeeded');
  const resumed = streamOn(a, sandbox, seen.id);
  await resumed.open();
  try {
    await resumed.waitFor((m) => m.event === 'delivery.updated' && m.data.id === missed.at(-1), budgetMs);
    const ids = resumed.messages.map((m) => Number(m.id));
    assert.deepEqual(
      ids,
      ids.map((_, i) => Number(seen.id) + 1 + i),
      'consecutive numbers from just after the last one seen',
    );
    const created = resumed.messages.filter((m) => m.event === 'delivery.created').map((m) => m.data.id);
    assert.deepEqual(created, missed, 'every delivery made meanwhile, once, in order');
  } finally {
    resumed.close();
  }
});

test('a new stream without Last-Event-ID starts at now, on an engine started while the transactions are open', async () => {
  const sandbox = await createSandbox(a.url);
  await registerEndpoint(sandbox, receiver.url, ['order.placed']);
  const watcher = streamOn(a, sandbox);
  await watcher.open();
  for (let i = 0; i < 20; i++) await placeOrder(sandbox);
  await watcher.waitFor(
    (m) =>
      m.event === 'delivery.created' && watcher.messages.filter((x) => x.event === 'delivery.created').length === 20,
    budgetMs * 2,
  );
  watcher.close();
  const c = await own.start();
  const fresh = streamOn(c, sandbox);
  await fresh.open();
  try {
    await placeOrder(sandbox);
    const created = await fresh.waitFor((m) => m.event === 'delivery.created', budgetMs);
    assert.equal(created.data.id, (await listOn(c, sandbox, '/api/v1/webhooks/deliveries'))[0].id, 'only the new one');
    assert.equal(fresh.messages.filter((m) => m.event === 'delivery.created').length, 1, 'nothing old replayed');
  } finally {
    fresh.close();
  }
});
