import type { Delivery, DeliveryStatus, DeliverySummary } from '../shared/api-types.ts';
import { matchesAnyPattern } from '../shared/topics.ts';
import { defaultDataDir } from '../server/data-dir.ts';
import { readDiscovery } from '../server/instance-lock.ts';

/** Which deliveries a test is about. Every field given must match. */
export interface DeliveryFilter {
  /** A topic, or a pattern: `payment.*`, `*`. */
  topic?: string;
  status?: DeliveryStatus;
  endpointId?: string;
  eventId?: string;
  /** A delivery id, event id or order id. */
  search?: string;
  /** The status of the latest attempt's answer, e.g. 200. */
  responseStatus?: number;
  /** Only deliveries created at or after this (sandbox clock). */
  since?: Date | string;
  /** Also a receiver check's probes, which are not deliveries the code under test caused (left out otherwise). */
  includeChecks?: boolean;
}

/** Where the running Sandbay is and as whom to ask it: by default SANDBAY_URL / SANDBAY_TOKEN, else the app running on this machine. */
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

function connect(c: SandbayConnection = {}): { url: string; headers: Record<string, string> } {
  const discovery = c.url || process.env.SANDBAY_URL ? undefined : readDiscovery(defaultDataDir());
  const url = (c.url ?? (process.env.SANDBAY_URL || undefined) ?? discovery?.url ?? 'http://127.0.0.1:4400').replace(
    /\/+$/,
    '',
  );
  const token = c.token ?? (process.env.SANDBAY_TOKEN || undefined) ?? discovery?.adminKey;
  const sandbox = c.sandbox ?? (process.env.SANDBAY_SANDBOX || undefined);
  if (!token) throw new Error('sandbay/testing: no token: pass { token } or set SANDBAY_TOKEN');
  return { url, headers: { authorization: `Bearer ${token}`, ...(sandbox ? { 'sandbay-sandbox': sandbox } : {}) } };
}

async function get<T>(c: ReturnType<typeof connect>, path: string): Promise<T> {
  const res = await fetch(c.url + path, { headers: { ...c.headers, accept: 'application/json' } });
  const body = (await res.json().catch(() => undefined)) as { detail?: string } | undefined;
  if (!res.ok)
    throw new Error(
      `sandbay/testing: GET ${path.split('?')[0]} answered ${res.status}${body?.detail ? `: ${body.detail}` : ''}`,
    );
  return body as T;
}

// A receiver check's probes are not deliveries the code under test caused: they match only when asked for.
const matches = (d: DeliverySummary, f: DeliveryFilter) =>
  (!d.check || f.includeChecks) &&
  (!f.topic || matchesAnyPattern([f.topic], d.topic)) &&
  (f.responseStatus === undefined || d.lastStatus === f.responseStatus) &&
  (f.since === undefined || Date.parse(d.createdAt) >= new Date(f.since).getTime());

/** The server-side part of a filter: exact fields the list route takes. */
function listQuery(f: DeliveryFilter, limit: number): string {
  const q = new URLSearchParams({ limit: String(limit) });
  if (f.topic && !f.topic.includes('*')) q.set('topic', f.topic);
  for (const key of ['status', 'endpointId', 'eventId', 'search'] as const) if (f[key]) q.set(key, f[key]!);
  if (f.includeChecks) q.set('includeChecks', 'true');
  return q.toString();
}

/** The newest deliveries (up to `limit`, default 100) of the sandbox that match a filter, newest first. */
export async function deliveries(
  filter: DeliveryFilter = {},
  options: SandbayConnection & { limit?: number } = {},
): Promise<DeliverySummary[]> {
  return listMatching(connect(options), filter, options.limit ?? 100);
}

async function listMatching(
  c: ReturnType<typeof connect>,
  filter: DeliveryFilter,
  limit: number,
): Promise<DeliverySummary[]> {
  const out: DeliverySummary[] = [];
  for (let cursor = ''; out.length < limit;) {
    const page = await get<{ data: DeliverySummary[]; nextCursor: string | null }>(
      c,
      `/api/v1/webhooks/deliveries?${listQuery(filter, 100)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    out.push(...page.data.filter((d) => matches(d, filter)));
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return out.slice(0, limit);
}

/**
 * Resolves with the first delivery (oldest first) that matches the filter and has been attempted at
 * least once, with its attempts: it may exist already or come while this waits. Rejects after
 * `timeout` ms with an error naming the filter and what was seen instead.
 */
export async function waitForDelivery(filter: DeliveryFilter, options: WaitOptions = {}): Promise<Delivery> {
  const c = connect(options);
  const timeout = options.timeout ?? 10_000;
  const deadline = Date.now() + timeout;
  let seen: DeliverySummary[] = [];
  for (;;) {
    seen = await listMatching(
      c,
      { ...filter, topic: undefined, responseStatus: undefined, since: undefined, status: undefined },
      200,
    );
    const hit = seen
      .filter((d) => matches(d, filter) && d.attemptCount > 0 && (!filter.status || d.status === filter.status))
      .at(-1);
    if (hit) return get<Delivery>(c, `/api/v1/webhooks/deliveries/${encodeURIComponent(hit.id)}`);
    if (Date.now() >= deadline) break;
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(options.intervalMs ?? 100, Math.max(0, deadline - Date.now()))),
    );
  }
  const newest = seen[0];
  const saw = newest
    ? `; ${seen.length} other deliveries seen, the newest ${newest.topic} ${newest.id} ${newest.status} (last answer ${newest.lastStatus ?? 'none'})`
    : '; no deliveries at all';
  throw new Error(`waitForDelivery: no delivery matching ${JSON.stringify(filter)} within ${timeout} ms${saw}`);
}
