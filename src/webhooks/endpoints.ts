import type { Db, Queryable, Tx } from '../db/database.ts';
import type { Invalidations } from '../db/invalidations.ts';
import type { Endpoint, LiveSecret } from '../shared/api-types.ts';
import { newId } from '../shared/ids.ts';
import { LruMap } from '../shared/lru-map.ts';
import { notFound } from '../shared/problem.ts';
import type { SandboxClock } from '../schedule/clock.ts';
import type { ChaosSettings } from './chaos.ts';
import { defaultScheme, type SchemeName } from '../shared/schemes.ts';
import {
  liveGenerations,
  newSigningKey,
  publicKeyOf,
  schemesOf,
  signingKeysAt,
  type KeyGeneration,
  type SigningKeys,
} from './endpoint-keys.ts';
import { chaosJson, chaosSince, checkTopics, type EndpointInput } from './endpoint-input.ts';
import { endpointSelect, insertGeneration, toEndpoint, type EndpointRow } from './endpoint-rows.ts';

export { newWebhookSecret } from './endpoint-keys.ts';

/** After a rotation the old secret keeps signing for 24 h of sandbox time (SPEC §5.1). */
const rotationOverlapMs = 24 * 3600_000;

/** Endpoint targets kept in memory: the dispatcher's working set, not every endpoint ever attempted. */
const maxCachedEndpoints = 10_000;

/** What the dispatcher needs to attempt a delivery to an endpoint. */
export interface EndpointTarget {
  url: string;
  enabled: boolean;
  allowInsecureTls: boolean;
  signature: SchemeName[];
  /** Every key generation, newest first (expired ones included: the caller picks by sandbox time). */
  secrets: KeyGeneration[];
  chaos: ChaosSettings | null;
  /** Deliveries after this sequence number are numbered for the chaos draws. */
  chaosSinceSeq: number;
}

/** Endpoint registration (SPEC §5.1); secrets are shown in full only on create and rotate. */
export class Endpoints {
  // Promises, so a burst of attempts to one endpoint shares a single lookup (a drop removes a pending one
  // too, so a lookup that began before a change is not kept). The database announces every change to an
  // endpoint or its secrets, so every engine on it drops its copy (src/db/cache-registry.ts).
  private readonly cache = new LruMap<string, Promise<EndpointTarget | null>>(maxCachedEndpoints);

  constructor(
    private readonly db: Db,
    private readonly clock: SandboxClock,
    private readonly invalidations: Invalidations,
  ) {
    invalidations.on('endpoints', {
      drop: (message) =>
        this.forget(String(message.tenantId), message.id === undefined ? undefined : String(message.id)),
      dropAll: () => this.cache.clear(),
    });
  }

  /** This engine reads its own change at once: its copy goes as the change commits. */
  private changed(tx: Tx, tenantId: string, id: string): void {
    this.invalidations.dropAfterCommit(tx, { cache: 'endpoints', tenantId, id });
  }

  async create(tenantId: string, input: EndpointInput): Promise<Endpoint> {
    checkTopics(input.topics);
    const id = newId('whe');
    const now = this.clock.now(tenantId);
    const schemes = schemesOf(input.signature ?? defaultScheme);
    const enabled = input.enabled ?? true;
    await this.db.transaction(async (tx) => {
      await tx.query(
        `insert into webhook_endpoints (tenant_id, id, url, topics, description, enabled, allow_insecure_tls, created_at, updated_at, chaos, chaos_since_seq,
                                        signature, disabled_reason, disabled_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, ${chaosSince}, $10, $11, $12)`,
        [
          tenantId,
          id,
          input.url,
          [...new Set(input.topics)],
          input.description ?? null,
          enabled,
          input.allowInsecureTls ?? false,
          now,
          chaosJson(input.chaos),
          schemes,
          enabled ? null : 'user',
          enabled ? null : now,
        ],
      );
      await insertGeneration(tx, tenantId, id, schemes, now, input.secret);
      this.changed(tx, tenantId, id);
    });
    return this.get(this.db, tenantId, id, true);
  }

  async get(q: Queryable, tenantId: string, id: string, reveal = false): Promise<Endpoint> {
    const [row] = await q.query<EndpointRow>(`${endpointSelect} where e.tenant_id = $1 and e.id = $2`, [tenantId, id]);
    if (!row) throw notFound('webhook endpoint');
    return toEndpoint(row, reveal);
  }

