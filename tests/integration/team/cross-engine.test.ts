// Two engines on one PostgreSQL database act as one: what one changes, the other's caches drop at once.
// Changes to cached rows (tokens, endpoints and their secrets, clocks) are announced by the database's
// triggers at COMMIT, whoever makes them (src/db/cache-registry.ts); resets and deletes by the engine.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { startSandbox, type RunningSandbox } from '../../../src/server/start.ts';
import { call, createSandbox, type TestSandbox } from '../../helpers/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/postgres.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { SseClient } from '../../helpers/sse.ts';

let database: TestDatabase;
let a: RunningSandbox;
let b: RunningSandbox;
const quiet = { info() {}, warn() {}, error() {} };
const start = () =>
  startSandbox({ databaseUrl: database.url, memory: true, port: 0, logRequests: false, logger: quiet });

before(async () => {
  database = await createTestDatabase();
  a = await start();
  b = await start();
});
after(async () => {
  await a?.close();
  await b?.close();
  await database?.drop();
});

/** Polls `read` until `done` (an announcement takes a few milliseconds to cross); returns the last value. */
async function soon<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 2000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
}

const statusOn = (engine: RunningSandbox, token: string) => async () =>
  (await call(engine.url, '/api/v1/sandbox', { token })).status;

async function revoke(engine: RunningSandbox, sandbox: TestSandbox, token: string) {
  return call(engine.url, '/oauth/revoke', {
    body: { token, client_id: sandbox.clientId, client_secret: sandbox.clientSecret },
  });
}

test('a token revoked on A (RFC 7009) is refused on B, which had it cached', async () => {
  const sandbox = await createSandbox(a.url);
  assert.equal(await statusOn(b, sandbox.token)(), 200, 'B verified the token and keeps it in its cache');
  const res = await revoke(a, sandbox, sandbox.token);
  assert.equal(res.status, 200);
  assert.equal(await soon(statusOn(b, sandbox.token), (s) => s === 401), 401);
  assert.equal(await statusOn(a, sandbox.token)(), 401);
  // The same answer for a token that is unknown or already revoked: the endpoint tells nothing.
  assert.equal((await revoke(b, sandbox, sandbox.token)).status, 200);
  assert.equal((await revoke(b, sandbox, 'sat_nothing')).status, 200);
  assert.equal(
    (await call(a.url, '/oauth/revoke', { body: { token: 'x', client_id: sandbox.clientId, client_secret: 'wrong' } }))
      .status,
    401,
  );
  assert.equal(
    (await call(a.url, '/oauth/revoke', { body: { client_id: sandbox.clientId, client_secret: sandbox.clientSecret } }))
      .status,
    400,
  );
});

test('revoking a refresh token on A revokes the access tokens of its grant on B; another grant keeps working', async () => {
  const sandbox = await createSandbox(a.url);
  const other = await call(b.url, '/oauth/token', {
    body: { grant_type: 'client_credentials', client_id: sandbox.clientId, client_secret: sandbox.clientSecret },
  });
  assert.equal(await statusOn(b, sandbox.token)(), 200);
  assert.equal((await revoke(a, sandbox, sandbox.refreshToken)).status, 200);
  assert.equal(await soon(statusOn(b, sandbox.token), (s) => s === 401), 401, 'the access token of the revoked grant');
  assert.equal(await statusOn(b, other.body.access_token)(), 200, 'a token of another grant');
});

test("a clock advance on A is B's time too; a reset on A sets B's clock back and revokes on B with --all", async () => {
  const sandbox = await createSandbox(a.url);
  const offsetOn = (engine: RunningSandbox) => async () =>
    (await call(engine.url, '/api/v1/sandbox/clock', { token: sandbox.token })).body.offsetSeconds;
  assert.equal(await offsetOn(b)(), 0);
  await call(a.url, '/api/v1/sandbox/clock/advance', { token: sandbox.token, body: { seconds: 7200 } });
  assert.equal(await soon(offsetOn(b), (o) => o === 7200), 7200);

  const reset = await call(a.url, '/api/v1/sandbox/reset', { token: sandbox.token, body: { scope: 'all' } });
  assert.equal(reset.status, 200);
  const fresh = reset.body.credentials.accessToken;
  assert.equal(await soon(statusOn(b, sandbox.token), (s) => s === 401), 401, 'the tokens from before the reset');
  assert.equal((await call(b.url, '/api/v1/sandbox/clock', { token: fresh })).body.offsetSeconds, 0);
});

