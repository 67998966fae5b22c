// The inspector's live list store, run in Node against a real engine over HTTP: live inserts
// never grow it past its cap, and what the cap cut is fetched again on scroll.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configureApi } from '../../src/renderer/api/client.ts';
import type { StreamMessage } from '../../src/shared/api-types.ts';
import { createListStore } from '../../src/renderer/store/list.ts';
import { liveRowCap } from '../../src/renderer/store/list-merge.ts';
import { createSandbox, useEngine } from '../helpers/engine.ts';
import { insertDeliveries } from '../e2e/bulk.ts';

const engine = useEngine();
const newId = (batch: number, n: number) => `dlv_new${String(batch).padStart(2, '0')}${String(n).padStart(6, '0')}`;

async function until(done: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('live inserts keep the list at its cap; scrolling fetches the older rows again, in order and without gaps', async () => {
  const sb = await createSandbox(engine.url);
  const { db } = engine.running.services;
  await insertDeliveries(db, sb.id, 300, { prefix: 'old' });
  configureApi({ apiBase: engine.url, adminKey: engine.running.adminKey, sandboxId: sb.id });
  const list = createListStore('deliveries');
  await list.getState().load();
  assert.equal(list.getState().rows.length, 100);

  // 1,100 new deliveries arrive live, a hundred at a time (as the stream announces them), while the tab stays open.
  const batches = 11;
  for (let b = 0; b < batches; b++) {
    await insertDeliveries(db, sb.id, 100, { prefix: `new${String(b).padStart(2, '0')}` });
    const created: StreamMessage[] = Array.from({ length: 100 }, (_, i) => ({
      event: 'delivery.created',
      data: { id: newId(b, i + 1), topic: 'order.placed', endpointId: null, status: 'pending' },
    }));
    list.getState().applyLive(created);
    // The head refresh replaces the stand-ins with full rows; past the cap, the list is cut back.
    await until(() => list.getState().rows.every((r) => r.eventId !== ''));
    assert.ok(list.getState().rows.length <= liveRowCap, `${list.getState().rows.length} rows after batch ${b + 1}`);
  }
  const kept = list.getState().rows;
  assert.ok(kept.length > liveRowCap - 100 && kept.length <= liveRowCap, `${kept.length} rows kept`);
  assert.equal(kept[0].id, newId(batches - 1, 100), 'newest first');
  assert.ok(list.getState().nextCursor, 'the cut rows are one scroll away');

  while (list.getState().nextCursor) await list.getState().loadMore();
  const all = list.getState().rows.map((r) => r.id);
  const expected = [
    ...Array.from({ length: batches }, (_, b) =>
      Array.from({ length: 100 }, (_, i) => newId(batches - 1 - b, 100 - i)),
    ).flat(),
    ...Array.from({ length: 300 }, (_, i) => `dlv_old${String(300 - i).padStart(6, '0')}`),
  ];
  assert.deepEqual(all, expected, 'every row once, newest first');
  list.getState().clear();
});