  async list(tenantId: string, limit: number, after?: { key: string | number; id: string }): Promise<Endpoint[]> {
    const rows = await this.db.query<EndpointRow>(
      `${endpointSelect} where e.tenant_id = $1 and ($3::timestamptz is null or (e.created_at, e.id) < ($3, $4))
        order by e.created_at desc, e.id desc limit $2`,
      [tenantId, limit, after?.key ?? null, after?.id ?? null],
    );
    return rows.map((r) => toEndpoint(r, false));
  }

  /**
   * Applies a partial update; returns the endpoint and whether it went from disabled to enabled.
   * The row is locked first, so of two updates at once on two engines the second reads what the
   * first wrote: neither loses the other's fields, and only one of them sees the endpoint come on.
   */
  async update(
    tenantId: string,
    id: string,
    patch: Partial<EndpointInput>,
  ): Promise<{ endpoint: Endpoint; enabledNow: boolean }> {
    if (patch.topics) checkTopics(patch.topics);
    const { endpoint, enabledNow } = await this.db.transaction(async (tx) => {
      const [before] = await tx.query<{ enabled: boolean }>(
        'select enabled from webhook_endpoints where tenant_id = $1 and id = $2 for update',
        [tenantId, id],
      );
      if (!before) throw notFound('webhook endpoint');
      // Turning it off by hand records that and when; turning it on clears why it was off (410 Gone included).
      await tx.query(
        `update webhook_endpoints set url = coalesce($3, url), topics = coalesce($4, topics),
                description = case when $5::boolean then $6 else description end,
                enabled = coalesce($7, enabled), allow_insecure_tls = coalesce($8, allow_insecure_tls), updated_at = $9,
                chaos = case when $10::boolean then $11::jsonb else chaos end,
                chaos_since_seq = case when $10::boolean then ${chaosSince} else chaos_since_seq end,
                signature = coalesce($12, signature),
                disabled_reason = case when $7 then null when $7 = false and enabled then 'user' else disabled_reason end,
                disabled_at = case when $7 then null when $7 = false and enabled then $9 else disabled_at end,
                disabled_delivery_id = case when $7 = false and not enabled then disabled_delivery_id else null end
          where tenant_id = $1 and id = $2`,
        [
          tenantId,
          id,
          patch.url ?? null,
          patch.topics ? [...new Set(patch.topics)] : null,
          patch.description !== undefined,
          patch.description ?? null,
          patch.enabled ?? null,
          patch.allowInsecureTls ?? null,
          this.clock.now(tenantId),
          patch.chaos !== undefined,
          chaosJson(patch.chaos),
          patch.signature ? schemesOf(patch.signature) : null,
        ],
      );
      if (patch.signature) await this.keyCurrentGeneration(tx, tenantId, id);
      this.changed(tx, tenantId, id);
      const after = await this.get(tx, tenantId, id);
      return { endpoint: after, enabledNow: !before.enabled && after.enabled };
    });
    return { endpoint, enabledNow };
  }

  /**
   * Generations from before ed25519 keys were kept get one when the endpoint's schemes change (the scheme may be among
   * them now).
   */
  private async keyCurrentGeneration(tx: Queryable, tenantId: string, id: string): Promise<void> {
    const rows = await tx.query<{ secret: string }>(
      'select secret from webhook_secrets where tenant_id = $1 and endpoint_id = $2 and expires_at is null and signing_key is null',
      [tenantId, id],
    );
    for (const { secret } of rows) {
      await tx.query(
        'update webhook_secrets set signing_key = $4 where tenant_id = $1 and endpoint_id = $2 and secret = $3',
        [tenantId, id, secret, newSigningKey()],
      );
    }
  }

  /**
   * The receiver answered 410 Gone (SPEC §5.3): the endpoint is disabled, saying why, when and on which
   * delivery (an endpoint that was off already stays as it was).
   */
  async disableGone(tenantId: string, id: string, deliveryId: string, at: Date): Promise<void> {
    await this.db.transaction(async (tx) => {
      const rows = await tx.query(
        `update webhook_endpoints set enabled = false, disabled_reason = 'gone', disabled_at = $3, disabled_delivery_id = $4, updated_at = $3
          where tenant_id = $1 and id = $2 and enabled returning id`,
        [tenantId, id, at, deliveryId],
      );
      if (rows.length > 0) this.changed(tx, tenantId, id);
    });
  }

