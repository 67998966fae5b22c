import type { Db, Queryable, Tx } from '../db/database.ts';
import type { Invalidations } from '../db/invalidations.ts';
import type { Endpoint, LiveSecret } from '../shared/api-types.ts';
import { newId, randomString } from '../shared/ids.ts';
import { LruMap } from '../shared/lru-map.ts';
import { ApiError, notFound } from '../shared/problem.ts';
import { maskSecret } from '../shared/mask-secret.ts';
import { didYouMean, suggestPattern } from '../shared/suggest.ts';
import { isValidPattern } from '../shared/topics.ts';
import type { SandboxClock } from '../schedule/clock.ts';
import type { ChaosSettings } from './chaos.ts';

/** After a rotation the old secret keeps signing for 24 h of sandbox time (SPEC §5.1). */
export const rotationOverlapMs = 24 * 3600_000;

/** Endpoint targets kept in memory: the dispatcher's working set, not every endpoint ever attempted. */
export const maxCachedEndpoints = 10_000;

export interface EndpointInput {
  url: string;
  topics: string[];
  description?: string | null;
  enabled?: boolean;
  allowInsecureTls?: boolean;
  /** Faults to inject (null turns them off); a missing seed is picked at random and shown. */
  chaos?: (Partial<ChaosSettings> & { seed?: number }) | null;
}

/** What the dispatcher needs to attempt a delivery to an endpoint. */
export interface EndpointTarget {
  url: string;
  enabled: boolean;
  allowInsecureTls: boolean;
  secrets: { secret: string; createdAt: number; expiresAt: number | null }[];
  chaos: ChaosSettings | null;
  /** Deliveries after this sequence number are numbered for the chaos draws. */
  chaosSinceSeq: number;
}

/** Complete chaos settings from what the API was given; all-zero faults are no chaos at all. */
function chaosSettings(input: EndpointInput['chaos']): ChaosSettings | null {
  if (!input) return null;
  const settings = {
    duplicateRate: input.duplicateRate ?? 0, reorderWindowMs: input.reorderWindowMs ?? 0, delayMs: input.delayMs ?? 0,
    seed: input.seed ?? Math.floor(Math.random() * 2 ** 31),
  };
  return settings.duplicateRate || settings.reorderWindowMs || settings.delayMs ? settings : null;
}

const chaosJson = (input: EndpointInput['chaos']) => {
  const settings = chaosSettings(input);
  return settings ? JSON.stringify(settings) : null;
};

// Deliveries created from now on have a higher sequence number than any of the tenant's so far.
const chaosSince = `(select coalesce(max(seq), 0) from deliveries where tenant_id = $1)`;

export const newWebhookSecret = () => `whsec_${randomString(32)}`;
interface EndpointRow {
  id: string; url: string; topics: string[]; description: string | null; enabled: boolean; allow_insecure_tls: boolean;
  created_at: Date; updated_at: Date; secret: string; chaos: ChaosSettings | null;
}

// The current secret is the newest one without an expiry.
const endpointSelect = `
  select e.*, (select s.secret from webhook_secrets s where s.tenant_id = e.tenant_id and s.endpoint_id = e.id
                and s.expires_at is null order by s.created_at desc limit 1) as secret
    from webhook_endpoints e`;

const toEndpoint = (r: EndpointRow, reveal: boolean): Endpoint => ({
  id: r.id, url: r.url, topics: r.topics, description: r.description, enabled: r.enabled, allowInsecureTls: r.allow_insecure_tls,
  secret: reveal ? r.secret : maskSecret(r.secret), chaos: r.chaos, createdAt: r.created_at.toISOString(), updatedAt: r.updated_at.toISOString(),
});

export function checkTopics(topics: string[]): void {
  const bad = topics.map((t, i) => ({ t, i })).filter(({ t }) => !isValidPattern(t));
  if (bad.length > 0) {
    const hints = bad.map(({ t }) => suggestPattern(t)).filter(Boolean);
    const hint = hints.length ? ` Did you mean ${hints.join(', ')}?` : '';
    throw new ApiError(422, 'unknown_topic', `Unknown topic${bad.length > 1 ? 's' : ''}: ${bad.map((b) => b.t).join(', ')}.${hint} See GET /api/v1/webhooks/topics.`, {
      errors: bad.map(({ t, i }) => ({ path: `/topics/${i}`, message: `${t} is not a topic, *, or <category>.*${didYouMean(suggestPattern(t)).replace(' Did', '; did')}` })),
    });
  }
}

/** Endpoint registration (SPEC §5.1); secrets are shown in full only on create and rotate. */
export class Endpoints {
  // Promises, so a burst of attempts to one endpoint shares a single lookup (a drop removes a pending one
  // too, so a lookup that began before a change is not kept). The database announces every change to an
  // endpoint or its secrets, so every engine on it drops its copy (src/db/cache-registry.ts).
  private readonly cache = new LruMap<string, Promise<EndpointTarget | null>>(maxCachedEndpoints);

