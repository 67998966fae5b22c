import type { Queryable } from '../db/database.ts';
import type { Attempt, Delivery as DeliveryDetail, DeliverySummary } from '../shared/api-types.ts';
import { notFound } from '../shared/problem.ts';
import { storedEnvelope } from './envelope.ts';
import { attemptSpanId, deliveryTraceId, originTrace, traceparent } from './tracing/trace-context.ts';

export type { DeliveryDetail, DeliverySummary };

export interface DeliveryFilter {
  status?: string;
  topic?: string;
  endpointId?: string;
  eventId?: string;
  /** A delivery id, event id or order id. */
  search?: string;
  /** Any of these topics (a pattern list, expanded). */
  topics?: string[];
  /** Recorded at or after this, on the real clock (real_created_at; created_at is the sandbox clock's). */
  since?: Date;
  /** Leave out the deliveries of receiver checks (the DLQ: they are never retried or replayed). */
  excludeChecks?: boolean;
}

interface Row {
  id: string;
  event_id: string;
  topic: string;
  endpoint_id: string | null;
  url: string | null;
  status: DeliverySummary['status'];
  attempt_count: number;
  next_attempt_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  test: boolean;
  created_at: Date;
  updated_at: Date;
  seq: number;
  position: number;
  body?: string;
  check_id: string | null;
  check_case: string | null;
  endpoint_enabled: boolean | null;
  disabled_reason: string | null;
  disabled_at: Date | null;
}

const summarySelect = `
  select d.id, d.event_id, d.topic, d.endpoint_id, coalesce(w.url, d.target_url) as url, d.status, d.attempt_count,
         d.next_attempt_at, d.last_status, d.last_error, e.test, d.created_at, d.updated_at, d.seq, c.position, d.check_id, d.check_case,
         w.enabled as endpoint_enabled, w.disabled_reason, coalesce(w.disabled_at, w.updated_at) as disabled_at
    from deliveries d
    join list_commits c on c.tenant_id = d.tenant_id and c.xid = d.xid
    join events e on e.tenant_id = d.tenant_id and e.id = d.event_id
    left join webhook_endpoints w on w.tenant_id = d.tenant_id and w.id = d.endpoint_id`;

/** A pending delivery whose endpoint is off waits; it says why (SPEC §5.3). */
function pausedOf(r: Row): DeliverySummary['paused'] {
  if (r.status !== 'pending' || r.endpoint_enabled !== false) return null;
  const why = {
    gone: 'its receiver answered 410 Gone',
    user: 'it was disabled',
    imported: 'it came in a sandbox file, which calls nothing until enabled',
  }[(r.disabled_reason ?? 'user') as 'gone' | 'user' | 'imported'];
  return {
    reason: 'endpoint_disabled',
    message: `Waiting: endpoint ${r.endpoint_id} is disabled (${why}). Enable it to resume.`,
    since: r.disabled_at!.toISOString(),
  };
}

const toSummary = (r: Row): DeliverySummary & ListPosition => ({
  id: r.id,
  eventId: r.event_id,
  topic: r.topic,
  endpointId: r.endpoint_id,
  url: r.url,
  status: r.status,
  attemptCount: r.attempt_count,
  nextAttemptAt: r.next_attempt_at?.toISOString() ?? null,
  lastStatus: r.last_status,
  lastError: r.last_error,
  test: r.test,
  check: r.check_id ? { id: r.check_id, case: r.check_case ?? '' } : null,
  paused: pausedOf(r),
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
  seq: r.seq,
  position: r.position,
});

/**
 * Where a row stands in a list: the commit position its transaction took in its sandbox, then its
 * insertion sequence (migration 075: positions are handed out in commit order, per sandbox).
 */
export interface ListPosition {
  position: number;
  seq: number;
}

/**
 * Deliveries newest first (by commit, then insertion order), filtered, after `after`. A delivery that
 * commits later always lands above what was listed: a forward poll never skips one, and never waits.
 */
