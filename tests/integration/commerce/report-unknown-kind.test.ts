// A saved report whose row holds a kind this version does not compute (the import refuses such rows, so here one is
// written by SQL, as by hand or by another version) is still answered within its schema: kind null, and `error`
// saying why, in the words its failed job gives
// (docs/decisions/a-saved-report-of-an-unknown-kind.md). `call` checks every answer against the OpenAPI document.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { reportDueIn, setReportKind } from '../../helpers/reports.ts';
import { advance, ok } from './helpers.ts';

const engine = useEngine();
const db = () => engine.running.services.db;

test('a report of an unknown kind answers kind null and its error; its job fails with that reason', async () => {
  const sb = await createSandbox(engine.url);
  const report = await reportDueIn(sb, 3600_000);
  assert.equal(report.error, null);
  await setReportKind(db(), sb.id, report.id, 'nope');

  const expected = { ...report, kind: null, error: 'unknown report kind "nope"' };
  assert.deepEqual(ok(await sb.api(`/api/v1/reports/${report.id}`)), expected);
  assert.deepEqual(ok(await sb.api('/api/v1/reports')).data[0], expected, 'the newest in the list');
  const renamed = ok(await sb.api(`/api/v1/reports/${report.id}`, { method: 'PATCH', body: { name: 'Bozuk' } }));
  assert.deepEqual([renamed.name, renamed.kind, renamed.error], ['Bozuk', null, expected.error]);

  await advance(sb, 2 * 3600);
  const [failed] = ok(await sb.api('/api/v1/sandbox/jobs/failed')).data;
  assert.deepEqual([failed.objectId, failed.reason], [report.id, `cannot run the job: ${expected.error}`]);
});
