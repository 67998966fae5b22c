// Every connection of every engine ended by the server (pg_terminate_backend: what a failover or a
// proxy dropping connections does), twice, 2 s apart, under steady traffic: no engine dies, requests
// answer 2xx/4xx/503, every engine answers normally again within seconds, and the ledger holds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  assertAlive,
  assertLedger,
  assertOnlyAllowedAnswers,
  Probe,
  sandboxEverywhere,
  useFaultTeam,
} from './harness.ts';

const team = useFaultTeam(2);

test('pg_terminate_backend of every engine connection, twice 2 s apart: engines live, 2xx/4xx/503 only, recovered, ledger whole', async (t) => {
  await team.start(20);
  const views = await sandboxEverywhere(team.engines, team.receiver.url);
  const probe = new Probe(views, team.engines);
  await new Promise((r) => setTimeout(r, 1_500));
  const first = await team.server.terminate('sandbay');
  await new Promise((r) => setTimeout(r, 2_000));
  const second = await team.server.terminate('sandbay');
  const faultEnd = Date.now();
  assert.ok(
    first >= 4 && second >= 4,
    `each engine's pool and LISTEN connections were ended (${first}, then ${second})`,
  );
  const recoveryMs = await probe.recovered(faultEnd);
  await probe.stop();
  t.diagnostic(
    `${team.server.label}: answers ${JSON.stringify(probe.statuses())}; every engine normal again ${recoveryMs} ms after the second cut`,
  );
  assertAlive(team.engines);
  assertOnlyAllowedAnswers(probe);
  assert.ok(recoveryMs <= 5_000, `recovered in ${recoveryMs} ms`);
  const { deliveries } = await assertLedger(team.url, team.receiver);
  assert.ok(deliveries > 10, `orders made deliveries throughout (${deliveries})`);
});
