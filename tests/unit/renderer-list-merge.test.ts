import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DeliverySummary, Page, StreamMessage } from '../../src/shared/api-types.ts';
import { applyMessages, capRows, mergeHead } from '../../src/renderer/store/list-merge.ts';

const row = (id: string, extra: Partial<DeliverySummary> = {}): DeliverySummary => ({
  id,
  eventId: `evt_${id}`,
  topic: 'order.placed',
  endpointId: 'whe_1',
  url: 'http://x/hook',
  status: 'pending',
  attemptCount: 0,
  nextAttemptAt: null,
  lastStatus: null,
  lastError: null,
  test: false,
  check: null,
  paused: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...extra,
});
const now = '2026-01-01T00:00:01.000Z';
const created = (id: string, topic = 'order.placed'): StreamMessage => ({
  event: 'delivery.created',
  data: { id, topic, endpointId: 'whe_1', status: 'pending' },
});

test('a created delivery shows at once on top, when the filters admit it', () => {
  const rows = [row('dlv_1')];
  const added = applyMessages(rows, [created('dlv_2'), created('dlv_3')], 'deliveries', {}, now);
  assert.deepEqual(
    added.rows.map((r) => r.id),
    ['dlv_3', 'dlv_2', 'dlv_1'],
  );
  assert.equal(added.rows[0].eventId, '', 'a stand-in until the head refresh');
  assert.equal(added.needsHead, true);
  for (const [kind, filters] of [
    ['deliveries', { topic: 'payment.captured' }],
    ['deliveries', { status: 'dead' }],
    ['deliveries', { search: 'ord_1' }],
    ['dlq', {}],
  ] as const) {
    const result = applyMessages(rows, [created('dlv_2')], kind, filters, now);
    assert.equal(result.rows, rows, `${kind} ${JSON.stringify(filters)} leaves the rows alone`);
  }
});

test('updates and finished attempts patch rows in place', () => {
  const rows = [row('dlv_1'), row('dlv_2')];
  const { rows: next } = applyMessages(
    rows,
    [
      { event: 'attempt.finished', data: { id: 'dlv_2', number: 1, responseStatus: 500, error: null } },
      {
        event: 'delivery.updated',
        data: { id: 'dlv_2', status: 'pending', attemptCount: 1, nextAttemptAt: '2026-01-01T00:00:30.000Z' },
      },
      { event: 'delivery.updated', data: { id: 'dlv_gone', status: 'dead' } },
    ],
    'deliveries',
    {},
    now,
  );
  assert.equal(next[0], rows[0], 'untouched rows keep their identity');
  assert.deepEqual(
    [next[1].lastStatus, next[1].attemptCount, next[1].nextAttemptAt],
    [500, 1, '2026-01-01T00:00:30.000Z'],
  );
  const dead = applyMessages(
    next,
    [{ event: 'delivery.updated', data: { id: 'dlv_2', status: 'dead', error: 'endpoint_deleted' } }],
    'deliveries',
    {},
    now,
  );
  assert.deepEqual(
    [dead.rows[1].status, dead.rows[1].nextAttemptAt, dead.rows[1].lastError],
    ['dead', null, 'endpoint_deleted'],
  );
  assert.equal(applyMessages(rows, [], 'deliveries', {}, now).rows, rows);
});

test('a delivery dying asks the DLQ for its head', () => {
  const { needsHead } = applyMessages(
    [],
    [{ event: 'delivery.updated', data: { id: 'dlv_9', status: 'dead' } }],
    'dlq',
    {},
    now,
  );
  assert.equal(needsHead, true);
});

