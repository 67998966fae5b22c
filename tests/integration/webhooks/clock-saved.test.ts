import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startSandbox } from '../../../src/server/start.ts';
import { call, createSandbox } from '../../helpers/engine.ts';
import { Receiver, type Behaviour } from '../../helpers/receiver.ts';

// SPEC §5.5 runs an advance step by step. Each step's clock is saved before the work due at it
// runs, so a crash mid-advance restarts with a clock at least as late as the work it committed.

test('mid-advance, the saved clock is already as late as the work done so far', async () => {
  const engine = await startSandbox({ memory: true, port: 0, logRequests: false, attemptTimeoutMs: 500 });
  const rx = await new Receiver().start();
  // The third report delivery hangs (until the attempt timeout), holding the advance mid-way.
  Object.defineProperty(rx, 'behaviour', {
    get: (): Behaviour => (rx.received.length === 3 ? { kind: 'hang' } : { kind: 'status', status: 200 }),
  });
  try {
    const sb = await createSandbox(engine.url);
    assert.equal(
      (await sb.api('/api/v1/webhooks/endpoints', { body: { url: rx.url, topics: ['saved_report.due'] } })).status,
      201,
    );
    const report = (
      await sb.api('/api/v1/reports', { body: { name: 'Günlük', kind: 'sales_summary', schedule: 'daily' } })
    ).body;

    const advancing = sb.api('/api/v1/sandbox/clock/advance', { body: { seconds: 10 * 86_400 } });
    advancing.catch(() => {}); // a failed assertion below closes the engine under it
    await rx.waitFor(3);
    const runs = (await sb.api(`/api/v1/reports/${report.id}/runs`)).body.data;
    assert.equal(runs.length, 3, 'three daily runs are committed');
    const lastRun = Math.max(...runs.map((r: any) => Date.parse(r.dueAt)));
    const [row] = await engine.services.db.query<{ clock_offset_ms: number }>(
      'select clock_offset_ms from tenants where id = $1',
      [sb.id],
    );
    assert.ok(
      Date.now() + Number(row.clock_offset_ms) >= lastRun,
      `saved offset ${row.clock_offset_ms} ms is behind the third run`,
    );

    assert.equal((await advancing).status, 200);
    assert.equal((await sb.api(`/api/v1/reports/${report.id}/runs`)).body.data.length, 10);
  } finally {
    await rx.close();
    await engine.close();
  }
});

test('a restart on the same data dir keeps the sandbox clock', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbay-clock-'));
  try {
    let engine = await startSandbox({ dataDir, port: 0, logRequests: false });
    const sb = await createSandbox(engine.url);
    assert.equal((await sb.api('/api/v1/sandbox/clock/advance', { body: { seconds: 7200 } })).status, 200);
    await engine.close();
    engine = await startSandbox({ dataDir, port: 0, logRequests: false });
    try {
      const clock = (await call(engine.url, '/api/v1/sandbox/clock', { token: sb.token })).body;
      assert.equal(clock.offsetSeconds, 7200);
    } finally {
      await engine.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
