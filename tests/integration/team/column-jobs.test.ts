// Commerce column jobs (here a saved report falling due) run exactly once whichever engine finds them
// due, and run even when the engine that scheduled them has stopped
// (docs/decisions/commerce-column-jobs-run-once-whichever-engine.md).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { RunningSandbox } from '../../../src/server/start.ts';
import { createSandbox, type TestSandbox } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { reportDueIn } from '../../helpers/reports.ts';
import { through, useTeamEngines, withOpenTransaction } from '../../helpers/team.ts';
import { registerEndpoint } from '../../helpers/webhooks.ts';

const team = useTeamEngines(2, { jobPollMs: 200 });
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A sandbox whose saved_report.due webhooks reach the receiver at a path of its own. */
async function sandboxWithEndpoint(engine: RunningSandbox) {
  const sandbox = await createSandbox(engine.url);
  await registerEndpoint(sandbox, `${receiver.url}/${sandbox.id}`, ['saved_report.due']);
  return sandbox;
}

/** Creates an hourly report on `engine`, first due `inMs` from the sandbox's now; returns its id. */
const reportDueSoon = async (engine: RunningSandbox, sandbox: TestSandbox, inMs: number): Promise<string> =>
  (await reportDueIn(through(engine, sandbox), inMs)).id;

const hitsFor = (sandbox: TestSandbox) => receiver.received.filter((r) => r.path.endsWith(`/${sandbox.id}`));
const runsOf = async (engine: RunningSandbox, sandbox: TestSandbox, reportId: string) =>
  (await through(engine, sandbox).api(`/api/v1/reports/${reportId}/runs`)).body.data as unknown[];

async function until(done: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

test('a job both engines hold runs once when it falls due: one run, one event, one webhook', async () => {
  const [a, b] = team.engines;
  const sandbox = await sandboxWithEndpoint(a);
  const reportId = await reportDueSoon(a, sandbox, 1500);
  // B heard of the job A scheduled (NOTIFY at A's COMMIT), so both engines' timers fire at the due time.
  await until(() => b.services.scheduler.pending(sandbox.id).some((j) => j.id === reportId), 'B to hold the job');
  await until(() => hitsFor(sandbox).length >= 1, 'the saved_report.due webhook');
  await sleep(800); // several polls of both engines: nothing runs it again
  assert.equal(hitsFor(sandbox).length, 1, 'one saved_report.due webhook');
  assert.equal((await runsOf(b, sandbox, reportId)).length, 1, 'one report run');
  const events = await through(b, sandbox).api('/api/v1/events?topic=saved_report.due');
  assert.equal(events.body.data.length, 1, 'one saved_report.due event');
});

test('a job scheduled on an engine that stopped before it fell due is run by another', async () => {
  const [a] = team.engines;
  const c = await team.start();
  const sandbox = await sandboxWithEndpoint(c);
  const reportId = await reportDueSoon(c, sandbox, 1500);
  await c.close();
  await until(() => hitsFor(sandbox).length >= 1, 'the saved_report.due webhook');
  await sleep(500);
  assert.equal(hitsFor(sandbox).length, 1);
  assert.equal((await runsOf(a, sandbox, reportId)).length, 1);
});

test('a due job whose row another transaction holds is skipped without waiting, then run once by the poll', async () => {
  const [a] = team.engines;
  const sandbox = await sandboxWithEndpoint(a);
  const reportId = await reportDueSoon(a, sandbox, 1100);
  await withOpenTransaction(team.databaseUrl, async (holder) => {
    await holder.query('select 1 from saved_reports where tenant_id = $1 and id = $2 for update', [
      sandbox.id,
      reportId,
    ]);
    await sleep(1500); // due, and both engines' timers have fired and a few polls have passed
    const waiting = await holder.query(
      `select count(*)::int as n from pg_locks l join pg_stat_activity s on s.pid = l.pid where not l.granted and s.datname = current_database()`,
    );
    assert.equal(waiting.rows[0].n, 0, 'no engine waits on the held row (FOR UPDATE SKIP LOCKED)');
    assert.equal(hitsFor(sandbox).length, 0, 'nothing ran while the row was held');
    await holder.query('commit');
  });
  await until(() => hitsFor(sandbox).length >= 1, 'the poll to run the job');
  await sleep(600);
  assert.equal(hitsFor(sandbox).length, 1);
  assert.equal((await runsOf(a, sandbox, reportId)).length, 1);
});

test('while another engine advances a sandbox, its due jobs are left to that advance', async () => {
  const [a, b] = team.engines;
  const sandbox = await sandboxWithEndpoint(a);
  const reportId = await reportDueSoon(a, sandbox, 1500);
  // The mark an advance on a third engine holds (SandboxClock.whileAdvancing), over the job falling due.
  const mark = (sql: string) =>
    a.services.db.query(`update tenants set advancing_until = ${sql} where id = $1`, [sandbox.id]);
  await mark(`now() + interval '60 s'`);
  await sleep(2200); // due, both engines' timers fired, several polls
  assert.equal((await runsOf(b, sandbox, reportId)).length, 0, 'not run in real time');
  await mark('null'); // the advance ended (or its mark ran out): the poll runs it, once
  await until(() => hitsFor(sandbox).length >= 1, 'the saved_report.due webhook');
  assert.equal((await runsOf(b, sandbox, reportId)).length, 1);
});
