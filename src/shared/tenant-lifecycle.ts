/**
 * Keeps in-memory state (queues, caches, clocks, streams) in step with a sandbox's reset or delete:
 * `before` runs before the transaction, `after` synchronously once it has committed. The domain's
 * Sandboxes calls them; the webhook engine, the commerce jobs and the catchers implement them, so the
 * type lives below all of them.
 */
export interface TenantLifecycle {
  before?(tenantId: string): void;
  /** `elsewhere`: another engine on the database made the change, and this one hears of it. */
  after(tenantId: string, change: { reset: boolean; all: boolean; elsewhere?: boolean }): void;
}
