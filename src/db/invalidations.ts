import { randomUUID } from 'node:crypto';
import type { Db, Tx } from './database.ts';

const channel = 'sandbay_invalidate';

/** What changed: a cache's name and the keys it drops (a tenant id, a token family, …). */
export type Invalidation = { cache: string } & Record<string, string | number | boolean | undefined>;

interface CacheHandlers {
  /** Drops what the message names. */
  drop(message: Invalidation): void;
  /** Drops everything: notifications may have been missed. */
  dropAll(): void;
}

/**
 * Keeps per-process caches true when several engines share one database. The engine that changes
 * a row drops its own copy at once (it must read its own writes) and announces the change; every
 * other engine drops its copy when the announcement arrives — at the COMMIT of the transaction that
 * made it (NOTIFY), never for one rolled back — and drops whole caches when its LISTEN connection
 * came back after a gap, since PostgreSQL keeps nothing for an absent listener.
 */
export class Invalidations {
  /** Tells this engine's own announcements apart: it acted on them already. */
  private readonly origin = randomUUID();
  private readonly caches = new Map<string, CacheHandlers>();
  private stop: (() => Promise<void>) | undefined;

  constructor(private readonly db: Db) {}

  /** Registers a cache by name. */
  on(cache: string, handlers: CacheHandlers): void {
    this.caches.set(cache, handlers);
  }

  /** Starts listening; resolves once other engines' announcements arrive here. */
  async start(): Promise<void> {
    const unlisten = await this.db.listen(channel, (payload) => this.received(payload));
    const offMissed = this.db.onNotificationsMissed(() => {
      for (const cache of this.caches.values()) cache.dropAll();
    });
    this.stop = async () => {
      offMissed();
      await unlisten();
    };
  }

  /** Tells the other engines: with a transaction, at its COMMIT; with the Db, now (the change is committed). */
  async announce(q: Tx | Db, message: Invalidation): Promise<void> {
    await q.notify(channel, JSON.stringify({ ...message, origin: this.origin }));
  }

  async close(): Promise<void> {
    await this.stop?.();
  }

  private received(payload: string): void {
    let message: Invalidation & { origin?: string };
    try {
      message = JSON.parse(payload);
    } catch {
      return;
    }
    if (message.origin === this.origin) return;
    this.caches.get(message.cache)?.drop(message);
  }
}
