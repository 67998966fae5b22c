/**
 * A fixtures file (docs/receivers.md, "Recorded fixtures"): deliveries Sandbay made, kept so that a
 * receiver's own tests can send them again, re-signed (`replayFixtures`, `sandbay replay`).
 */
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
