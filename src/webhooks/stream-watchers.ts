import type { Db } from '../db/database.ts';

/**
 * Which sandboxes someone streams, in the database so every engine knows: a publisher writes a
 * sandbox's messages only while it is watched. A watch lasts `windowMs` past its last renewal, so a
 * client that reconnects within the resume window finds what it missed.
 */
export class StreamWatchers {
  constructor(private readonly db: Db, private readonly windowMs: number) {}

  /**
   * Starts or renews the watch of these sandboxes; returns, per sandbox, the xid its unbroken watch
   * began at (a watch that had lapsed starts again here: messages before it may be missing).
   */
  async watch(tenantIds: string[]): Promise<Map<string, bigint>> {
    const rows = await this.db.query<{ tenant_id: string; since_xid: string }>(
      `insert into stream_watchers as w (tenant_id, watched_until, since_xid)
         select t, now() + $2 * interval '1 ms', pg_current_xact_id() from unnest($1::text[]) as t
       on conflict (tenant_id) do update set
         since_xid = case when w.watched_until <= now() then excluded.since_xid else w.since_xid end,
         watched_until = greatest(w.watched_until, excluded.watched_until)
       returning tenant_id, since_xid::text as since_xid`,
      [tenantIds, this.windowMs],
    );
    return new Map(rows.map((r) => [r.tenant_id, BigInt(r.since_xid)]));
  }

  /** The sandboxes among these that are watched now (asked once per batch: a prepared read). */
  async watched(tenantIds: string[]): Promise<Set<string>> {
    const rows = await this.db.query<{ tenant_id: string }>(
      'select tenant_id from stream_watchers where tenant_id = any($1::text[]) and watched_until > now()',
      [tenantIds],
      { prepare: true },
    );
    return new Set(rows.map((r) => r.tenant_id));
  }

  /** Forgets watches that lapsed. */
  async prune(): Promise<void> {
    await this.db.query('delete from stream_watchers where watched_until <= now()');
  }
}
