import type { Db } from '../db/database.ts';
import type { Invalidations } from '../db/invalidations.ts';
import { LruMap } from '../shared/lru-map.ts';

/** Sandboxes whose webhookTestSecret is kept in memory: those sending test webhooks to bare URLs now. */
const maxCached = 10_000;

/**
 * Each sandbox's webhookTestSecret, which signs test webhooks sent to a bare URL (SPEC §5.4): read once,
 * then kept. The database announces a change (src/db/cache-registry.ts); a reset or delete forgets it.
 */
export class TestSecrets {
  private readonly cache = new LruMap<string, string>(maxCached);

  constructor(
    private readonly db: Db,
    private readonly invalidations: Invalidations,
  ) {
    invalidations.on('testSecrets', {
      drop: (message) => this.forget(String(message.tenantId)),
      dropAll: () => this.cache.clear(),
    });
  }

  async of(tenantId: string): Promise<string> {
    const cached = this.invalidations.trusted ? this.cache.get(tenantId) : undefined;
    if (cached !== undefined) return cached;
    const generation = this.invalidations.generation;
    const [row] = await this.db.query<{ webhook_test_secret: string }>(
      'select webhook_test_secret from tenants where id = $1',
      [tenantId],
    );
    const secret = row?.webhook_test_secret ?? '';
    if (row && this.invalidations.trusted && this.invalidations.generation === generation)
      this.cache.set(tenantId, secret);
    return secret;
  }

  forget(tenantId: string): void {
    this.cache.delete(tenantId);
  }
}
