// Two engines updating one webhook endpoint at once: the row is locked before it is read, so neither
// update loses the other's fields and only one of them sees the endpoint come back on (and resumes it).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { startSandbox, type RunningSandbox } from '../../../src/server/start.ts';
import { call, createSandbox } from '../../helpers/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/postgres.ts';
import { registerEndpoint } from '../../helpers/webhooks.ts';

let database: TestDatabase;
let a: RunningSandbox;
let b: RunningSandbox;
const quiet = { info() {}, warn() {}, error() {} };

before(async () => {
  database = await createTestDatabase();
  const start = () => startSandbox({ databaseUrl: database.url, memory: true, port: 0, logRequests: false, logger: quiet });
  a = await start();
  b = await start();
});
after(async () => {
  await a?.close();
  await b?.close();
  await database?.drop();
});

test('parallel PATCHes of different fields on two engines: both fields stick', async () => {
  const sandbox = await createSandbox(a.url);
  const endpoint = await registerEndpoint(sandbox, 'http://127.0.0.1:9/first', ['order.placed']);
  const path = `/api/v1/webhooks/endpoints/${endpoint.id}`;
  for (let round = 0; round < 10; round++) {
    const [onA, onB] = await Promise.all([
      call(a.url, path, { method: 'PATCH', token: sandbox.token, body: { description: `round ${round}` } }),
      call(b.url, path, { method: 'PATCH', token: sandbox.token, body: { url: `http://127.0.0.1:9/round-${round}` } }),
    ]);
    assert.equal(onA.status, 200);
    assert.equal(onB.status, 200);
    for (const engine of [a, b]) {
      const now = (await call(engine.url, path, { token: sandbox.token })).body;
      assert.equal(now.description, `round ${round}`);
      assert.equal(now.url, `http://127.0.0.1:9/round-${round}`);
    }
  }
});

test('two engines enabling one disabled endpoint at once: exactly one of them sees it come on', async () => {
  const sandbox = await createSandbox(a.url);
  const endpoint = await registerEndpoint(sandbox, 'http://127.0.0.1:9/hook', ['order.placed'], { enabled: false });
  // A third connection holds the row, so both updates have started before either may write.
  const holder = new pg.Client({ connectionString: database.url });
  await holder.connect();
  try {
    await holder.query('begin');
    await holder.query('select 1 from webhook_endpoints where tenant_id = $1 and id = $2 for update', [sandbox.id, endpoint.id]);
    const updates = Promise.all([a, b].map((engine) => engine.services.webhooks.endpoints.update(sandbox.id, endpoint.id, { enabled: true })));
    await new Promise((r) => setTimeout(r, 300));
    await holder.query('commit');
    const results = await updates;
    assert.deepEqual(results.map((r) => r.enabledNow).sort(), [false, true]);
    assert.ok(results.every((r) => r.endpoint.enabled));
  } finally {
    await holder.end();
  }
});
