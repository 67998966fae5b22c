// Caches across engines (src/db/cache-registry.ts): a rotation and a reset made on engine A are what A
// and B use at once, a request racing the reset cannot put the old token back in A's cache, and a token
// revoked while B's notification connection is away is refused by B all the same.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { RunningSandbox } from '../../src/server/start.ts';
import { call, createSandbox, type TestSandbox } from '../helpers/engine.ts';
import { Receiver } from '../helpers/receiver.ts';
import { sql, useOwnServer } from './own-server.ts';

const own = useOwnServer();
const receiver = new Receiver();
let a: RunningSandbox;
let b: RunningSandbox;
const logOfB: string[] = [];
before(async () => {
  await receiver.start();
  a = await own.start();
  const record = (line: string) => void logOfB.push(line);
  b = await own.start({ logger: { info: record, warn: record, error: record } });
});
after(() => receiver.close());

/** An announcement crosses from one engine to another in milliseconds; this is the most a test waits for it. */
const budgetMs = 2000;

async function soon<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (const deadline = Date.now() + budgetMs; ; await new Promise((r) => setTimeout(r, 10))) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
  }
}

const statusOn = (engine: RunningSandbox, token: string) => async () =>
  (await call(engine.url, '/api/v1/sandbox', { token })).status;

/** Sends a test webhook through `engine` to the endpoint; returns how many `v1=` its signature carried. */
async function signaturesVia(engine: RunningSandbox, sandbox: TestSandbox, endpointId: string): Promise<number> {
  const n = receiver.received.length;
  const res = await call(engine.url, '/api/v1/webhooks/test', {
    token: sandbox.token,
    body: { topic: 'order.placed', endpoint: endpointId },
  });
  assert.equal(res.status, 202);
  const [, got] = await receiver.waitFor(n + 1).then((all) => [n, all[n]] as const);
  return String(got.headers['x-service-signature']).match(/v1=/g)?.length ?? 0;
}

test('a secret rotated on A signs at once on A and on B, with nothing else changed first', async () => {
  const sandbox = await createSandbox(a.url);
  const endpoint = await call(a.url, '/api/v1/webhooks/endpoints', {
    token: sandbox.token,
    body: { url: receiver.url, topics: ['order.placed'] },
  });
  // Both engines have the endpoint and its one secret cached.
  assert.equal(await signaturesVia(a, sandbox, endpoint.body.id), 1);
  assert.equal(await signaturesVia(b, sandbox, endpoint.body.id), 1);
  const rotated = await call(a.url, `/api/v1/webhooks/endpoints/${endpoint.body.id}/rotate-secret`, {
    token: sandbox.token,
    body: {},
  });
  assert.equal(rotated.status, 200);
  assert.equal(
    await signaturesVia(a, sandbox, endpoint.body.id),
    2,
    'A, the very next attempt: the new secret and the old one',
  );
  assert.equal(
    await soon(
      () => signaturesVia(b, sandbox, endpoint.body.id),
      (n) => n === 2,
    ),
    2,
    'B',
  );
});

test('a reset with scope all on A: A refuses the old token from its next request, whatever raced the reset; so does B', async () => {
  const sandbox = await createSandbox(a.url);
  assert.equal(await statusOn(a, sandbox.token)(), 200);
  assert.equal(await statusOn(b, sandbox.token)(), 200);
  // Requests with the old token hammer A while the reset runs: one that reads the token row just before
  // the revocation commits must not put it back in A's cache.
  let resetting = true;
  const racers = Array.from({ length: 8 }, async () => {
    while (resetting) await statusOn(a, sandbox.token)();
  });
  const reset = await call(a.url, '/api/v1/sandbox/reset', { token: sandbox.token, body: { scope: 'all' } });
  resetting = false;
  await Promise.all(racers);
  assert.equal(reset.status, 200);
  for (let i = 0; i < 5; i++)
    assert.equal(await statusOn(a, sandbox.token)(), 401, `A, request ${i + 1} after the reset`);
  await new Promise((r) => setTimeout(r, 100)); // A's own announcement has arrived: still refused
  assert.equal(await statusOn(a, sandbox.token)(), 401);
  assert.equal(await soon(statusOn(b, sandbox.token), (s) => s === 401), 401, 'B');
  assert.equal(await statusOn(b, reset.body.credentials.accessToken)(), 200, 'the fresh credentials work everywhere');
});

test("a token revoked while B's notification connection is away is refused by B, and after it is back", async () => {
  const sandbox = await createSandbox(a.url);
  assert.equal(await statusOn(b, sandbox.token)(), 200, 'cached on B');
  const serverUrl = await own.serverUrl();
  const database = new URL(await own.url()).pathname.slice(1);
  // Keep the listeners from reconnecting while the token is revoked: the gap is what is tested.
  await sql(serverUrl, `alter database ${database} allow_connections false`);
  try {
    const killed = await sql(
      serverUrl,
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and application_name = 'sandbay-listen'`,
      [database],
    );
    assert.equal(killed.length, 2, "both engines' listen connections");
    await soon(async () => logOfB.some((l) => l.includes('listen connection lost')), Boolean);
    assert.ok(
      logOfB.some((l) => l.includes('listen connection lost')),
      'B noticed',
    );
    const revoked = await call(a.url, '/oauth/revoke', {
      body: { token: sandbox.token, client_id: sandbox.clientId, client_secret: sandbox.clientSecret },
    });
    assert.equal(revoked.status, 200);
    assert.equal(await statusOn(b, sandbox.token)(), 401, 'B, whose listener missed the announcement');
    assert.equal(await statusOn(a, sandbox.token)(), 401, 'A');
  } finally {
    await sql(serverUrl, `alter database ${database} allow_connections true`);
  }
  await soon(async () => logOfB.some((l) => l.includes('listen connection restored')), Boolean);
  assert.ok(
    logOfB.some((l) => l.includes('listen connection restored')),
    'B listens again',
  );
  assert.equal(await statusOn(b, sandbox.token)(), 401, 'B, after the gap');
  const fresh = await call(b.url, '/oauth/token', {
    body: { grant_type: 'client_credentials', client_id: sandbox.clientId, client_secret: sandbox.clientSecret },
  });
  assert.equal(await statusOn(b, fresh.body.access_token)(), 200, 'B serves as before');
});
