import type { Delivery, DeliveryStatus, DeliverySummary } from '../shared/api-types.ts';
import { locateServer } from '../server/locate-server.ts';

/**
 * Which deliveries a test is about. Every field given must match; a field given as `undefined` is an
 * error (it would otherwise match anything: `search: order.id` of an order that failed).
 */
export interface DeliveryFilter {
  /** A topic, a pattern (`payment.*`, `*`), or comma-separated patterns. */
  topic?: string;
  status?: DeliveryStatus;
  endpointId?: string;
  eventId?: string;
  /** A delivery id, event id or order id. */
  search?: string;
  /** The status of the latest attempt's answer, e.g. 200. */
  responseStatus?: number;
  /**
   * Only deliveries the server recorded at or after this instant, on the real clock (not the sandbox
   * clock a test advances: `new Date()` means now whatever the sandbox's time). `waitForDelivery`'s
   * default is the moment it was called; pass `0` for any time.
   */
  since?: Date | string | number;
  /** Also a receiver check's probes, which are not deliveries the code under test caused (left out otherwise). */
  includeChecks?: boolean;
}

const filterKeys = new Set([
  'topic',
  'status',
  'endpointId',
  'eventId',
  'search',
  'responseStatus',
  'since',
  'includeChecks',
]);

/**
 * Where the running Sandbay is and as whom to ask it: by default SANDBAY_URL / SANDBAY_TOKEN, else the one this machine
 * runs (as the CLI finds it).
 */
export interface SandbayConnection {
  url?: string;
  /** A sandbox access token, or the admin key (then name the sandbox). */
  token?: string;
  /** With the admin key: the sandbox (SANDBAY_SANDBOX). */
  sandbox?: string;
}

export interface WaitOptions extends SandbayConnection {
  /** Milliseconds before giving up (default 10,000). */
  timeout?: number;
  /** How often to look (default 100 ms). */
  intervalMs?: number;
}

type Connected = { url: string; headers: Record<string, string> };

