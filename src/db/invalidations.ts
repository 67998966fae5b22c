import { randomUUID } from 'node:crypto';
import type { CacheName } from './cache-registry.ts';
import type { Db, Tx } from './database.ts';

const channel = 'sandbay_invalidate';

/** What changed: a cache's name and the keys it drops (a sandbox id, an endpoint id, an offset …). */
export type Invalidation = { cache: CacheName } & Record<string, string | number | boolean | undefined>;

/** A sandbox reset or deleted: every engine forgets what it keeps of it (src/shared/tenant-lifecycle.ts). */
export interface TenantChange {
  tenantId: string;
  reset: boolean;
  all: boolean;
}

interface CacheHandlers {
  /** Drops what the message names. */
  drop(message: Invalidation): void;
  /** Drops everything: notifications may have been missed. */
  dropAll(): void;
}

/**
 * Keeps per-process caches true when several engines share one database (src/db/cache-registry.ts).
 * Changes to cached rows are announced by the database's triggers at COMMIT; every engine applies every
 * announcement, its own included, and the engine that made a change also applies it as its transaction
 * commits (`dropAfterCommit`). A cache fills only with a read that no drop overlapped (`generation`),
 * so a read racing a change cannot put the old row back. While the notification connection is down
 * caches are bypassed (`trusted`), and when it is back they are dropped whole.
 */
export class Invalidations {
  /** Tells this engine's own lifecycle announcements apart: it ran those hooks at its COMMIT. */
  private readonly origin = randomUUID();
  private readonly caches = new Map<CacheName, CacheHandlers>();
  private readonly lifecycle = new Set<(change: TenantChange) => void>();
  private stop: (() => Promise<void>) | undefined;
  private connected = true;
  private drops = 0;

  constructor(private readonly db: Db) {}

  /** Registers a cache by its name in the registry. */
  on(cache: CacheName, handlers: CacheHandlers): void {
    this.caches.set(cache, handlers);
  }

  /** Registers what runs when another engine resets or deletes a sandbox. */
  onTenantChange(fn: (change: TenantChange) => void): void {
    this.lifecycle.add(fn);
  }

  /** Starts listening; resolves once announcements arrive here. */
  async start(): Promise<void> {
    const unlisten = await this.db.listen(channel, (payload) => this.received(payload));
    const offLost = this.db.onNotificationsLost(() => {
      this.connected = false;
      this.dropAll();
    });
    const offMissed = this.db.onNotificationsMissed(() => {
      this.connected = true;
      this.dropAll();
    });
    this.stop = async () => {
      offLost();
      offMissed();
      await unlisten();
    };
  }

  /** False while announcements could be missed (the notification connection is down): caches read through. */
  get trusted(): boolean {
    return this.connected;
  }

  /**
   * Changes whenever any cache drops anything: a cache keeps a value it read only if this is the same
   * as when the read began (a read that overlapped a change may have seen the old row).
   */
  get generation(): number {
    return this.drops;
  }

  /** Applies the change on this engine once `tx` commits (the database announces it to every engine too). */
  dropAfterCommit(tx: Tx, message: Invalidation): void {
    tx.afterCommit(() => this.apply(message));
  }

  /** Tells the other engines of a reset or delete, at COMMIT; the writer runs its own hooks itself. */
  async announceTenant(tx: Tx, change: TenantChange): Promise<void> {
    await tx.notify(channel, JSON.stringify({ cache: 'tenant', ...change, origin: this.origin }));
  }

  async close(): Promise<void> {
    await this.stop?.();
  }

  private apply(message: Invalidation): void {
    this.drops++;
    this.caches.get(message.cache)?.drop(message);
  }

  private dropAll(): void {
    this.drops++;
    for (const cache of this.caches.values()) cache.dropAll();
  }

  private received(payload: string): void {
    let message: (Invalidation | ({ cache: 'tenant' } & TenantChange)) & { origin?: string };
    try {
      message = JSON.parse(payload);
    } catch {
      return;
    }
    if (message.cache !== 'tenant') return this.apply(message as Invalidation);
    if (message.origin === this.origin) return;
    const change = message as TenantChange;
    this.drops++;
    for (const fn of this.lifecycle)
      fn({ tenantId: String(change.tenantId), reset: change.reset === true, all: change.all === true });
  }
}
