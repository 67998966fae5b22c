// `sandbay jobs failed` lists the jobs on the sandbox clock set aside because their row could not be processed,
// and `sandbay jobs retry` runs one again once the row is repaired (docs/decisions/failed-jobs.md). The job is
// made to fail as tests/integration/commerce/failed-jobs.test.ts does: a saved report whose row holds a kind no
// version of Sandbay computes, run by a clock advance.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertOneLineFailures, runCli, runCliJson } from '../helpers/cli.ts';
import { createSandbox, useEngine, type TestSandbox } from '../helpers/engine.ts';
import { reportDueIn, setReportKind } from '../helpers/reports.ts';

const engine = useEngine();
const as = (sb: TestSandbox) => ['--url', engine.url, '--token', sb.token];

test('jobs failed lists a job set aside with its reason; jobs retry runs it again once its row is repaired', async () => {
  const sb = await createSandbox(engine.url);
  assert.equal((await runCli(['jobs', 'failed', ...as(sb)])).stdout, 'No failed jobs.\n');
  const report = await reportDueIn(sb, 3600_000);
  await setReportKind(engine.running.services.db, sb.id, report.id, 'nope');
  assert.equal((await runCli(['clock', 'advance', '90m', ...as(sb)])).code, 0);

  const listed = await runCli(['jobs', 'failed', ...as(sb)]);
  assert.equal(listed.code, 0, listed.stderr);
  const [header, row, ...rest] = listed.stdout.split('\n');
  assert.match(header, /^JOB\s+KIND\s+OBJECT\s+DUE\s+REASON$/);
  const id = new RegExp(
    `^(fjb_\\w+)\\s+report\\.due\\s+${report.id}\\s+${report.nextDueAt.replace(/\./g, '\\.')}\\s+cannot run the job: \\S`,
  ).exec(row)?.[1];
  assert.ok(id, listed.stdout);
  assert.deepEqual(rest, ['']);
  const { data } = await runCliJson(['jobs', 'failed', ...as(sb)]);
  assert.deepEqual(
    data.map((j: any) => [j.id, j.kind, j.objectId, j.dueAt]),
    [[id, 'report.due', report.id, report.nextDueAt]],
  );

  await setReportKind(engine.running.services.db, sb.id, report.id, 'sales_summary');
  const retried = await runCli(['jobs', 'retry', id, ...as(sb)]);
  assert.equal(retried.code, 0, retried.stderr);
  assert.equal(
    retried.stdout,
    `Retrying ${id}: report.due for ${report.id} runs now; \`sandbay jobs failed\` lists it if it fails again\n`,
  );
  assert.deepEqual((await runCliJson(['jobs', 'failed', ...as(sb)])).data, []);
  await assertOneLineFailures([
    [['jobs', 'retry', id, ...as(sb)], /^sandbay: No such failed job\. \(not_found\)$/],
    [['jobs', 'failed', '--limit', '0', ...as(sb)], /^sandbay: \/limit: .*\(validation_failed\)$/],
  ]);
});

test('jobs retry --json prints the failure as it was; jobs failed pages with --limit and --cursor', async () => {
  const sb = await createSandbox(engine.url);
  for (const name of ['Bir', 'İki']) {
    const report = await reportDueIn(sb, 3600_000, name);
    await setReportKind(engine.running.services.db, sb.id, report.id, 'nope');
  }
  assert.equal((await runCli(['clock', 'advance', '90m', ...as(sb)])).code, 0);
  const first = await runCli(['jobs', 'failed', '--limit', '1', ...as(sb)]);
  const cursor = /^… more: --cursor (\S+)$/m.exec(first.stdout)?.[1];
  assert.ok(cursor, first.stdout);
  const second = await runCliJson(['jobs', 'failed', '--limit', '1', '--cursor', cursor, ...as(sb)]);
  assert.equal(second.data.length, 1);
  assert.equal(second.nextCursor, null);
  assert.doesNotMatch(first.stdout, new RegExp(second.data[0].id), 'the second page holds the other job');

  const retried = await runCliJson(['jobs', 'retry', second.data[0].id, ...as(sb)]);
  assert.deepEqual(retried, second.data[0]);
});