/** The server the CLI would talk to (src/server/locate-server.ts: SANDBAY_URL, SANDBAY_DATA_DIR, the registry). */
function connect(c: SandbayConnection = {}): Connected {
  let located;
  try {
    located = locateServer({ url: c.url });
  } catch (err) {
    throw new Error(`sandbay/testing: ${(err as Error).message}`);
  }
  const token = c.token ?? (process.env.SANDBAY_TOKEN || undefined) ?? located.adminKey;
  const sandbox = c.sandbox ?? (process.env.SANDBAY_SANDBOX || undefined);
  if (!token) throw new Error('sandbay/testing: no token: pass { token } or set SANDBAY_TOKEN');
  return {
    url: located.url.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${token}`, ...(sandbox ? { 'sandbay-sandbox': sandbox } : {}) },
  };
}

async function get<T>(c: Connected, path: string): Promise<T> {
  const res = await fetch(c.url + path, { headers: { ...c.headers, accept: 'application/json' } });
  const body = (await res.json().catch(() => undefined)) as { detail?: string } | undefined;
  if (!res.ok)
    throw new Error(
      `sandbay/testing: GET ${path.split('?')[0]} answered ${res.status}${body?.detail ? `: ${body.detail}` : ''}`,
    );
  return body as T;
}

/** Refuses a filter that would silently match more than meant: a key it does not know, or one set to undefined. */
function checkFilter(filter: DeliveryFilter, caller: string): void {
  for (const [key, value] of Object.entries(filter)) {
    if (!filterKeys.has(key))
      throw new TypeError(`${caller}: unknown filter key ${key} (it takes ${[...filterKeys].join(', ')})`);
    if (value === undefined || value === null)
      throw new TypeError(
        `${caller}: filter.${key} is ${value}, which would match any delivery: pass the value meant, or leave ${key} out`,
      );
  }
}

function sinceDate(since: Date | string | number, caller: string): Date {
  const date = new Date(since);
  if (Number.isNaN(date.getTime())) throw new TypeError(`${caller}: filter.since is not a time: ${String(since)}`);
  return date;
}

// What the server does not filter: a receiver check's probes are not deliveries the code under test
// caused, and the latest answer's status is the client's to compare.
const notACheck = (d: DeliverySummary, f: DeliveryFilter) => !d.check || f.includeChecks === true;
const answered = (d: DeliverySummary, f: DeliveryFilter) =>
  f.responseStatus === undefined || d.lastStatus === f.responseStatus;

/** The list route's query for a filter: the server filters topics, status, endpoint, event, search and since. */
function listQuery(f: DeliveryFilter, since: Date | undefined, limit: number): string {
  const q = new URLSearchParams({ limit: String(limit) });
  if (f.topic) q.set('topics', f.topic);
  for (const key of ['status', 'endpointId', 'eventId', 'search'] as const) if (f[key]) q.set(key, f[key]);
  if (since) q.set('since', since.toISOString());
  if (f.includeChecks) q.set('includeChecks', 'true');
  return q.toString();
}

/** Every delivery the server matches and `keep` keeps (up to `limit`), newest first, however far back the list goes. */
async function listMatching(
  c: Connected,
  filter: DeliveryFilter,
  since: Date | undefined,
  limit: number,
  keep: (d: DeliverySummary) => boolean,
): Promise<DeliverySummary[]> {
  const out: DeliverySummary[] = [];
  for (let cursor = ''; out.length < limit;) {
    const page = await get<{ data: DeliverySummary[]; nextCursor: string | null }>(
      c,
      `/api/v1/webhooks/deliveries?${listQuery(filter, since, 100)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    out.push(...page.data.filter(keep));
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return out.slice(0, limit);
}

/** The newest deliveries (up to `limit`, default 100) of the sandbox that match a filter, newest first. */
export async function deliveries(
  filter: DeliveryFilter = {},
  options: SandbayConnection & { limit?: number } = {},
): Promise<DeliverySummary[]> {
  checkFilter(filter, 'deliveries');
  const since = filter.since === undefined ? undefined : sinceDate(filter.since, 'deliveries');
  return listMatching(
    connect(options),
    filter,
    since,
    options.limit ?? 100,
    (d) => notACheck(d, filter) && answered(d, filter),
  );
}

/**
 * Resolves with the first delivery (oldest first) recorded since the call began — or since
 * `filter.since`, on the real clock — that matches the filter and has been attempted at least once,
 * with its attempts. Start waiting before the action that causes it (or take `since` before it): a
 * delivery recorded earlier is some other test's. Rejects after `timeout` ms with an error naming the
 * filter and what was seen instead.
 */
export async function waitForDelivery(filter: DeliveryFilter, options: WaitOptions = {}): Promise<Delivery> {
  // Taken first, before any await: an action started right after this call is "after".
  const began = new Date();
  checkFilter(filter, 'waitForDelivery');
  const since = filter.since === undefined ? began : sinceDate(filter.since, 'waitForDelivery');
  const c = connect(options);
  const timeout = options.timeout ?? 10_000;
  const deadline = Date.now() + timeout;
  let seen: DeliverySummary[] = [];
  for (;;) {
    seen = await listMatching(c, filter, since, Infinity, (d) => notACheck(d, filter));
    const hit = seen.filter((d) => d.attemptCount > 0 && answered(d, filter)).at(-1);
    if (hit) return get<Delivery>(c, `/api/v1/webhooks/deliveries/${encodeURIComponent(hit.id)}`);
    if (Date.now() >= deadline) break;
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(options.intervalMs ?? 100, Math.max(0, deadline - Date.now()))),
    );
  }
  const newest = seen[0];
  const [earlier] = newest
    ? []
    : await listMatching(c, filter, undefined, 1, (d) => notACheck(d, filter) && answered(d, filter));
  const saw = newest
    ? `; ${seen.length} recorded since it began match all else, the newest ${newest.topic} ${newest.id} ${newest.status} (attempts ${newest.attemptCount}, last answer ${newest.lastStatus ?? 'none'})`
    : earlier
      ? `; none recorded since ${since.toISOString()} (real clock), but an earlier one matches (${earlier.topic} ${earlier.id}, created ${earlier.createdAt} on the sandbox clock): start waiting before the action that causes it, or pass an earlier since`
      : '; none at all';
  throw new Error(`waitForDelivery: no delivery matching ${JSON.stringify(filter)} within ${timeout} ms${saw}`);
}
