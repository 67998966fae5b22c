// The delivery detail in a small window (1024 × 768) with long outcomes: every slot of the retry
// timeline keeps its text inside its own column (no label runs into the next one), the DLQ's stays
// inside the panel, and the attempts table wraps its URLs instead of running past the panel's edge.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useEngine } from '../helpers/engine.ts';
import { adminSandbox } from './admin-sandbox.ts';
import { overlaps, type Box } from './boxes.ts';
import { expect } from './expect.ts';
import { useBrowser } from './browser.ts';

const engine = useEngine();
const browser = useBrowser();

test('a delivery refused five times, in a 1024-pixel window: the timeline labels never overlap and nothing is clipped', async () => {
  const { admin, addEndpoint, link } = await adminSandbox(engine);
  // Nothing listens on port 9 of loopback: every attempt ends "connection refused", the longest outcome there is.
  const endpoint = await addEndpoint('http://127.0.0.1:9/a/rather/long/path/to/a/receiver/that/is/not/there');
  const sent = await admin('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: endpoint.id } });

  const page = await browser.newPage({ viewport: { width: 1024, height: 768 } });
  await page.goto(link(`deliveries/${sent.body.deliveryId}`));
  await expect(page.getByTestId('slot-1')).attribute('data-state', 'failed');
  for (let slot = 2; slot <= 5; slot++) {
    await expect(page.getByTestId(`slot-${slot}`)).attribute('data-state', 'scheduled');
    await page.getByRole('button', { name: 'Fast-forward to next attempt' }).click();
    await expect(page.getByTestId(`slot-${slot}`)).attribute('data-state', 'failed');
  }
  await expect(page.getByTestId('slot-dlq')).attribute('data-state', 'reached');
  // The timeline has room for a word: the outcome's gist, the whole error in its tooltip (and in the attempts table).
  await expect(page.getByTestId('slot-5').locator('.slot-result')).text('refused');
  assert.equal(await page.getByTestId('slot-5').locator('.slot-result').getAttribute('title'), 'connection refused');

  // Each slot's texts, box by box: none may touch another slot's.
  const slots = ['slot-1', 'slot-2', 'slot-3', 'slot-4', 'slot-5', 'slot-dlq'];
  const texts: { slot: string; box: Box }[] = [];
  for (const slot of slots) {
    for (const part of await page.getByTestId(slot).locator('.slot-label, .slot-outcome > *').all()) {
      const box = await part.boundingBox();
      if (box && box.width > 0) texts.push({ slot, box });
    }
  }
  assert.ok(texts.length >= 16, `${texts.length} text boxes`);
  for (const a of texts) {
    for (const b of texts) {
      if (a.slot !== b.slot)
        assert.ok(
          !overlaps(a.box, b.box),
          `${a.slot} ${JSON.stringify(a.box)} overlaps ${b.slot} ${JSON.stringify(b.box)}`,
        );
    }
  }
  const pane = (await page.locator('.detail-pane').boundingBox())!;
  if (process.env.TIMELINE_SCREENSHOT) await page.screenshot({ path: process.env.TIMELINE_SCREENSHOT });
  for (const { slot, box } of texts)
    assert.ok(box.x + box.width <= pane.x + pane.width + 0.5, `${slot} runs past the panel's right edge`);

  // The attempts table fits the panel: no column (the response, with its URL) is cut off.
  const table = (await page.locator('table.attempts').boundingBox())!;
  assert.ok(
    table.x + table.width <= pane.x + pane.width + 0.5,
    `the attempts table (${table.width}px) is wider than the panel`,
  );
  assert.deepEqual(page.errors, []);
});
