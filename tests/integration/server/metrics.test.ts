// GET /api/v1/metrics: the operator's view of what the engine costs its database (--workers: workers.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox, problem, useEngine } from '../../helpers/engine.ts';

const engine = useEngine();

test("GET /api/v1/metrics takes the admin key and reports the engine's database round trips", async () => {
  const sandbox = await createSandbox(engine.url);
  problem(await call(engine.url, '/api/v1/metrics'), 401, 'missing_token');
  problem(await sandbox.api('/api/v1/metrics'), 403, 'admin_key_required');

  const db = engine.running.services.db;
  const before = db.roundTrips();
  const res = await call(engine.url, '/api/v1/metrics', { token: engine.running.adminKey });
  const after = db.roundTrips();
  assert.equal(res.status, 200);
  assert.equal(res.body.processes, 1);
  // What the engine's Db had counted when the route read it (background work may add some meanwhile).
  assert.ok(before > 0 && before <= res.body.databaseRoundTrips && res.body.databaseRoundTrips <= after, res.body);
});
