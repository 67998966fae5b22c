// Two engines on one PostgreSQL database both hold a commerce job whose row no handler can process (a saved
// report of a kind no version computes): at its due time one of them runs it, fails it and sets it aside with
// its reason; neither runs it again nor logs it a second time at its polls, and the other engine lists it
// too (docs/decisions/failed-jobs.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunningSandbox } from '../../../src/server/start.ts';
import { createSandbox, type TestSandbox } from '../../helpers/engine.ts';
import { reportDueIn, setReportKind } from '../../helpers/reports.ts';
import { through, useTeamEngines } from '../../helpers/team.ts';
import { until } from '../../helpers/until.ts';

const logged: string[] = [];
const record = (line: string) => void logged.push(line);
const team = useTeamEngines(2, { jobPollMs: 50, logger: { info: record, warn: record, error: record } });

const failedOn = async (engine: RunningSandbox, sandbox: TestSandbox) =>
  (await through(engine, sandbox).api('/api/v1/sandbox/jobs/failed')).body.data as any[];

test('a job both engines hold fails once, is logged once, and neither engine runs it again', async () => {
  const [a, b] = team.engines;
  const sandbox = await createSandbox(a.url);
  const { id: bad } = await reportDueIn(through(a, sandbox), 1500);
  await setReportKind(a.services.db, sandbox.id, bad, 'nope');
  await until(
    async () => b.services.scheduler.pending(sandbox.id).some((j) => j.id === bad),
    (held) => held,
    'B to hold the job',
  );
  const [failed] = await until(
    () => failedOn(b, sandbox),
    (list) => list.length > 0,
    'the failure',
  );
  assert.equal(failed.objectId, bad);
  assert.match(failed.reason, /^cannot run the job: /);

  // A later job of the same sandbox, created on B, runs after many polls of both engines.
  const fine = await reportDueIn(through(b, sandbox), 1500);
  await until(
    async () => (await through(a, sandbox).api(`/api/v1/reports/${fine.id}/runs`)).body.data,
    (runs) => runs.length > 0,
    'the later report',
  );
  assert.equal((await failedOn(a, sandbox)).length, 1);
  const lines = logged.filter((l) => l.includes(bad));
  assert.equal(lines.length, 1, `logged once by the two engines: ${JSON.stringify(lines)}`);
});