test('a replayed delivery that succeeds leaves the DLQ; one that fails again stays, patched; the deliveries list keeps both', () => {
  const dead = [row('dlv_1', { status: 'dead' }), row('dlv_2', { status: 'dead' }), row('dlv_3', { status: 'dead' })];
  const messages: StreamMessage[] = [
    { event: 'delivery.updated', data: { id: 'dlv_1', status: 'pending', attemptCount: 6 } },
    { event: 'delivery.updated', data: { id: 'dlv_1', status: 'succeeded', attemptCount: 6 } },
    { event: 'delivery.updated', data: { id: 'dlv_2', status: 'pending', attemptCount: 6 } },
    { event: 'delivery.updated', data: { id: 'dlv_2', status: 'dead', attemptCount: 6 } },
  ];
  const dlq = applyMessages(dead, messages, 'dlq', {}, now).rows;
  assert.deepEqual(
    dlq.map((r) => [r.id, r.status, r.attemptCount]),
    [
      ['dlv_2', 'dead', 6],
      ['dlv_3', 'dead', 0],
    ],
  );
  const all = applyMessages(dead, messages, 'deliveries', {}, now).rows;
  assert.deepEqual(
    all.map((r) => [r.id, r.status]),
    [
      ['dlv_1', 'succeeded'],
      ['dlv_2', 'dead'],
      ['dlv_3', 'dead'],
    ],
  );
});

function server(all: DeliverySummary[], pageSize: number) {
  const calls: (string | null | undefined)[] = [];
  const fetchPage = async (cursor?: string | null): Promise<Page<DeliverySummary>> => {
    calls.push(cursor);
    const start = cursor ? Number(cursor) : 0;
    const data = all.slice(start, start + pageSize);
    return { data, nextCursor: start + pageSize < all.length ? String(start + pageSize) : null };
  };
  return { fetchPage, calls };
}

test('the head refresh replaces stand-ins and fetches until it meets a row already shown', async () => {
  const all = Array.from({ length: 8 }, (_, i) => row(`dlv_${8 - i}`)); // newest first: dlv_8 … dlv_1
  const shown = [{ ...row('dlv_8'), eventId: '' }, row('dlv_2'), row('dlv_1')];
  const { fetchPage, calls } = server(all, 3);
  const merged = await mergeHead(shown, 'older', fetchPage);
  assert.deepEqual(
    merged.rows.map((r) => r.id),
    all.map((r) => r.id),
  );
  assert.equal(merged.rows[0].eventId, 'evt_dlv_8', 'the stand-in became the full row');
  assert.equal(merged.nextCursor, 'older', 'the list keeps its own paging position');
  assert.deepEqual(calls, [undefined, '3', '6'], 'the third page reaches dlv_2, which is shown');
});

test('stand-ins newer than the fetch stay on top; a gap too wide restarts the list', async () => {
  const { fetchPage } = server([row('dlv_2'), row('dlv_1')], 10);
  const merged = await mergeHead([{ ...row('dlv_3'), eventId: '' }, row('dlv_1')], null, fetchPage);
  assert.deepEqual(
    merged.rows.map((r) => r.id),
    ['dlv_3', 'dlv_2', 'dlv_1'],
  );
  const many = Array.from({ length: 50 }, (_, i) => row(`dlv_n${i}`));
  const far = server([...many, row('dlv_old')], 2);
  const restarted = await mergeHead([row('dlv_old')], null, far.fetchPage);
  assert.equal(restarted.rows.length, 20, 'ten pages, then it starts over from the newest');
  assert.equal(restarted.nextCursor, '20');
});

test("a list grown past its cap is cut at the last page boundary within it, resuming from that page's cursor", () => {
  const rows = Array.from({ length: 12 }, (_, i) => row(`dlv_${12 - i}`));
  // Pages of four ended at dlv_9 (cursor c1), dlv_5 (c2) and dlv_1 (end of the list).
  const boundaries = new Map<string, string | null>([
    ['dlv_9', 'c1'],
    ['dlv_5', 'c2'],
    ['dlv_1', null],
  ]);
  const cut = capRows(rows, null, boundaries, 10);
  assert.deepEqual(
    cut.rows.map((r) => r.id),
    rows.slice(0, 8).map((r) => r.id),
    'up to dlv_5, the last boundary within ten rows',
  );
  assert.equal(cut.nextCursor, 'c2', 'scrolling fetches dlv_4 onwards again');
  const within = capRows(rows, 'keep', boundaries, 12);
  assert.equal(within.rows, rows, 'at or under the cap nothing changes');
  assert.equal(within.nextCursor, 'keep');
  const noBoundary = capRows(rows, 'keep', new Map([['dlv_1', null]]), 10);
  assert.equal(noBoundary.rows, rows, 'without a boundary to resume from, nothing is cut yet');
});
