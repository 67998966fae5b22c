// Two engines updating one webhook endpoint at once: the row is locked before it is read, so neither
// update loses the other's fields and only one of them sees the endpoint come back on (and resumes it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox } from '../../helpers/engine.ts';
import { useTeamEngines, withOpenTransaction } from '../../helpers/team.ts';
import { registerEndpoint } from '../../helpers/webhooks.ts';

const team = useTeamEngines(2);

test('parallel PATCHes of different fields on two engines: both fields stick', async () => {
  const [a, b] = team.engines;
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
  const [a, b] = team.engines;
  const sandbox = await createSandbox(a.url);
  const endpoint = await registerEndpoint(sandbox, 'http://127.0.0.1:9/hook', ['order.placed'], { enabled: false });
  // A third connection holds the row, so both updates have started before either may write.
  await withOpenTransaction(team.databaseUrl, async (holder) => {
    await holder.query('select 1 from webhook_endpoints where tenant_id = $1 and id = $2 for update', [
      sandbox.id,
      endpoint.id,
    ]);
    const updates = Promise.all(
      [a, b].map((engine) => engine.services.webhooks.endpoints.update(sandbox.id, endpoint.id, { enabled: true })),
    );
    await new Promise((r) => setTimeout(r, 300));
    await holder.query('commit');
    const results = await updates;
    assert.deepEqual(results.map((r) => r.enabledNow).sort(), [false, true]);
    assert.ok(results.every((r) => r.endpoint.enabled));
  });
});
