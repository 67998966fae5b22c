import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Db } from '../../src/db/database.ts';
import { openSandboxDatabase } from '../../src/server/database.ts';
import {
  DeliveryStream,
  maxUnsentBytesPerClient,
  type StreamMessage,
  type SubscriberLink,
} from '../../src/webhooks/delivery-stream.ts';

// SPEC §5.7: a client reconnecting with Last-Event-ID gets what it missed, or `reset` when that is no
// longer possible: it is further behind than 10,000 messages of its sandbox, its messages were pruned,
// its sandbox went unwatched meanwhile, or the id is not one of ours. Message ids are numbers per
// sandbox, handed out in commit order; the messages live in stream_messages, so any engine resumes them,
// and only watched sandboxes' messages are written.
let db: Db;
let stream: DeliveryStream;
const errors: string[] = [];
const stallMs = 300;
before(async () => {
  db = await openSandboxDatabase({ memory: true });
  stream = new DeliveryStream(db, (message) => errors.push(message), stallMs);
  await stream.start();
});
after(async () => {
  await stream.close();
  await db.close();
});

let sandboxes = 0;
/** A sandbox row of its own (stream numbers hang off it). */
async function sandbox(): Promise<string> {
  const id = `sbx_stream${++sandboxes}`;
  await db.query(`insert into tenants (id, name, webhook_test_secret) values ($1, $1, '')`, [id]);
  return id;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A client: collects what it is sent; `unread` stands for the bytes it leaves in its buffer. */
function client() {
  const got: StreamMessage[] = [];
  const state = { unread: 0, dropped: false };
  const link: SubscriberLink = {
    send: (batch) => void got.push(...batch),
    unsentBytes: () => state.unread,
    drop: () => void (state.dropped = true),
  };
  return { got, state, link, ids: () => got.map((m) => (m.event === 'reset' ? 'reset' : String(m.data.id))) };
}

/** Waits until `check` holds (the reader and the 25 ms batches are asynchronous). */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check()); await sleep(10)) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
  }
}

/** Publishes and waits until every message is written (the sandbox's counter reached the last one). */
async function published(messages: [string, string][]): Promise<void> {
  const counter = async (tenantId: string) =>
    Number(
      (await db.query<{ seq: number }>('select seq from stream_counters where tenant_id = $1', [tenantId]))[0]?.seq ??
        0,
    );
  const expected = new Map<string, number>();
  for (const [tenantId] of messages) expected.set(tenantId, (expected.get(tenantId) ?? (await counter(tenantId))) + 1);
  for (const [tenantId, id] of messages) stream.publish(tenantId, 'delivery.created', { id });
  await until('messages written', async () => {
    for (const [tenantId, n] of expected)
      if ((await counter(tenantId)) < n && (await watchedNow(tenantId))) return false;
    return true;
  });
}
const watchedNow = async (tenantId: string) =>
  (await db.query('select 1 from stream_watchers where tenant_id = $1 and watched_until > now()', [tenantId])).length >
  0;

/** A client that came and went (its sandbox stays watched for the resume window): where it may resume from. */
async function watch(tenantId: string): Promise<string> {
  const sub = await stream.subscribe(tenantId, undefined, client().link);
  sub.close();
  return sub.lastId;
}

/** What a client resuming from `lastEventId` is sent once it has caught up. */
async function since(lastEventId: string, tenantId: string): Promise<string[] | 'reset'> {
  const c = client();
  const sub = await stream.subscribe(tenantId, lastEventId, c.link);
  const [{ seq }] = await db.query<{ seq: number }>('select seq from stream_counters where tenant_id = $1', [tenantId]);
  await until(
    'caught up',
    () => c.got.some((m) => m.event === 'reset') || c.got.at(-1)?.id === String(seq) || String(seq) === lastEventId,
  );
  sub.close();
  return c.got.some((m) => m.event === 'reset') ? 'reset' : c.ids();
}

test('a reconnecting client gets every message of its sandbox it missed, in order, and nothing of others; ids are per sandbox', async () => {
  const [mine, other] = [await sandbox(), await sandbox()];
  await watch(other);
  const mark = await watch(mine);
  await published([
    [mine, 'dlv_1'],
    [other, 'dlv_x'],
    [mine, 'dlv_2'],
  ]);
  assert.deepEqual(await since(mark, mine), ['dlv_1', 'dlv_2']);
  assert.deepEqual(await since(await watch(mine), mine), [], 'nothing missed');
  // Numbers of their own: another sandbox's traffic does not move this one's (no tenant gauges another's activity).
  const before = Number(await watch(mine));
  await published(Array.from({ length: 20 }, (_, i) => [other, `dlv_o${i}`] as [string, string]));
  assert.equal(Number(await watch(mine)), before);
  assert.match(mark, /^\d+$/, 'ids are plain numbers');
});

