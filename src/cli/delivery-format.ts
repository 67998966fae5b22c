import type { Delivery as DeliveryDetail, DeliverySummary } from '../shared/api-types.ts';
import type { Client } from './client.ts';
import { clip, relative, table } from './output.ts';

/** The sandbox's now (it may run ahead of the real clock), or the real now when the token cannot read it. */
export async function sandboxNowMs(client: Client): Promise<number> {
  try {
    return Date.parse((await client.request<{ now: string }>('GET', '/api/v1/sandbox/clock')).now);
  } catch {
    return Date.now();
  }
}

const outcome = (status: number | null, error: string | null) =>
  status !== null ? String(status) : `ERR ${clip(error ?? 'failed', 28)}`;

/**
 * When the next attempt comes: a countdown, or why none comes while the endpoint is off (a 410 Gone disabled it, SPEC
 * §5.3).
 */
const nextAttempt = (d: DeliverySummary, nowMs: number) =>
  d.paused ? 'paused: endpoint disabled' : d.nextAttemptAt ? relative(d.nextAttemptAt, nowMs) : '—';

/** Deliveries as an aligned table: status, topic, id, attempts, last outcome, next attempt, target. */
export function deliveryTable(deliveries: DeliverySummary[], nowMs: number): string[] {
  return table(
    ['status', 'topic', 'delivery', 'attempts', 'last', 'next attempt', 'url'],
    deliveries.map((d) => [
      d.status,
      d.topic,
      d.id,
      String(d.attemptCount),
      d.attemptCount === 0 ? '—' : outcome(d.lastStatus, d.lastError),
      nextAttempt(d, nowMs),
      d.url ?? '(endpoint deleted)',
    ]),
  );
}

/** One line for a delivery's latest attempt, e.g. "dlv_… order.placed → http://… [200] 12 ms · succeeded". */
export function latestAttemptLine(d: DeliveryDetail, nowMs: number): string {
  const last = d.attempts.at(-1);
  const head = `${d.id}  ${d.topic}  → ${last?.url ?? d.url ?? '?'}`;
  if (!last) return `${head}  · ${d.status}, no attempt yet`;
  const next =
    d.status !== 'pending'
      ? ''
      : d.paused
        ? `, paused: ${d.paused.message}`
        : d.nextAttemptAt
          ? `, next attempt ${relative(d.nextAttemptAt, nowMs)}`
          : '';
  return `${head}  [${outcome(last.responseStatus, last.error)}] ${last.durationMs} ms, attempt ${last.number} (${last.trigger})  · ${d.status}${next}`;
}

/**
 * The inspector's deep link for a delivery (SPEC §8). Sandbay's envelope names the sandbox; a Standard
 * Webhooks one does not, so the connection's sandbox (or the token's) says it.
 */
export async function inspectorLink(client: Client, d: DeliveryDetail): Promise<string> {
  const sandboxId =
    d.envelope.tenantId ??
    client.connection.sandbox ??
    (await client.request<{ id: string }>('GET', '/api/v1/sandbox')).id;
  return `${client.url}/sandboxes/${sandboxId}/deliveries/${d.id}`;
}

/** Polls a delivery until it has `attempts` attempts recorded (or the wait ends); returns the last read. */
export async function waitForAttempts(
  client: Client,
  id: string,
  attempts: number,
  timeoutMs: number,
): Promise<DeliveryDetail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await client.request<DeliveryDetail>('GET', `/api/v1/webhooks/deliveries/${encodeURIComponent(id)}`);
    if (d.attempts.length >= attempts || Date.now() >= deadline) return d;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
