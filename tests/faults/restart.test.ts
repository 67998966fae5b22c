// A database restart (`pg_ctl restart -m fast`: every session ends, the server is gone for a moment)
// in the middle of a burst of 500 deliveries through two engines: no engine dies, requests answer
// 2xx/4xx/503, and the ledger is whole — every delivery succeeded, none reached the receiver twice for
// one attempt slot, including those whose outcome was waiting to be recorded when the server went.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  assertAlive,
  assertLedger,
  assertOnlyAllowedAnswers,
  eventually,
  Probe,
  sandboxEverywhere,
  timedCall,
  useFaultTeam,
} from './harness.ts';

const team = useFaultTeam(2);
const order = {
  customerId: 'cus_0001',
  items: [{ variantId: 'var_0001', quantity: 1 }],
  shippingAddress: { city: 'İzmir', district: 'Konak' },
};

test('pg_ctl restart -m fast mid-burst of 500 deliveries: engines live, 2xx/4xx/503 only, recovered, every delivery once per slot', async (t) => {
  await team.start(30); // attempts stay in flight for a while, so the restart cuts some off before they are recorded
  const views = await sandboxEverywhere(team.engines, team.receiver.url);
  const probe = new Probe(views, team.engines, 1);
  // The burst: orders spread over both engines, a 503 (the database away) tried again, until 500 are accepted.
  let accepted = 0;
  const burst = Promise.all(
    team.engines.flatMap((engine) =>
      Array.from({ length: 4 }, async () => {
        while (accepted < 500) {
          const { status } = await timedCall(engine.url, '/api/v1/orders', views[0].token, 'POST', order);
          if (status === 201) accepted++;
          else if (status !== 503) throw new Error(`an order answered ${status}`);
          else await new Promise((r) => setTimeout(r, 100));
        }
      }),
    ),
  );
  await eventually('the burst under way', 60_000, async () => (team.receiver.total >= 100 ? true : undefined));
  const restartStarted = Date.now();
  await team.server.restart();
  const faultEnd = Date.now();
  await burst;
  const recoveryMs = await probe.recovered(faultEnd);
  await probe.stop();
  t.diagnostic(
    `${team.server.label}: restart took ${faultEnd - restartStarted} ms; probe answers ${JSON.stringify(probe.statuses())}; ` +
      `every engine normal again ${recoveryMs} ms after the server was back`,
  );
  const kept = team.engines.map((e) => (e.stderr.match(/keeping \d+ attempt outcome/g) ?? []).length);
  t.diagnostic(`engines that kept outcomes through the restart (times): ${kept.join(', ')}`);
  assertAlive(team.engines);
  assertOnlyAllowedAnswers(probe);
  assert.ok(recoveryMs <= 5_000, `recovered in ${recoveryMs} ms`);
  const { deliveries } = await assertLedger(team.url, team.receiver);
  assert.ok(deliveries >= 500, `${deliveries} deliveries`);
});
