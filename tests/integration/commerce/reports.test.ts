import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { advance, eventTopics, lastEvent, ok, order, pay, paths } from './helpers.ts';

const engine = useEngine();

test('saved_report.due fires when the clock passes the due time; the run holds the result over the period just ended', async () => {
  const sb = await createSandbox(engine.url);
  const report = ok(
    await sb.api('/api/v1/reports', { body: { name: 'Saatlik satış', kind: 'sales_summary', schedule: 'hourly' } }),
    201,
  );
  assert.equal(report.active, true);
  const created = Date.parse(report.createdAt);
  assert.equal(Date.parse(report.nextDueAt) - created, 3600_000);
  const [o1, o2] = [await order(sb, [{ variantId: 'var_0001', quantity: 2 }]), await order(sb)];
  ok(await pay(sb, o1.id), 201);

  await advance(sb, 3590 - (Date.now() - created) / 1000);
  assert.ok(!(await eventTopics(sb)).includes('saved_report.due'), 'not before it is due');
  await advance(sb, 20);
  const e = await lastEvent(sb, 'saved_report.due');
  assert.deepEqual(
    [e.data.reportId, e.data.dueAt, e.occurredAt, e.data.kind],
    [report.id, report.nextDueAt, report.nextDueAt, 'sales_summary'],
  );
  assert.equal(Date.parse(e.data.nextDueAt) - Date.parse(e.data.dueAt), 3600_000);
  const run = ok(await sb.api(e.data.resultPath));
  assert.deepEqual([run.periodStart, run.periodEnd], [e.data.periodStart, e.data.periodEnd]);
  assert.equal(run.result.orders, 2);
  assert.equal(run.result.revenue, Math.round((o1.total + o2.total) * 100) / 100);
  assert.deepEqual(Object.keys(run.result.byStatus).sort(), ['paid', 'placed']);
});

test('one long advance runs every due time in order, each as of its own time; pause and resume', async () => {
  const sb = await createSandbox(engine.url);
  const report = ok(
    await sb.api('/api/v1/reports', { body: { name: 'Günlük', kind: 'payments_summary', schedule: 'daily' } }),
    201,
  );
  const result = await advance(sb, 3 * 86_400 + 60);
  assert.ok(result.jobsRun >= 3);
  const runs = ok(await sb.api(`/api/v1/reports/${report.id}/runs`)).data;
  assert.equal(runs.length, 3);
  const dues = runs.map((r: any) => Date.parse(r.dueAt)).reverse();
  assert.deepEqual(
    dues.map((d: number) => d - Date.parse(report.nextDueAt)),
    [0, 86_400_000, 2 * 86_400_000],
  );
  assert.deepEqual(
    runs.map((r: any) => r.createdAt),
    runs.map((r: any) => r.dueAt),
    'each run happened as of its due time',
  );

  const paused = ok(await sb.api(`/api/v1/reports/${report.id}`, { method: 'PATCH', body: { active: false } }));
  assert.deepEqual([paused.active, paused.nextDueAt], [false, null]);
  await advance(sb, 2 * 86_400);
  assert.equal(ok(await sb.api(`/api/v1/reports/${report.id}/runs`)).data.length, 3, 'a paused report does not run');
  const resumed = ok(
    await sb.api(`/api/v1/reports/${report.id}`, { method: 'PATCH', body: { active: true, schedule: 'weekly' } }),
  );
  const now = Date.parse(ok(await sb.api('/api/v1/sandbox/clock')).now);
  assert.ok(Math.abs(Date.parse(resumed.nextDueAt) - now - 7 * 86_400_000) < 5000);
  assert.equal(resumed.schedule, 'weekly');
});

test('validation, deletion and tenant isolation; the seed has paused reports with a past run', async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const bad = problem(
    await a.api('/api/v1/reports', { body: { name: '', kind: 'tax', schedule: 'monthly', firstRunAt: 'tomorrow' } }),
    422,
    'validation_failed',
  );
  assert.deepEqual(paths(bad).sort(), ['/firstRunAt', '/kind', '/name', '/schedule']);
  const past = problem(
    await a.api('/api/v1/reports', {
      body: { name: 'x', kind: 'top_products', schedule: 'daily', firstRunAt: '2020-01-01T00:00:00Z' },
    }),
    422,
    'validation_failed',
  );
  assert.deepEqual(paths(past), ['/firstRunAt']);
  problem(
    await a.api('/api/v1/reports', { body: { name: 'x', kind: 'top_products', schedule: 'daily', cc: 'me' } }),
    400,
    'unknown_field',
  );
  const seeded = ok(await a.api('/api/v1/reports/rep_0001'));
  assert.deepEqual([seeded.active, seeded.nextDueAt], [false, null]);
  assert.equal(ok(await a.api('/api/v1/reports/rep_0001/runs/rrn_0001')).result.currency, 'TRY');

  const r = ok(await a.api('/api/v1/reports', { body: { name: 'A', kind: 'top_products', schedule: 'daily' } }), 201);
  problem(await b.api(`/api/v1/reports/${r.id}`), 404, 'not_found');
  problem(await b.api(`/api/v1/reports/${r.id}/runs`), 404, 'not_found');
  problem(await a.api(`/api/v1/reports/rep_0002/runs/rrn_0001`), 404, 'not_found');
  assert.equal((await a.api(`/api/v1/reports/${r.id}`, { method: 'DELETE' })).status, 204);
  problem(await a.api(`/api/v1/reports/${r.id}`), 404, 'not_found');
  await advance(a, 2 * 86_400);
  assert.ok(!(await eventTopics(a)).includes('saved_report.due'), 'a deleted report never falls due');
});