export async function listDeliveries(
  q: Queryable,
  tenantId: string,
  filter: DeliveryFilter,
  limit: number,
  after?: ListPosition,
): Promise<(DeliverySummary & ListPosition)[]> {
  const rows = await q.query<Row>(
    `${summarySelect}
      where d.tenant_id = $1 and ($3::bigint is null or (c.position, d.seq) < ($10::bigint, $3::bigint))
        and ($4::text is null or d.status = $4) and ($5::text is null or d.topic = $5)
        and ($6::text is null or d.endpoint_id = $6) and ($7::text is null or d.event_id = $7)
        and ($8::text is null or d.id = $8 or d.event_id = $8 or e.data->>'orderId' = $8)
        and (not $9::boolean or d.check_id is null)
        and ($11::text[] is null or d.topic = any($11)) and ($12::timestamptz is null or d.real_created_at >= $12)
      order by c.position desc, d.seq desc limit $2`,
    [
      tenantId,
      limit,
      after?.seq ?? null,
      filter.status ?? null,
      filter.topic ?? null,
      filter.endpointId ?? null,
      filter.eventId ?? null,
      filter.search ?? null,
      filter.excludeChecks ?? false,
      after?.position ?? null,
      filter.topics ?? null,
      filter.since ?? null,
    ],
  );
  return rows.map(toSummary);
}

// The attempts ride along in the same statement, so the delivery's status and its attempts come from one
// snapshot: with several connections, a second query could see an attempt whose status update it missed.
// An attempt before Retry-After was read has no note: its retryAfter is JSON null (a missing key's -> is SQL null).
const attemptsJson = `(select coalesce(json_agg(json_build_object(
    'number', a.number, 'trigger', a.trigger, 'url', a.url,
    'startedAt', to_char(a.started_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'durationMs', a.duration_ms,
    'signatureHeader', a.signature_header, 'responseStatus', a.response_status, 'responseHeaders', a.response_headers,
    'responseBody', a.response_body, 'error', a.error, 'chaos', a.chaos, 'signature', a.signature,
    'signatureHeaders', coalesce(a.signature_headers, case when a.signature_header = '' then '{}'::jsonb else jsonb_build_object('x-service-signature', a.signature_header) end),
    'retryAfter', a.schedule_note->'retryAfter', 'disabledEndpoint', coalesce((a.schedule_note->>'disabledEndpoint')::boolean, false)) order by a.number), '[]')
  from attempts a where a.tenant_id = d.tenant_id and a.delivery_id = d.id) as attempts`;

// Both links of a resend (issue 31): the one it came from, and those made from it.
const resendLinks = `d.resent_from, d.resent_from_attempt, d.resend_edited, d.signing_endpoint_id, (select coalesce(json_agg(r.id order by r.seq), '[]') from deliveries r
  where r.tenant_id = d.tenant_id and r.resent_from = d.id) as resent_as`;

interface DetailRow extends Row {
  body: string;
  attempts: Omit<Attempt, 'traceparent'>[];
  resent_from: string | null;
  resent_from_attempt: number | null;
  resend_edited: boolean | null;
  resent_as: string[];
  signing_endpoint_id: string | null;
}

export async function getDelivery(q: Queryable, tenantId: string, id: string): Promise<DeliveryDetail> {
  const [row] = await q.query<DetailRow>(
    `${summarySelect.replace('select d.id,', `select d.body, ${attemptsJson}, ${resendLinks}, d.id,`)} where d.tenant_id = $1 and d.id = $2`,
    [tenantId, id],
  );
  if (!row) throw notFound('delivery');
  const { seq: _seq, position: _position, ...summary } = toSummary(row);
  const traceId = deliveryTraceId(tenantId, id);
  // Check probes go out from the check runner, without trace context.
  const attempts = row.attempts.map((a) => ({
    ...a,
    traceparent: a.trigger === 'check' ? null : traceparent(traceId, attemptSpanId(traceId, a.number)),
  }));
  // A body that is no envelope (quarantined by the engine) is shown by its raw bytes alone.
  const stored = storedEnvelope(row.body);
  const envelope = 'envelope' in stored ? (stored.envelope as DeliveryDetail['envelope']) : { data: null };
  return {
    ...summary,
    envelope,
    rawBody: row.body,
    traceId,
    attempts,
    resentFrom: row.resent_from
      ? {
          id: row.resent_from,
          edited: row.resend_edited ?? false,
          ...originTrace(tenantId, { id: row.resent_from, attempt: row.resent_from_attempt }),
        }
      : null,
    resentAs: row.resent_as,
    signedAs: row.signing_endpoint_id,
  };
}
