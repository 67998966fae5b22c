import { createHash } from 'node:crypto';
import type { Db, Queryable, Tx } from '../../db/database.ts';
import type { Invalidations } from '../../db/invalidations.ts';
import { randomString } from '../../shared/ids.ts';
import { LruMap } from '../../shared/lru-map.ts';

export const accessTokenTtlSeconds = 3600;
const refreshTokenTtlSeconds = 30 * 86400;

/**
 * Verified tokens kept in memory (~0.5 KB each, so ~5 MB): thousands of clients minting
 * tokens must not grow the engine forever, and a token in use stays warm.
 */
export const maxCachedTokens = 10_000;

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export interface AccessGrant {
  tenantId: string;
  clientId: string;
  scopes: ReadonlySet<string>;
  familyId: string;
  expiresAtMs: number;
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken?: string;
  expiresIn: number;
  scope: string;
}

export type TokenCheck = { ok: true; grant: AccessGrant } | { ok: false; reason: 'invalid_token' | 'token_expired' };

/**
 * Opaque tokens, stored only as SHA-256 hashes. Access tokens are checked on every request,
 * so verified ones are cached in memory and dropped on revoke, reset and delete — on every engine
 * sharing the database (the database announces each revocation: src/db/cache-registry.ts). Token
 * lifetimes use the real clock (SPEC §5.5).
 */
export class TokenStore {
  private readonly cache: LruMap<string, AccessGrant>;

  constructor(
    private readonly db: Db,
    private readonly invalidations: Invalidations,
    private readonly realNow: () => number = Date.now,
    maxCached = maxCachedTokens,
  ) {
    this.cache = new LruMap(maxCached);
    invalidations.on('tokens', {
      drop: (message) =>
        this.forgetWhere((grant) => grant.familyId === message.familyId || grant.tenantId === message.tenantId),
      dropAll: () => this.cache.clear(),
    });
  }

  /** How many verified tokens are held in memory. */
  get cachedCount(): number {
    return this.cache.size;
  }

  async issue(
    q: Queryable,
    opts: {
      tenantId: string;
      clientId: string;
      scope: string;
      familyId?: string;
      accessTtl?: number;
      refresh: boolean;
    },
  ): Promise<IssuedTokens> {
    const familyId = opts.familyId ?? `fam_${randomString(20)}`;
    const accessToken = `sat_${randomString(40)}`;
    const expiresIn = opts.accessTtl ?? accessTokenTtlSeconds;
    const now = this.realNow();
    const rows: unknown[][] = [[hashToken(accessToken), 'access', new Date(now + expiresIn * 1000)]];
    let refreshToken: string | undefined;
    if (opts.refresh) {
      refreshToken = `srt_${randomString(40)}`;
      rows.push([hashToken(refreshToken), 'refresh', new Date(now + refreshTokenTtlSeconds * 1000)]);
    }
    const values = rows.map((_, i) => `($${i * 3 + 5}, $1, $2, $${i * 3 + 6}, $3, $4, $${i * 3 + 7})`).join(', ');
    await q.query(
      `insert into oauth_tokens (hash, tenant_id, client_id, kind, scope, family_id, expires_at) values ${values}`,
      [opts.tenantId, opts.clientId, opts.scope, familyId, ...rows.flat()],
    );
    return { accessToken, refreshToken, expiresIn, scope: opts.scope };
  }

  /** Checks a bearer token: one map lookup when warm, one indexed query when cold. */
  async verifyAccess(token: string): Promise<TokenCheck> {
    const hash = hashToken(token);
    const trusted = this.invalidations.trusted;
    let grant = trusted ? this.cache.get(hash) : undefined;
    if (!grant) {
      const generation = this.invalidations.generation;
      const [row] = await this.db.query<{
        tenant_id: string;
        client_id: string;
        scope: string;
        family_id: string;
        expires_at: Date;
      }>(
        `select tenant_id, client_id, scope, family_id, expires_at from oauth_tokens
          where hash = $1 and kind = 'access' and revoked_at is null`,
        [hash],
      );
      if (!row) return { ok: false, reason: 'invalid_token' };
      grant = {
        tenantId: row.tenant_id,
        clientId: row.client_id,
        familyId: row.family_id,
        scopes: new Set(row.scope.split(' ').filter(Boolean)),
        expiresAtMs: row.expires_at.getTime(),
      };
      // A read that a revocation overlapped may have seen the row before it: not kept.
      if (trusted && this.invalidations.generation === generation) this.cache.set(hash, grant);
    }
    if (grant.expiresAtMs <= this.realNow()) return { ok: false, reason: 'token_expired' };
    return { ok: true, grant };
  }

  // Each revocation is announced by the database (every engine, at COMMIT); this engine also drops its
  // copy as the revocation commits, so the next request here is refused whatever the announcement's lag.

  async revokeFamily(tx: Tx, familyId: string): Promise<void> {
    await tx.query('update oauth_tokens set revoked_at = now() where family_id = $1 and revoked_at is null', [
      familyId,
    ]);
    this.invalidations.dropAfterCommit(tx, { cache: 'tokens', familyId });
  }

  /**
   * Every token a client was issued (a grant's family never spans clients: a refresh token is spent only by its own).
   */
  async revokeClient(tx: Tx, tenantId: string, clientId: string): Promise<void> {
    await tx.query(
      'update oauth_tokens set revoked_at = now() where tenant_id = $1 and client_id = $2 and revoked_at is null',
      [tenantId, clientId],
    );
    this.invalidations.dropAfterCommit(tx, { cache: 'tokens', tenantId });
  }

  async revokeTenant(tx: Tx, tenantId: string): Promise<void> {
    await tx.query('update oauth_tokens set revoked_at = now() where tenant_id = $1 and revoked_at is null', [
      tenantId,
    ]);
    this.invalidations.dropAfterCommit(tx, { cache: 'tokens', tenantId });
  }

  /**
   * RFC 7009 revocation by one of the client's own tokens: a refresh token takes its whole family
   * (every access token issued from the grant) with it, an access token only itself. A token that is
   * unknown, already revoked or another client's changes nothing, as the RFC has the answer be the same.
   */
  async revoke(clientId: string, token: string): Promise<void> {
    const hash = hashToken(token);
    const [row] = await this.db.query<{ kind: 'access' | 'refresh'; family_id: string }>(
      'select kind, family_id from oauth_tokens where hash = $1 and client_id = $2 and revoked_at is null',
      [hash, clientId],
    );
    if (!row) return;
    await this.db.transaction(async (tx) => {
      if (row.kind === 'refresh') return this.revokeFamily(tx, row.family_id);
      const [revoked] = await tx.query<{ tenant_id: string }>(
        'update oauth_tokens set revoked_at = now() where hash = $1 returning tenant_id',
        [hash],
      );
      if (revoked) this.invalidations.dropAfterCommit(tx, { cache: 'tokens', tenantId: revoked.tenant_id });
    });
  }

  forgetTenant(tenantId: string): void {
    this.forgetWhere((g) => g.tenantId === tenantId);
  }

  private forgetWhere(match: (grant: AccessGrant, hash: string) => boolean): void {
    for (const [hash, grant] of this.cache) if (match(grant, hash)) this.cache.delete(hash);
  }
}