test('an endpoint changed on A is what B sends to: a rotated secret, then a new URL', async () => {
  const first = await new Receiver().start();
  const second = await new Receiver().start();
  try {
    const sandbox = await createSandbox(a.url);
    const endpoint = await call(a.url, '/api/v1/webhooks/endpoints', {
      token: sandbox.token,
      body: { url: first.url, topics: ['order.placed'] },
    });
    const test = () =>
      call(b.url, '/api/v1/webhooks/test', {
        token: sandbox.token,
        body: { topic: 'order.placed', endpoint: endpoint.body.id },
      });
    const signatures = (r: Receiver, i: number) =>
      String(r.received[i].headers['x-service-signature']).match(/v1=/g)?.length;
    assert.equal((await test()).status, 202);
    await first.waitFor(1);
    assert.equal(signatures(first, 0), 1, 'B has the endpoint and its one secret cached');
    // The rotation alone: nothing else about the endpoint changes.
    const rotated = await call(a.url, `/api/v1/webhooks/endpoints/${endpoint.body.id}/rotate-secret`, {
      token: sandbox.token,
      body: {},
    });
    assert.ok(rotated.body.secret.startsWith('whsec_'));
    await soon(
      async () => {
        assert.equal((await test()).status, 202);
        await first.waitFor(first.received.length + 1);
        return signatures(first, first.received.length - 1);
      },
      (n) => n === 2,
    );
    assert.equal(signatures(first, first.received.length - 1), 2, `B signs with the new secret and the old one`);
    const sentFirst = first.received.length;
    await call(a.url, `/api/v1/webhooks/endpoints/${endpoint.body.id}`, {
      method: 'PATCH',
      token: sandbox.token,
      body: { url: second.url },
    });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal((await test()).status, 202);
    await second.waitFor(1);
    assert.equal(first.received.length, sentFirst, 'nothing more to the old URL');
    assert.equal(signatures(second, 0), 2);
  } finally {
    await first.close();
    await second.close();
  }
});

test('a change made outside Sandbay (a psql session) reaches both engines: a revoked token, an endpoint URL, a clock', async () => {
  const receiver = await new Receiver().start();
  const elsewhere = await new Receiver().start();
  const psql = new pg.Client({ connectionString: database.url });
  await psql.connect();
  try {
    const sandbox = await createSandbox(a.url);
    const endpoint = await call(a.url, '/api/v1/webhooks/endpoints', {
      token: sandbox.token,
      body: { url: receiver.url, topics: ['order.placed'] },
    });
    for (const engine of [a, b]) {
      assert.equal(await statusOn(engine, sandbox.token)(), 200);
      assert.equal(
        (
          await call(engine.url, '/api/v1/webhooks/test', {
            token: sandbox.token,
            body: { topic: 'order.placed', endpoint: endpoint.body.id },
          })
        ).status,
        202,
      );
    }
    await receiver.waitFor(2);
    const clockOn = (engine: RunningSandbox) => async () =>
      (await call(engine.url, '/api/v1/sandbox/clock', { token: sandbox.token })).body.offsetSeconds;
    await psql.query('update tenants set clock_offset_ms = 3600000 where id = $1', [sandbox.id]);
    await psql.query('update webhook_endpoints set url = $3 where tenant_id = $1 and id = $2', [
      sandbox.id,
      endpoint.body.id,
      elsewhere.url,
    ]);
    for (const engine of [a, b]) {
      assert.equal(await soon(clockOn(engine), (o) => o === 3600), 3600);
      assert.equal(
        (
          await call(engine.url, '/api/v1/webhooks/test', {
            token: sandbox.token,
            body: { topic: 'order.placed', endpoint: endpoint.body.id },
          })
        ).status,
        202,
      );
    }
    await elsewhere.waitFor(2);
    assert.equal(receiver.received.length, 2, 'both engines send to the new URL');
    await psql.query('update oauth_tokens set revoked_at = now() where tenant_id = $1', [sandbox.id]);
    for (const engine of [a, b]) assert.equal(await soon(statusOn(engine, sandbox.token), (s) => s === 401), 401);
  } finally {
    await psql.end();
    await receiver.close();
    await elsewhere.close();
  }
});

test('a sandbox deleted on A is gone on B', async () => {
  const sandbox = await createSandbox(a.url);
  assert.equal(await statusOn(b, sandbox.token)(), 200);
  assert.equal((await call(a.url, '/api/v1/sandbox', { method: 'DELETE', token: sandbox.token })).status, 204);
  assert.equal(await soon(statusOn(b, sandbox.token), (s) => s === 401), 401);
});

