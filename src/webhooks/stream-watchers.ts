import type { Db } from '../db/database.ts';

/**
 * Which sandboxes someone streams, in the database so every engine knows: a publisher writes a
 * sandbox's messages only while it is watched. A watch lasts `windowMs` past its last renewal, so a
 * client that reconnects within the resume window finds what it missed.
 */
export class StreamWatchers {
  constructor(
    private readonly db: Db,
    private readonly windowMs: number,
  ) {}

  /**
   * Starts or renews the watch of these sandboxes; returns, per sandbox, the number its unbroken watch
   * began at. A watch that starts (again) takes the sandbox's next stream number for itself, so every
   * number after it is a message written while watched, and one before it may have missed messages.
   * (A sandbox deleted meanwhile gets no counter: its messages are dropped as they are written.)
   */
  async watch(tenantIds: string[]): Promise<Map<string, number>> {
    const rows = await this.db.query<{ tenant_id: string; since_seq: number }>(
      `with live as (select tenant_id from stream_watchers where tenant_id = any($1::text[]) and watched_until > now()),
            started as (
              insert into stream_counters as c (tenant_id, seq)
                select t.id, 1 from tenants t where t.id = any($1::text[]) and t.id not in (select tenant_id from live) order by t.id
              on conflict (tenant_id) do update set seq = c.seq + 1
              returning tenant_id, seq)
       insert into stream_watchers as w (tenant_id, watched_until, since_seq)
         select t, now() + $2 * interval '1 ms', coalesce(s.seq, 0) from unnest($1::text[]) as t left join started s on s.tenant_id = t
       on conflict (tenant_id) do update set
         since_seq = case when w.watched_until <= now() then excluded.since_seq else w.since_seq end,
         watched_until = greatest(w.watched_until, excluded.watched_until)
       returning tenant_id, since_seq`,
      [tenantIds, this.windowMs],
    );
    return new Map(rows.map((r) => [r.tenant_id, r.since_seq]));
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
