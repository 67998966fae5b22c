import type { DeliveryStatus, DeliverySummary, Page, StreamMessage } from '../../shared/api-types.ts';

// Pure list arithmetic behind the live lists, kept apart from the store (and from the DOM) so
// it stays readable and is unit-tested in Node.

/** What a delivery list is filtered by. */
export interface ListFilters {
  status?: DeliveryStatus;
  topic?: string;
  endpointId?: string;
  /** A delivery, event or order id. */
  search?: string;
  /** Also a receiver check's probes (the API leaves them out otherwise). */
  includeChecks?: boolean;
}

const maxGapPages = 10;

/**
 * Live inserts never grow a list past this many rows (or past what the user scrolled to): the
 * oldest rows are cut at a page boundary, and scrolling down fetches them again.
 */
export const liveRowCap = 1000;

/**
 * Cuts rows beyond `cap` at the last page boundary within it. `boundaries` maps a row that
 * ended a fetched page to that page's nextCursor, which lists what is older than the row: the
 * only cursors a client may hold, since the server signs them.
 */
export function capRows(
  rows: DeliverySummary[],
  nextCursor: string | null,
  boundaries: ReadonlyMap<string, string | null>,
  cap: number,
): { rows: DeliverySummary[]; nextCursor: string | null } {
  if (rows.length <= cap) return { rows, nextCursor };
  for (let i = cap - 1; i >= 0; i--) {
    const cursor = boundaries.get(rows[i].id);
    if (cursor !== undefined) return { rows: rows.slice(0, i + 1), nextCursor: cursor };
  }
  return { rows, nextCursor }; // no page ended within the cap yet: the next head refresh brings one
}

/** Whether a new delivery (as the stream describes it) belongs in a list with these filters. */
function admits(kind: 'deliveries' | 'dlq', filters: ListFilters, data: StreamMessage['data']): boolean {
  if (kind === 'dlq' || filters.search) return false; // DLQ rows arrive dead; searches are exact lookups
  if (filters.status && filters.status !== 'pending') return false;
  if (filters.topic && filters.topic !== data.topic) return false;
  if (filters.endpointId && filters.endpointId !== data.endpointId) return false;
  if (data.check && !filters.includeChecks) return false;
  return true;
}

/** Applies stream messages to rows; returns the same array when nothing shown changed. */
export function applyMessages(
  rows: DeliverySummary[],
  messages: StreamMessage[],
  kind: 'deliveries' | 'dlq',
  filters: ListFilters,
  nowIso: string,
): { rows: DeliverySummary[]; needsHead: boolean } {
  const position = new Map(rows.map((r, i) => [r.id, i]));
  const patched = new Map<number, DeliverySummary>();
  const left = new Set<number>();
  const fresh: DeliverySummary[] = [];
  let needsHead = false;
  const rowAt = (i: number) => patched.get(i) ?? rows[i];
  for (const { event, data } of messages) {
    if (!data.id) continue;
    const i = position.get(data.id);
    if (event === 'delivery.created') {
      if (i !== undefined || fresh.some((f) => f.id === data.id) || !admits(kind, filters, data)) continue;
      // Shown at once (a stand-in has no eventId); the head refresh replaces it with the full row.
      fresh.unshift({
        id: data.id,
        eventId: '',
        topic: data.topic ?? '',
        endpointId: data.endpointId ?? null,
        url: null,
        status: 'pending',
        attemptCount: 0,
        nextAttemptAt: null,
        lastStatus: null,
        lastError: null,
        test: false,
        check: null,
        paused: null,
        createdAt: nowIso,
        updatedAt: nowIso,
      });
      needsHead = true;
      continue;
    }
    if (i === undefined) {
      const freshRow = fresh.findIndex((f) => f.id === data.id);
      if (freshRow >= 0) fresh[freshRow] = patch(fresh[freshRow], event, data);
      else if (kind === 'dlq' && data.status === 'dead' && !filters.search) needsHead = true;
      continue;
    }
    // A replayed delivery that succeeded is no longer dead: it leaves the DLQ (a failed replay dies again and stays).
    if (kind === 'dlq' && event === 'delivery.updated' && data.status === 'succeeded') left.add(i);
    else patched.set(i, patch(rowAt(i), event, data));
  }
  if (patched.size === 0 && left.size === 0 && fresh.length === 0) return { rows, needsHead };
  const next = patched.size || left.size ? rows.flatMap((r, i) => (left.has(i) ? [] : [patched.get(i) ?? r])) : rows;
  return { rows: fresh.length ? [...fresh, ...next] : next, needsHead };
}

function patch(row: DeliverySummary, event: StreamMessage['event'], data: StreamMessage['data']): DeliverySummary {
  if (event === 'attempt.finished') {
    return {
      ...row,
      lastStatus: data.responseStatus ?? null,
      lastError: data.error ?? null,
      attemptCount: Math.max(row.attemptCount, data.number ?? 0),
    };
  }
  if (event === 'delivery.updated') {
    return {
      ...row,
      status: data.status ?? row.status,
      attemptCount: data.attemptCount ?? row.attemptCount,
      nextAttemptAt:
        'nextAttemptAt' in data
          ? (data.nextAttemptAt ?? null)
          : data.status && data.status !== 'pending'
            ? null
            : row.nextAttemptAt,
      lastError: 'error' in data ? (data.error ?? null) : row.lastError,
    };
  }
  return row;
}

/**
 * Merges the newest pages into the rows: fetched rows replace their stand-ins, and pages are
 * fetched until they reach a row already shown; a gap wider than that restarts the list.
 */
export async function mergeHead(
  rows: DeliverySummary[],
  nextCursor: string | null,
  fetchPage: (cursor?: string | null) => Promise<Page<DeliverySummary>>,
): Promise<{ rows: DeliverySummary[]; nextCursor: string | null }> {
  // Only full rows mark where the fetch may stop: a stand-in on top says nothing about the rows under it.
  const known = new Set(rows.filter((r) => r.eventId !== '').map((r) => r.id));
  const head: DeliverySummary[] = [];
  let cursor: string | null | undefined;
  let pageCursor: string | null = null;
  for (let pages = 0; pages < maxGapPages; pages++) {
    const page = await fetchPage(cursor);
    head.push(...page.data);
    pageCursor = page.nextCursor;
    if (!page.nextCursor || page.data.some((r) => known.has(r.id))) {
      const fetched = new Set(head.map((r) => r.id));
      // Stand-ins the fetch did not return were created while it ran: they stay on top.
      const newer = rows.filter((r) => !fetched.has(r.id) && r.eventId === '');
      const older = rows.filter((r) => !fetched.has(r.id) && r.eventId !== '');
      return { rows: [...newer, ...head, ...older], nextCursor: known.size ? nextCursor : page.nextCursor };
    }
    cursor = page.nextCursor;
  }
  return { rows: head, nextCursor: pageCursor };
}
