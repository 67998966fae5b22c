import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Db } from '../../src/db/database.ts';
import { openSandboxDatabase } from '../../src/server/database.ts';
import { DeliveryStream, type StreamMessage } from '../../src/webhooks/delivery-stream.ts';

// SPEC §5.7: a client reconnecting with Last-Event-ID gets what it missed, or `reset` when that is no
// longer possible: it is further behind than 10,000 messages of its sandbox, its position was pruned,
// its sandbox went unwatched meanwhile, or the id is not one of ours. The messages live in
// stream_messages, so any engine resumes them; only watched sandboxes' messages are written.
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

/** A client that came and went (its sandbox stays watched for the resume window): where it may resume from. */
async function watch(...tenantIds: string[]): Promise<string> {
  let lastId = '';
  for (const tenantId of tenantIds) {
    const sub = await stream.subscribe(tenantId, undefined, link(() => {}));
    sub.close();
    lastId = sub.lastId;
  }
  return lastId;
}

async function since(lastEventId: string, tenantId = 'sbx_mine') {
  const sub = await stream.subscribe(tenantId, lastEventId, link(() => {}));
  sub.close();
  return sub.backlog;
}

test('a reconnecting client gets every message of its sandbox it missed, in order, and nothing of others', async () => {
  const mark = await watch('sbx_other', 'sbx_mine');
  await published([['sbx_mine', 'dlv_1'], ['sbx_other', 'dlv_x'], ['sbx_mine', 'dlv_2']]);
  assert.deepEqual(ids(await since(mark)), ['dlv_1', 'dlv_2']);
  assert.deepEqual(ids(await since(await watch('sbx_mine'))), [], 'nothing missed');
  assert.match(mark, /^\d+-\d+$/, 'ids are <xid>-<seq>');
});

test('reset: too far behind, pruned, malformed, or from the future', async () => {
  await watch('sbx_busy');
  const mark = await watch('sbx_quiet');
  await published(Array.from({ length: 10_001 }, (_, i) => ['sbx_busy', `dlv_${i}`] as [string, string]));
  assert.equal(await since(mark, 'sbx_busy'), 'reset', 'more than 10,000 missed');
  assert.deepEqual(await since(mark, 'sbx_quiet'), [], 'a quiet sandbox missed nothing in the meantime');
  assert.equal(await since('garbage'), 'reset');
  assert.equal(await since('abc-1'), 'reset');
  const [xid, seq] = mark.split('-');
  assert.equal(await since(`${BigInt(xid) + 1_000_000n}-${seq}`), 'reset', 'an id from the future (another database)');
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

test('an unwatched sandbox costs no row; a client back after its watch lapsed gets reset', async () => {
  const rowsOf = async (tenantId: string) =>
    Number((await db.query<{ n: number }>('select count(*)::int as n from stream_messages where tenant_id = $1', [tenantId]))[0].n);
  await published([['sbx_nobody', 'dlv_unseen']]);
  assert.equal(await rowsOf('sbx_nobody'), 0, 'nobody streams it: nothing written');

  const mark = await watch('sbx_lapsed');
  await published([['sbx_lapsed', 'dlv_kept']]);
  assert.deepEqual(ids(await since(mark, 'sbx_lapsed')), ['dlv_kept'], 'back within the window: resumed');
  // The window ends (as if the last client left 10 minutes ago): what follows is not written.
  await db.query(`update stream_watchers set watched_until = now() - interval '1 second' where tenant_id = 'sbx_lapsed'`);
  await published([['sbx_lapsed', 'dlv_lost']]);
  assert.equal(await rowsOf('sbx_lapsed'), 1, 'the lapsed watch wrote nothing more');
  assert.equal(await since(mark, 'sbx_lapsed'), 'reset', 'a message was never written: the client must refetch');
});

test('with no client, the reader rests; the next client starts after what came meanwhile', async () => {
  await watch('sbx_rest');
  await new Promise((r) => setTimeout(r, 1200)); // a poll finds no client and rests
  const rested = stream.lastId;
  // Written (sbx_rest is still watched), then read by nobody.
  stream.publish('sbx_rest', 'delivery.created', { id: 'dlv_while_resting' });
  await new Promise((r) => setTimeout(r, 1200));
  assert.equal(stream.lastId, rested, 'no read while no client streams');
  assert.equal((await db.query("select 1 from stream_messages where data->>'id' = 'dlv_while_resting'")).length, 1);

  const got: string[] = [];
  const sub = await stream.subscribe('sbx_rest', undefined, link((batch) => got.push(...batch.map((m) => String(m.data.id)))));
  assert.notEqual(stream.lastId, rested, 'caught up on subscribing');
  stream.publish('sbx_rest', 'delivery.created', { id: 'dlv_after' });
  await new Promise((r) => setTimeout(r, 300));
  sub.close();
  assert.deepEqual(got, ['dlv_after'], 'news only');
  assert.deepEqual(errors, []);
});
