// A stalled server (SIGSTOP of the postmaster and every backend for 8 s, then SIGCONT): connections
// stay open and nothing answers. Requests wait at most the request timeout and answer 2xx/4xx/503,
// never a hang; no engine dies; every engine answers normally again within seconds; the ledger holds.
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

test('SIGSTOP of the server for 8 s, then SIGCONT: engines live, no hang, 2xx/4xx/503 only, recovered, ledger whole', async (t) => {
  await team.start(20);
  const views = await sandboxEverywhere(team.engines, team.receiver.url);
  const probe = new Probe(views, team.engines);
  await new Promise((r) => setTimeout(r, 1_500));
  team.server.pause();
  try {
    await new Promise((r) => setTimeout(r, 8_000));
  } finally {
    team.server.resume();
  }
  const faultEnd = Date.now();
  const recoveryMs = await probe.recovered(faultEnd);
  await probe.stop();
  const slowest = Math.max(...probe.seen.map((s) => s.doneAt - s.sentAt));
  t.diagnostic(
    `${team.server.label}: answers ${JSON.stringify(probe.statuses())}; slowest answer ${slowest} ms; ` +
      `every engine normal again ${recoveryMs} ms after SIGCONT`,
  );
  assertAlive(team.engines);
  assertOnlyAllowedAnswers(probe);
  assert.ok(recoveryMs <= 5_000, `recovered in ${recoveryMs} ms`);
  await assertLedger(team.url, team.receiver);
});
