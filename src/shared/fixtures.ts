/**
 * A fixtures file (docs/receivers/testing.md): deliveries Sandbay made, kept so that a
 * receiver's own tests can send them again, re-signed (`replayFixtures`, `sandbay replay`).
 */
import type { Delivery } from './api-types.ts';
import { deliveryHeaders } from './delivery-headers.ts';

export const fixturesFormatVersion = 1;

export interface Fixture {
  /** e.g. "order.placed dlv_…": what a test report names. */
  name: string;
  topic: string;
  deliveryId: string;
  eventId: string;
  /** The envelope exactly as it was sent: a replay sends these bytes. */
  body: string;
  /** The request headers other than the signature, which a replay makes afresh. */
  headers: Record<string, string>;
  /** What the receiver answered last time, for reference. */
  recorded: { url: string | null; status: number | null; at: string | null };
}

export interface FixturesFile {
  sandbayFixtures: number;
  recordedAt: string;
  source: { sandboxId: string; url?: string };
  fixtures: Fixture[];
}

/** A delivery as a fixture: its bytes and headers, to be re-signed and sent again. */
export function fixtureOf(d: Delivery): Fixture {
  const last = d.attempts.at(-1);
  return {
    name: `${d.topic} ${d.id}`,
    topic: d.topic,
    deliveryId: d.id,
    eventId: d.eventId,
    body: d.rawBody,
    headers: deliveryHeaders(d.topic, d.id, null),
    recorded: { url: last?.url ?? d.url, status: last?.responseStatus ?? null, at: last?.startedAt ?? null },
  };
}
