/**
 * What an engine caches of the database, and what keeps each cache true. Every source table has a
 * trigger (migration 076) that announces each change on `sandbay_invalidate` at COMMIT, whichever code
 * or session made it: a new write path cannot forget to announce. Every engine applies every
 * announcement, its own included; the engine that made a change also drops its copy the moment its
 * transaction commits (read your own writes). While the notification connection is down caches are
 * bypassed, and when it is back they are dropped whole (PostgreSQL keeps no notification for an absent
 * listener). tests/unit/cache-registry.test.ts holds this list, the triggers and the code to each other.
 */
export interface CacheEntry {
  /** What it holds, keyed how. */
  holds: string;
  /** The file that owns it. */
  owner: string;
  /** How big it can grow. */
  bound: string;
  /** The tables it is read from, and the trigger on each that announces a change. */
  sources: { table: string; trigger: string; announces: string }[];
}

export const cacheRegistry = {
  tokens: {
    holds: 'verified access tokens: hash → sandbox, client, scopes, expiry',
    owner: 'src/domain/oauth/token-store.ts',
    bound: 'the 10,000 most recently used',
    sources: [
      {
        table: 'oauth_tokens',
        trigger: 'oauth_tokens_announce',
        announces: 'revoked, expiry or scope changed: the sandbox (its cached tokens are read again)',
      },
      {
        table: 'oauth_tokens',
        trigger: 'oauth_tokens_announce_delete',
        announces: 'deleted (with its sandbox): the sandbox',
      },
    ],
  },
  endpoints: {
    holds: "an endpoint's target: URL, enabled, TLS, chaos and every secret with its expiry",
    owner: 'src/webhooks/endpoints.ts',
    bound: 'the 10,000 most recently used',
    sources: [
      {
        table: 'webhook_endpoints',
        trigger: 'webhook_endpoints_announce',
        announces: 'insert, update or delete: that endpoint',
      },
      {
        table: 'webhook_secrets',
        trigger: 'webhook_secrets_announce',
        announces: 'insert, update or delete (a rotation): its endpoint',
      },
    ],
  },
  clock: {
    holds: "each sandbox's clock offset (sandbox now = real now + offset)",
    owner: 'src/schedule/clock.ts',
    bound: 'one number per sandbox whose clock was moved, gone with the sandbox',
    sources: [
      { table: 'tenants', trigger: 'tenants_clock_announce', announces: 'clock_offset_ms changed: the new offset' },
    ],
  },
  testSecrets: {
    holds: "each sandbox's webhookTestSecret, for test webhooks to a bare URL",
    owner: 'src/webhooks/test-secrets.ts',
    bound: 'the 10,000 most recently used',
    sources: [
      {
        table: 'tenants',
        trigger: 'tenants_test_secret_announce',
        announces: 'webhook_test_secret changed: the sandbox',
      },
    ],
  },
} as const satisfies Record<string, CacheEntry>;

export type CacheName = keyof typeof cacheRegistry;

/**
 * Everything else an engine keeps in memory for a while (class fields holding a Map, Set or LruMap), and
 * why it cannot grow with the sandboxes ever made: each is bounded, per subscriber or task in flight,
 * or emptied when its sandbox is reset or deleted. tests/unit/cache-registry.test.ts finds every such
 * field under src/ (the inspector and CLI aside) and fails on one that is not listed here.
 */
export const processState: Record<string, string> = {
  'src/shared/lru-map.ts entries': 'the LRU itself, bounded by its owner',
  'src/domain/sandboxes/portable/row-rules.ts rowNumbers':
    'one checker per import, dropped with it; one entry per table',
  'src/domain/sandboxes/portable/row-rules.ts unsigned':
    "one checker per import, dropped with it; the file's endpoints",
  'src/domain/oauth/token-store.ts cache': 'cache: tokens',
  'src/webhooks/endpoints.ts cache': 'cache: endpoints',
  'src/webhooks/test-secrets.ts cache': 'cache: testSecrets',
  'src/schedule/clock.ts offsets': 'cache: clock',
  'src/db/invalidations.ts caches': 'one entry per cache kind',
  'src/db/invalidations.ts lifecycle': 'one entry per registered hook',
  'src/db/pg-listener.ts handlers': 'one entry per channel listened to',
  'src/db/pg-listener.ts gapHandlers': 'one entry per cache kind',
  'src/db/pg-listener.ts lostHandlers': 'one entry per cache kind',
  'src/db/local-notifications.ts channels': 'one entry per channel listened to',
  'src/db/local-notifications.ts tails': 'advisory locks held or awaited now',
  'src/schedule/scheduler.ts handlers': 'one entry per job kind',
  'src/schedule/scheduler.ts jobs': 'due jobs; a sandbox reset or delete cancels its own',
  'src/schedule/scheduler.ts byTenant': 'sandboxes with due jobs; emptied with their last job',
  'src/schedule/scheduler.ts running': 'sandboxes with jobs running now',
  'src/schedule/scheduler.ts advancing': 'clock advances running now',
  'src/webhooks/dispatcher.ts attempting': 'attempts in flight',
  'src/webhooks/flights.ts flights': 'sandboxes with attempts in flight (dropped with their last)',
  'src/webhooks/limiter.ts active': 'targets with attempts in flight',
  'src/webhooks/limiter.ts waiting': 'targets with attempts waiting for a turn',
  'src/webhooks/claim-batcher.ts batches': 'claims asked for in this turn of the event loop',
  'src/webhooks/claim-loop.ts toClaim': 'targets with due work not claimed yet',
  'src/webhooks/claim-loop.ts waiting': 'targets whose due work did not all fit',
  'src/webhooks/claim-loop.ts unsent': 'targets with leased attempts not sent yet',
  'src/webhooks/leases.ts sent': 'attempts sent and not yet recorded',
  'src/webhooks/dlq-replay.ts local': 'DLQ replay jobs running on this engine',
  'src/webhooks/check/runner.ts running': 'receiver checks running now',
  'src/webhooks/pruner.ts pruning': 'prunes running now',
  'src/webhooks/outbound/shares.ts checks': 'sandboxes with receiver checks running now (dropped with their last)',
  'src/webhooks/delivery-stream.ts feeds': 'sandboxes with a stream client on this engine (dropped with their last)',
};