test("a delivery made on A reaches B's live stream; Last-Event-ID from B resumes on A", async () => {
  const receiver = await new Receiver().start();
  const sandbox = await createSandbox(a.url);
  const auth = { authorization: `Bearer ${sandbox.token}` };
  const order = {
    customerId: 'cus_0002',
    items: [{ variantId: 'var_0001', quantity: 1 }],
    shippingAddress: { city: 'Bursa', district: 'Nilüfer' },
  };
  const placeOn = (engine: RunningSandbox) => call(engine.url, '/api/v1/orders', { token: sandbox.token, body: order });
  try {
    await call(a.url, '/api/v1/webhooks/endpoints', {
      token: sandbox.token,
      body: { url: receiver.url, topics: ['order.placed'] },
    });
    const onB = new SseClient(`${b.url}/api/v1/events/stream`, auth);
    await onB.open();
    await placeOn(a);
    const created = await onB.waitFor((m) => m.event === 'delivery.created');
    const done = await onB.waitFor((m) => m.event === 'delivery.updated' && m.data.status === 'succeeded');
    assert.equal(done.data.id, created.data.id);
    onB.close();

    await placeOn(b);
    await receiver.waitFor(2);
    const onA = new SseClient(`${a.url}/api/v1/events/stream`, { ...auth, 'last-event-id': done.id! });
    await onA.open();
    try {
      const missed = await onA.waitFor((m) => m.event === 'delivery.created');
      const latest = (await call(a.url, '/api/v1/webhooks/deliveries', { token: sandbox.token })).body.data[0];
      assert.equal(missed.data.id, latest.id, 'the delivery made on B while the client was away, replayed by A');
      assert.ok(
        onA.messages.every((m) => m.event !== 'reset'),
        'resumed, not reset',
      );
    } finally {
      onA.close();
    }
  } finally {
    await receiver.close();
  }
});

test("a catcher hit on A is in B's log; one Idempotency-Key sent to A and B at once runs once", async () => {
  const sandbox = await createSandbox(a.url);
  const made = await call(a.url, '/api/v1/catchers/shared', {
    method: 'PUT',
    token: sandbox.token,
    body: { status: 200 },
  });
  assert.equal(made.status, 201);
  const hit = await fetch(`${a.url}/catch/${sandbox.id}/shared`, {
    method: 'POST',
    body: '{"hello":"B"}',
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(hit.status, 200);
  // Written once the answer is out (the catcher answers first): soon on every engine.
  const log = await soon(
    () => call(b.url, '/api/v1/catchers/shared/requests', { token: sandbox.token }),
    (res) => res.body.data.length > 0,
  );
  assert.equal(log.body.data.length, 1);
  assert.equal(log.body.data[0].body, '{"hello":"B"}');

  const order = {
    customerId: 'cus_0002',
    items: [{ variantId: 'var_0001', quantity: 1 }],
    shippingAddress: { city: 'Bursa', district: 'Nilüfer' },
  };
  const headers = { 'idempotency-key': `both-${Date.now()}` };
  const [onA, onB] = await Promise.all(
    [a, b].map((engine) => call(engine.url, '/api/v1/orders', { token: sandbox.token, body: order, headers })),
  );
  assert.equal(onA.status, 201);
  assert.equal(onB.status, 201);
  assert.equal(onA.body.id, onB.body.id, 'the same order, created once');
  assert.equal((await call(b.url, `/api/v1/orders/${onA.body.id}`, { token: sandbox.token })).status, 200);
  const events = await call(a.url, '/api/v1/events?topic=order.placed', { token: sandbox.token });
  assert.equal(
    events.body.data.filter((e: unknown) => JSON.stringify(e).includes(onA.body.id)).length,
    1,
    'one order.placed',
  );
});

test("a client streaming on B before engine C started sees C's first delivery; so does one that joins later", async () => {
  const receiver = await new Receiver().start();
  const sandbox = await createSandbox(a.url);
  const auth = { authorization: `Bearer ${sandbox.token}` };
  const order = {
    customerId: 'cus_0003',
    items: [{ variantId: 'var_0001', quantity: 1 }],
    shippingAddress: { city: 'Ankara', district: 'Çankaya' },
  };
  await call(a.url, '/api/v1/webhooks/endpoints', {
    token: sandbox.token,
    body: { url: receiver.url, topics: ['order.placed'] },
  });
  const early = new SseClient(`${b.url}/api/v1/events/stream`, auth);
  await early.open();
  // Only sandboxes someone streams are written to the shared stream: C must know of the watch B made.
  const c = await start();
  try {
    const first = (await call(c.url, '/api/v1/orders', { token: sandbox.token, body: order })).body;
    const created = await early.waitFor((m) => m.event === 'delivery.created');
    const made = (await call(c.url, `/api/v1/webhooks/deliveries?limit=1`, { token: sandbox.token })).body.data[0];
    assert.equal(created.data.id, made.id, `C's delivery for ${first.id}, on B`);

    // A sandbox nobody streamed yet: C learns of the new watch before its next write, with no pause.
    const other = await createSandbox(c.url);
    await call(c.url, '/api/v1/webhooks/endpoints', {
      token: other.token,
      body: { url: receiver.url, topics: ['order.placed'] },
    });
    const late = new SseClient(`${b.url}/api/v1/events/stream`, { authorization: `Bearer ${other.token}` });
    await late.open();
    try {
      await call(c.url, '/api/v1/orders', { token: other.token, body: order });
      const next = await late.waitFor((m) => m.event === 'delivery.created');
      const newest = (await call(c.url, `/api/v1/webhooks/deliveries?limit=1`, { token: other.token })).body.data[0];
      assert.equal(next.data.id, newest.id);
    } finally {
      late.close();
    }
  } finally {
    early.close();
    await c.close();
    await receiver.close();
  }
});