test('reset: too far behind, pruned, malformed, or from the future', async () => {
  const [busy, quiet] = [await sandbox(), await sandbox()];
  const busyMark = await watch(busy);
  const quietMark = await watch(quiet);
  await published(Array.from({ length: 10_001 }, (_, i) => [busy, `dlv_${i}`] as [string, string]));
  assert.equal(await since(busyMark, busy), 'reset', 'more than 10,000 missed');
  assert.deepEqual(await since(quietMark, quiet), [], 'a quiet sandbox missed nothing in the meantime');
  assert.equal(await since('garbage', quiet), 'reset');
  assert.equal(await since('1527-471', quiet), 'reset', 'an id of the old server-wide form');
  assert.equal(
    await since(String(Number(quietMark) + 1_000_000), quiet),
    'reset',
    'an id from the future (another database)',
  );
  await published([
    [quiet, 'dlv_q1'],
    [quiet, 'dlv_q2'],
    [quiet, 'dlv_q3'],
  ]);
  await db.query('delete from stream_messages where tenant_id = $1 and seq = $2', [quiet, Number(quietMark) + 2]);
  assert.equal(await since(quietMark, quiet), 'reset', 'a message in between was pruned');
  assert.deepEqual(await since(String(Number(quietMark) + 2), quiet), ['dlv_q3'], 'after the pruned one: resumed');
  assert.deepEqual(errors, []);
});

test('live messages arrive in batches, in the order they were published', async () => {
  const live = await sandbox();
  const c = client();
  const sub = await stream.subscribe(live, undefined, c.link);
  await published(Array.from({ length: 50 }, (_, i) => [live, `dlv_${i}`] as [string, string]));
  await until('all 50 arrive', () => c.got.length === 50);
  sub.close();
  assert.deepEqual(
    c.ids(),
    Array.from({ length: 50 }, (_, i) => `dlv_${i}`),
  );
  assert.deepEqual(
    c.got.map((m) => Number(m.id)),
    c.got.map((_, i) => Number(c.got[0].id) + i),
    'consecutive numbers',
  );
});

test('an unwatched sandbox costs no row; a client back after its watch lapsed gets reset', async () => {
  const [nobody, lapsed] = [await sandbox(), await sandbox()];
  const rowsOf = async (tenantId: string) =>
    Number(
      (
        await db.query<{ n: number }>('select count(*)::int as n from stream_messages where tenant_id = $1', [tenantId])
      )[0].n,
    );
  stream.publish(nobody, 'delivery.created', { id: 'dlv_unseen' });
  await sleep(100);
  assert.equal(await rowsOf(nobody), 0, 'nobody streams it: nothing written');

  const mark = await watch(lapsed);
  await published([[lapsed, 'dlv_kept']]);
  assert.deepEqual(await since(mark, lapsed), ['dlv_kept'], 'back within the window: resumed');
  // The window ends (as if the last client left 10 minutes ago): what follows is not written.
  await db.query(`update stream_watchers set watched_until = now() - interval '1 second' where tenant_id = $1`, [
    lapsed,
  ]);
  stream.publish(lapsed, 'delivery.created', { id: 'dlv_lost' });
  await sleep(100);
  assert.equal(await rowsOf(lapsed), 1, 'the lapsed watch wrote nothing more');
  assert.equal(await since(mark, lapsed), 'reset', 'a message was never written: the client must refetch');
});

test('a client without Last-Event-ID starts at now, on a restarted engine too: nothing old is replayed', async () => {
  const busy = await sandbox();
  await watch(busy);
  await published(Array.from({ length: 300 }, (_, i) => [busy, `dlv_old${i}`] as [string, string]));
  const restarted = new DeliveryStream(db, (message) => errors.push(message), stallMs);
  await restarted.start();
  try {
    const c = client();
    const sub = await restarted.subscribe(busy, undefined, c.link);
    stream.publish(busy, 'delivery.created', { id: 'dlv_new' }); // written by the other engine
    await until('the new one arrives', () => c.got.length > 0);
    await sleep(1200); // a poll of the reader, too
    sub.close();
    assert.deepEqual(c.ids(), ['dlv_new']);
    assert.equal(restarted.feedCount, 0, 'the sandbox is forgotten with its last client');
  } finally {
    await restarted.close();
  }
});

test('a client that stops reading holds at most its cap: it catches up from the table once it reads, or is dropped', async () => {
  const slow = await sandbox();
  const reader = client();
  const sub = await stream.subscribe(slow, undefined, reader.link);
  reader.state.unread = maxUnsentBytesPerClient + 1; // its buffer is full
  await published(Array.from({ length: 1200 }, (_, i) => [slow, `dlv_${i}`] as [string, string]));
  await sleep(100);
  assert.equal(reader.got.length, 0, 'nothing more is written to a full buffer');
  reader.state.unread = 0; // it reads
  await until('caught up', () => reader.got.length === 1200);
  assert.deepEqual(
    reader.ids(),
    Array.from({ length: 1200 }, (_, i) => `dlv_${i}`),
    'in order, none twice, none missing',
  );
  await published([[slow, 'dlv_live']]);
  await until('live again', () => reader.got.length === 1201);

  reader.state.unread = maxUnsentBytesPerClient + 1;
  const dropped = stream.dropped;
  await published([[slow, 'dlv_unread']]);
  await until('dropped after stalling', () => reader.state.dropped, stallMs + 3000);
  assert.equal(stream.dropped, dropped + 1);
  assert.equal(stream.subscriberCount, 0, 'the dropped client holds nothing');
  sub.close();
  assert.deepEqual(errors, []);
});
