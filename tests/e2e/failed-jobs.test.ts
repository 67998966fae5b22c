// A job on the sandbox clock whose row could not be processed shows in the inspector (SPEC §12, issue 28): a
// banner above every view names the job, its object and the reason, and appears live when the engine fails it;
// once the row is repaired, Retry runs the job and the banner goes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, useEngine } from '../helpers/engine.ts';
import { screenshot, useBrowser } from './browser.ts';
import { expect } from './expect.ts';

const engine = useEngine({ jobPollMs: 100 });
const browser = useBrowser();

test('a job fails while the page is open: the banner shows it with its reason; Retry runs it once repaired', async (t) => {
  const sb = await createSandbox(engine.url);
  const report = await sb.api('/api/v1/reports', {
    body: { name: 'Bozuk', kind: 'sales_summary', schedule: 'hourly' },
  });
  assert.equal(report.status, 201);
  const db = engine.running.services.db;
  const setKind = (kind: string, dueNow = false) =>
    db.query(
      `update saved_reports set kind = $3, next_due_at = case when $4 then now() else next_due_at end
        where tenant_id = $1 and id = $2`,
      [sb.id, report.body.id, kind, dueNow],
    );

  const page = await browser.newPage();
  t.after(() => page.context().close());
  await page.goto(`${engine.url}/sandboxes/${sb.id}/deliveries?key=${engine.running.adminKey}`);
  await expect(page.getByTestId('connection')).text(/live/i);
  assert.equal(await page.getByTestId('failed-jobs').count(), 0, 'nothing has failed yet');

  // Broken and due at once: the engine's next poll runs it (no race with its first due time, an hour away).
  await setKind('nope', true);
  const banner = page.getByTestId('failed-jobs');
  await expect(banner).text(/A job on the sandbox clock failed/);
  const item = page.getByTestId('failed-job');
  await expect(item).count(1);
  await expect(item).text(new RegExp(`report\\.due for ${report.body.id}, due .*: cannot run the job: `));
  assert.equal(await item.locator('time').getAttribute('data-clock'), 'sandbox');
  await screenshot(page, 'failed-jobs');

  await setKind('sales_summary');
  await item.getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByTestId('failed-jobs')).count(0);
  // The retry answers at once; the job runs a moment later.
  for (let runs = 0; runs === 0; await new Promise((r) => setTimeout(r, 50)))
    runs = (await sb.api(`/api/v1/reports/${report.body.id}/runs`)).body.data.length;
  assert.deepEqual(page.errors, []);
});
