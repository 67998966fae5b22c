// A commerce job whose row its handler cannot process (SPEC §12, issue 28): a saved report whose stored kind
// no version of Sandbay knows, written straight into the database as another version or a crafted file could
// have. Its job is set aside as failed with its reason (listed by the API), logged once, left out of every later
// poll and advance; the sandbox's other jobs and other sandboxes' jobs and deliveries go on. A database fault is
// no such failure: the job stays owed. Once the row is repaired, a retry runs it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DatabaseUnavailableError } from '../../../src/db/errors.ts';
import { FailedJobs } from '../../../src/domain/commerce/failed-jobs.ts';
import { overdueJobs } from '../../../src/domain/commerce/jobs.ts';
import { reportDueHandler } from '../../../src/domain/reports/reports.ts';
import { createSandbox, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { reportDueIn, setReportKind } from '../../helpers/reports.ts';
import { SseClient } from '../../helpers/sse.ts';
import { until } from '../../helpers/until.ts';
import { registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';
import { advance, ok } from './helpers.ts';

// As `node --unhandled-rejections=strict` would: one unhandled rejection ends the test process, failing the file.
process.on('unhandledRejection', (err) => {
  console.error('unhandled rejection:', err);
  process.exit(70);
});

const logged: string[] = [];
const record = (line: string) => void logged.push(line);
const engine = useEngine({ jobPollMs: 50, deliveryPollMs: 100, logger: { info: record, warn: record, error: record } });
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

const db = () => engine.running.services.db;
const reportJob = () => reportDueHandler(engine.running.services).job;

/** Makes the report's row one no handler can process: a kind no version of Sandbay computes. */
const corrupt = (sb: TestSandbox, reportId: string) => setReportKind(db(), sb.id, reportId, 'nope');

const failedJobs = async (sb: TestSandbox) => ok(await sb.api('/api/v1/sandbox/jobs/failed')).data;
const logLines = (objectId: string) => logged.filter((l) => l.includes(objectId));

test('on the real clock: the job fails once with its reason, later polls skip it, other work goes on', async () => {
  const [broken, other] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const endpoint = await registerEndpoint(other, receiver.url, ['saved_report.due']);
  const bad = await reportDueIn(broken, 1500, 'Bozuk');
  await corrupt(broken, bad.id);
  await reportDueIn(other, 1500);

  const [failed] = await until(
    () => failedJobs(broken),
    (list) => list.length > 0,
    'the failure',
  );
  assert.equal(failed.kind, 'report.due');
  assert.equal(failed.objectId, bad.id);
  assert.equal(failed.dueAt, bad.nextDueAt);
  assert.equal(failed.reason, `cannot run the job: unknown report kind "nope"`);
  assert.match(failed.id, /^fjb_/);
  assert.ok(Date.parse(failed.ranAsOf) >= Date.parse(bad.nextDueAt));

  // Another sandbox's job ran and its delivery succeeded; the broken sandbox's next job runs too, well after
  // many polls (every 50 ms) have come and gone.
  const [summary] = await until(
    async () => ok(await other.api(`/api/v1/webhooks/deliveries?endpointId=${endpoint.id}`)).data,
    (list) => list.length > 0,
    "the other sandbox's saved_report.due",
  );
  await waitForDelivery(other, summary.id, (d) => d.status === 'succeeded');
  const fine = await reportDueIn(broken, 1500, 'Sağlam');
  await until(
    async () => ok(await broken.api(`/api/v1/reports/${fine.id}`)),
    (r) => r.lastRunAt !== null,
    "the broken sandbox's other report",
  );
  assert.equal(logLines(bad.id).length, 1, `logged once: ${JSON.stringify(logLines(bad.id))}`);
  assert.doesNotMatch(logLines(bad.id)[0], /\n\s+at /, 'no stack');
  assert.equal((await failedJobs(broken)).length, 1);
  const overdue = await overdueJobs(db(), [reportJob()], 500);
  assert.ok(!overdue.some((j) => j.id === bad.id), 'the poll leaves it out');
  assert.deepEqual(ok(await broken.api(`/api/v1/reports/${bad.id}/runs`)).data, [], 'it never ran');
});

test('in a clock advance: the job fails once, later advances skip it, the sandbox’s other jobs run; a retry runs it once repaired', async (t) => {
  const sb = await createSandbox(engine.url);
  const bad = await reportDueIn(sb, 3600_000);
  const fine = await reportDueIn(sb, 3600_000, 'Sağlam');
  await corrupt(sb, bad.id);
  const sse = new SseClient(`${engine.url}/api/v1/events/stream`, { authorization: `Bearer ${sb.token}` });
  await sse.open();
  t.after(() => sse.close());

  await advance(sb, 3 * 3600 + 60);
  const failed = await failedJobs(sb);
  assert.deepEqual(
    failed.map((f: any) => [f.objectId, f.dueAt, f.ranAsOf]),
    [[bad.id, bad.nextDueAt, bad.nextDueAt]],
    'failed once, as of its due time',
  );
  assert.equal(ok(await sb.api(`/api/v1/reports/${fine.id}/runs`)).data.length, 3, 'the other report ran each hour');
  await advance(sb, 3600);
  assert.equal((await failedJobs(sb)).length, 1);
  assert.equal(logLines(bad.id).length, 1, `logged once: ${JSON.stringify(logLines(bad.id))}`);
  const told = await sse.waitFor((m) => m.event === 'job.failed');
  assert.deepEqual(told.data, { id: failed[0].id, error: failed[0].reason }, 'the live stream told of it');
  const due = await reportDueHandler(engine.running.services).due(
    sb.id,
    Date.parse(ok(await sb.api('/api/v1/sandbox/clock')).now),
  );
  assert.ok(!due.some((j) => j.id === bad.id), 'an advance leaves it out');

  await setReportKind(db(), sb.id, bad.id, 'sales_summary');
  const retried = ok(await sb.api(`/api/v1/sandbox/jobs/failed/${failed[0].id}/retry`, { method: 'POST' }), 202);
  assert.equal(retried.id, failed[0].id);
  await until(
    async () => ok(await sb.api(`/api/v1/reports/${bad.id}/runs`)).data,
    (runs) => runs.length > 0,
    'the retried run',
  );
  assert.deepEqual(await failedJobs(sb), []);
  const again = await sb.api(`/api/v1/sandbox/jobs/failed/${failed[0].id}/retry`, { method: 'POST' });
  assert.equal(again.status, 404);
});

test('a database fault is no failure of the row: the job is not set aside, and the error is thrown on', async () => {
  const sb = await createSandbox(engine.url);
  const r = await reportDueIn(sb, 3600_000);
  const failures = new FailedJobs(db(), record);
  const handler = failures.guard({
    ...reportDueHandler(engine.running.services),
    run: () => Promise.reject(new DatabaseUnavailableError('the database went away', '57P01')),
  });
  await assert.rejects(
    handler.run({ kind: 'report.due', tenantId: sb.id, id: r.id, dueAt: Date.parse(r.nextDueAt) }, Date.now()),
    DatabaseUnavailableError,
  );
  assert.deepEqual(await failedJobs(sb), []);
  assert.equal(logLines(r.id).length, 0);
});

test('a reason quoting a NUL from the stored row is recorded without it (PostgreSQL text holds none)', async () => {
  const sb = await createSandbox(engine.url);
  const r = await reportDueIn(sb, 3600_000);
  const handler = new FailedJobs(db(), record).guard({
    ...reportDueHandler(engine.running.services),
    run: () => Promise.reject(new Error('unknown kind "no\0pe"')),
  });
  await handler.run({ kind: 'report.due', tenantId: sb.id, id: r.id, dueAt: Date.parse(r.nextDueAt) }, Date.now());
  const [failed] = await failedJobs(sb);
  assert.equal(failed.reason, 'cannot run the job: unknown kind "nope"');
});
