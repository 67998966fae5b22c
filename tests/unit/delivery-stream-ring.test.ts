import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Db } from '../../src/db/database.ts';
import { openSandboxDatabase } from '../../src/server/database.ts';
import { DeliveryStream, type StreamMessage } from '../../src/webhooks/delivery-stream.ts';

// SPEC §5.7: a client reconnecting with Last-Event-ID gets what it missed, or `reset` when that is no
// longer possible: it is further behind than 10,000 messages of its sandbox, its position was pruned,
// or the id is not one of ours. The messages live in stream_messages, so any engine resumes them.
let db: Db;
let stream: DeliveryStream;
const errors: string[] = [];
before(async () => {
  db = await openSandboxDatabase({ memory: true });
  stream = new DeliveryStream(db, (message) => errors.push(message));
  await stream.start();
});
after(async () => {
  await stream.close();
  await db.close();
});

/** Publishes and waits until this engine's reader has read them (a subscriber sees the last one). */
async function published(messages: [string, string][]): Promise<void> {
  const last = `dlv_last_${Math.random()}`;
  const seen = new Promise<void>((resolve) => {
    void stream.subscribe('sbx_probe', undefined, link((batch) => batch.some((m) => m.data.id === last) && resolve())).then((s) => seen.finally(s.close));
  });
  for (const [tenantId, id] of messages) stream.publish(tenantId, 'delivery.created', { id });
  stream.publish('sbx_probe', 'delivery.created', { id: last });
  await seen;
}

const link = (send: (batch: StreamMessage[]) => unknown) => ({ send, unsentBytes: () => 0, drop: () => {} });
const ids = (backlog: StreamMessage[] | 'reset') => (backlog === 'reset' ? 'reset' : backlog.map((m) => m.data.id));

async function since(lastEventId: string, tenantId = 'sbx_mine') {
  const sub = await stream.subscribe(tenantId, lastEventId, link(() => {}));
  sub.close();
  return sub.backlog;
}

test('a reconnecting client gets every message of its sandbox it missed, in order, and nothing of others', async () => {
  const mark = stream.lastId;
  await published([['sbx_mine', 'dlv_1'], ['sbx_other', 'dlv_x'], ['sbx_mine', 'dlv_2']]);
  assert.deepEqual(ids(await since(mark)), ['dlv_1', 'dlv_2']);
  assert.deepEqual(ids(await since(stream.lastId)), [], 'nothing missed');
  assert.match(stream.lastId, /^\d+-\d+$/, 'ids are <xid>-<seq>');
});

test('reset: too far behind, pruned, malformed, or from the future', async () => {
  const mark = stream.lastId;
  await published(Array.from({ length: 10_001 }, (_, i) => ['sbx_busy', `dlv_${i}`] as [string, string]));
  assert.equal(await since(mark, 'sbx_busy'), 'reset', 'more than 10,000 missed');
  assert.deepEqual(await since(mark, 'sbx_quiet'), [], 'a quiet sandbox missed nothing in the meantime');
  assert.equal(await since('garbage'), 'reset');
  assert.equal(await since('abc-1'), 'reset');
  const [xid, seq] = stream.lastId.split('-');
  assert.equal(await since(`${BigInt(xid) + 10n}-${seq}`), 'reset', 'an id from the future (another database)');
  await db.query(`insert into meta (key, value) values ('stream_pruned_through', $1) on conflict (key) do update set value = excluded.value`, [stream.lastId]);
  assert.equal(await since(mark), 'reset', 'rows up to the mark were pruned');
  assert.deepEqual(errors, []);
});

test('live messages arrive in batches, in the order they were published', async () => {
  const got: string[] = [];
  const sub = await stream.subscribe('sbx_live', undefined, link((batch) => got.push(...batch.map((m) => String(m.data.id)))));
  await published(Array.from({ length: 50 }, (_, i) => ['sbx_live', `dlv_${i}`] as [string, string]));
  sub.close();
  assert.deepEqual(got, Array.from({ length: 50 }, (_, i) => `dlv_${i}`));
});