  /** Deletes the endpoint and its secrets; the caller dead-letters its pending deliveries. */
  async remove(tenantId: string, id: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const rows = await tx.query('delete from webhook_endpoints where tenant_id = $1 and id = $2 returning id', [
        tenantId,
        id,
      ]);
      if (rows.length === 0) throw notFound('webhook endpoint');
      await tx.query('delete from webhook_secrets where tenant_id = $1 and endpoint_id = $2', [tenantId, id]);
      this.changed(tx, tenantId, id);
    });
  }

  /**
   * A new key generation (secret and ed25519 key); the old one signs alongside it until 24 h of sandbox time have
   * passed.
   */
  async rotateSecret(tenantId: string, id: string): Promise<Endpoint> {
    const now = this.clock.now(tenantId);
    await this.db.transaction(async (tx) => {
      const [exists] = await tx.query<{ signature: SchemeName[] }>(
        'select signature from webhook_endpoints where tenant_id = $1 and id = $2',
        [tenantId, id],
      );
      if (!exists) throw notFound('webhook endpoint');
      await tx.query(
        `update webhook_secrets set expires_at = $3 where tenant_id = $1 and endpoint_id = $2 and expires_at is null`,
        [tenantId, id, new Date(now.getTime() + rotationOverlapMs)],
      );
      await insertGeneration(tx, tenantId, id, exists.signature, now);
      this.changed(tx, tenantId, id);
    });
    return this.get(this.db, tenantId, id, true);
  }

  /** Every secret that still signs, newest first. */
  async liveSecrets(tenantId: string, id: string): Promise<LiveSecret[]> {
    const target = await this.target(tenantId, id);
    if (!target) throw notFound('webhook endpoint');
    const now = this.clock.nowMs(tenantId);
    return liveGenerations(target.secrets, now).map((s) => ({
      secret: s.secret,
      createdAt: new Date(s.createdAt).toISOString(),
      expiresAt: s.expiresAt === null ? null : new Date(s.expiresAt).toISOString(),
      publicKey: target.signature.includes('standard-webhooks-ed25519') ? publicKeyOf(s.signingKey) : null,
    }));
  }

  /** The dispatcher's view of an endpoint (cached; null once deleted). */
  target(tenantId: string, id: string): Promise<EndpointTarget | null> {
    // Not kept while announcements could be missed (the notification connection is down).
    if (!this.invalidations.trusted) return this.loadTarget(tenantId, id);
    const key = `${tenantId}\u0000${id}`;
    let cached = this.cache.get(key);
    if (!cached) {
      const loading = this.loadTarget(tenantId, id);
      cached = loading;
      this.cache.set(key, loading);
      loading.catch(() => this.cache.get(key) === loading && this.cache.delete(key));
    }
    return cached;
  }

  private async loadTarget(tenantId: string, id: string): Promise<EndpointTarget | null> {
    const [row] = await this.db.query<{
      url: string;
      enabled: boolean;
      allow_insecure_tls: boolean;
      chaos: ChaosSettings | null;
      chaos_since_seq: number;
      signature: SchemeName[];
      secrets: { secret: string; signingKey: string | null; createdAt: string; expiresAt: string | null }[] | null;
    }>(
      `select e.url, e.enabled, e.allow_insecure_tls, e.chaos, e.chaos_since_seq, e.signature,
              (select json_agg(json_build_object('secret', s.secret, 'signingKey', s.signing_key, 'createdAt', s.created_at, 'expiresAt', s.expires_at)
                               order by s.created_at desc)
                 from webhook_secrets s where s.tenant_id = e.tenant_id and s.endpoint_id = e.id) as secrets
         from webhook_endpoints e where e.tenant_id = $1 and e.id = $2`,
      [tenantId, id],
    );
    return row
      ? {
          url: row.url,
          enabled: row.enabled,
          allowInsecureTls: row.allow_insecure_tls,
          chaos: row.chaos,
          chaosSinceSeq: row.chaos_since_seq,
          signature: row.signature,
          secrets: (row.secrets ?? []).map((s) => ({
            secret: s.secret,
            signingKey: s.signingKey,
            createdAt: Date.parse(s.createdAt),
            expiresAt: s.expiresAt ? Date.parse(s.expiresAt) : null,
          })),
        }
      : null;
  }

  /** Every key that signs at sandbox time `at` (secrets and ed25519 keys), newest first. */
  static signingKeys(target: EndpointTarget, at: number): SigningKeys {
    return signingKeysAt(target.secrets, at);
  }

  forget(tenantId: string, id?: string): void {
    if (id) return void this.cache.delete(`${tenantId}\u0000${id}`);
    for (const [key] of this.cache) if (key.startsWith(`${tenantId}\u0000`)) this.cache.delete(key);
  }
}