  constructor(private readonly db: Db, private readonly clock: SandboxClock, private readonly invalidations: Invalidations) {
    invalidations.on('endpoints', {
      drop: (message) => this.forget(String(message.tenantId), message.id === undefined ? undefined : String(message.id)),
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
    await this.db.transaction(async (tx) => {
      await tx.query(
        `insert into webhook_endpoints (tenant_id, id, url, topics, description, enabled, allow_insecure_tls, created_at, updated_at, chaos, chaos_since_seq)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, ${chaosSince})`,
        [tenantId, id, input.url, [...new Set(input.topics)], input.description ?? null, input.enabled ?? true, input.allowInsecureTls ?? false, now,
          chaosJson(input.chaos)],
      );
      await tx.query('insert into webhook_secrets (tenant_id, endpoint_id, secret, created_at) values ($1, $2, $3, $4)', [
        tenantId, id, newWebhookSecret(), now,
      ]);
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
  async update(tenantId: string, id: string, patch: Partial<EndpointInput>): Promise<{ endpoint: Endpoint; enabledNow: boolean }> {
    if (patch.topics) checkTopics(patch.topics);
    const { endpoint, enabledNow } = await this.db.transaction(async (tx) => {
      const [before] = await tx.query<{ enabled: boolean }>('select enabled from webhook_endpoints where tenant_id = $1 and id = $2 for update', [tenantId, id]);
      if (!before) throw notFound('webhook endpoint');
      await tx.query(
        `update webhook_endpoints set url = coalesce($3, url), topics = coalesce($4, topics),
                description = case when $5::boolean then $6 else description end,
                enabled = coalesce($7, enabled), allow_insecure_tls = coalesce($8, allow_insecure_tls), updated_at = $9,
                chaos = case when $10::boolean then $11::jsonb else chaos end,
                chaos_since_seq = case when $10::boolean then ${chaosSince} else chaos_since_seq end
          where tenant_id = $1 and id = $2`,
        [tenantId, id, patch.url ?? null, patch.topics ? [...new Set(patch.topics)] : null, patch.description !== undefined,
          patch.description ?? null, patch.enabled ?? null, patch.allowInsecureTls ?? null, this.clock.now(tenantId),
          patch.chaos !== undefined, chaosJson(patch.chaos)],
      );
      this.changed(tx, tenantId, id);
      const after = await this.get(tx, tenantId, id);
      return { endpoint: after, enabledNow: !before.enabled && after.enabled };
    });
    return { endpoint, enabledNow };
  }

  /** Deletes the endpoint and its secrets; the caller dead-letters its pending deliveries. */
  async remove(tenantId: string, id: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const rows = await tx.query('delete from webhook_endpoints where tenant_id = $1 and id = $2 returning id', [tenantId, id]);
      if (rows.length === 0) throw notFound('webhook endpoint');
      await tx.query('delete from webhook_secrets where tenant_id = $1 and endpoint_id = $2', [tenantId, id]);
      this.changed(tx, tenantId, id);
    });
  }

  /** A new secret; the old one signs alongside it until 24 h of sandbox time have passed. */
  async rotateSecret(tenantId: string, id: string): Promise<Endpoint> {
    const now = this.clock.now(tenantId);
    await this.db.transaction(async (tx) => {
      const [exists] = await tx.query('select 1 from webhook_endpoints where tenant_id = $1 and id = $2', [tenantId, id]);
      if (!exists) throw notFound('webhook endpoint');
      await tx.query(
        `update webhook_secrets set expires_at = $3 where tenant_id = $1 and endpoint_id = $2 and expires_at is null`,
        [tenantId, id, new Date(now.getTime() + rotationOverlapMs)],
      );
      await tx.query('insert into webhook_secrets (tenant_id, endpoint_id, secret, created_at) values ($1, $2, $3, $4)', [
        tenantId, id, newWebhookSecret(), now,
      ]);
      this.changed(tx, tenantId, id);
    });
    return this.get(this.db, tenantId, id, true);
  }

  /** Every secret that still signs, newest first. */
  async liveSecrets(tenantId: string, id: string): Promise<LiveSecret[]> {
    const target = await this.target(tenantId, id);
    if (!target) throw notFound('webhook endpoint');
    const now = this.clock.nowMs(tenantId);
    return target.secrets
      .filter((s) => s.expiresAt === null || s.expiresAt > now)
      .map((s) => ({ secret: s.secret, createdAt: new Date(s.createdAt).toISOString(), expiresAt: s.expiresAt === null ? null : new Date(s.expiresAt).toISOString() }));
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
      url: string; enabled: boolean; allow_insecure_tls: boolean; chaos: ChaosSettings | null; chaos_since_seq: number;
      secrets: { secret: string; createdAt: string; expiresAt: string | null }[] | null;
    }>(
      `select e.url, e.enabled, e.allow_insecure_tls, e.chaos, e.chaos_since_seq,
              (select json_agg(json_build_object('secret', s.secret, 'createdAt', s.created_at, 'expiresAt', s.expires_at) order by s.created_at desc)
                 from webhook_secrets s where s.tenant_id = e.tenant_id and s.endpoint_id = e.id) as secrets
         from webhook_endpoints e where e.tenant_id = $1 and e.id = $2`,
      [tenantId, id],
    );
    return row
      ? {
          url: row.url, enabled: row.enabled, allowInsecureTls: row.allow_insecure_tls, chaos: row.chaos, chaosSinceSeq: row.chaos_since_seq,
          secrets: (row.secrets ?? []).map((s) => ({ secret: s.secret, createdAt: Date.parse(s.createdAt), expiresAt: s.expiresAt ? Date.parse(s.expiresAt) : null })),
        }
      : null;
  }

  /** Secrets that sign at sandbox time `at`, newest first. */
  static signingSecrets(target: EndpointTarget, at: number): string[] {
    return target.secrets.filter((s) => s.expiresAt === null || s.expiresAt > at).map((s) => s.secret);
  }

  forget(tenantId: string, id?: string): void {
    if (id) return void this.cache.delete(`${tenantId}\u0000${id}`);
    for (const [key] of this.cache) if (key.startsWith(`${tenantId}\u0000`)) this.cache.delete(key);
  }
}
