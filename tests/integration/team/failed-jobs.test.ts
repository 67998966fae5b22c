// Two engines on one PostgreSQL database both hold a commerce job whose row no handler can process (a saved
// report of a kind no version computes): at its due time one of them runs it, fails it and sets it aside with
// its reason; neither runs it again nor logs it a second time at its polls, and the other engine lists it
// too (docs/decisions/failed-jobs.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunningSandbox } from '../../../src/server/start.ts';
import { call, createSandbox, type TestSandbox } from '../../helpers/engine.ts';
import { useTeamEngines } from '../../helpers/team.ts';

const logged: string[] = [];
const record = (line: string) => void logged.push(line);
const team = useTeamEngines(2, { jobPollMs: 50, logger: { info: record, warn: record, error: record } });

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} never happened: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Creates an hourly report on `engine`, first due `inMs` from now (the sandbox's clock is the real one). */
async function reportDueSoon(engine: RunningSandbox, sandbox: TestSandbox, inMs: number): Promise<string> {
  const firstRunAt = new Date(Date.now() + inMs).toISOString();
  const res = await call(engine.url, '/api/v1/reports', {
    token: sandbox.token,
    body: { name: 'soon', kind: 'sales_summary', schedule: 'hourly', firstRunAt },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id as string;
}

const failedOn = async (engine: RunningSandbox, sandbox: TestSandbox) =>
  (await call(engine.url, '/api/v1/sandbox/jobs/failed', { token: sandbox.token })).body.data as any[];

test('a job both engines hold fails once, is logged once, and neither engine runs it again', async () => {
  const [a, b] = team.engines;
  const sandbox = await createSandbox(a.url);
  const bad = await reportDueSoon(a, sandbox, 1500);
  await a.services.db.query(`update saved_reports set kind = 'nope' where tenant_id = $1 and id = $2`, [
    sandbox.id,
    bad,
  ]);
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
  const fine = await reportDueSoon(b, sandbox, 1500);
  await until(
    async () => (await call(a.url, `/api/v1/reports/${fine}/runs`, { token: sandbox.token })).body.data,
    (runs) => runs.length > 0,
    'the later report',
  );
  assert.equal((await failedOn(a, sandbox)).length, 1);
  const lines = logged.filter((l) => l.includes(bad));
  assert.equal(lines.length, 1, `logged once by the two engines: ${JSON.stringify(lines)}`);
});
