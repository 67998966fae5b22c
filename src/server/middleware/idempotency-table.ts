import type { Queryable } from '../../db/database.ts';

/** Which key: scoped to tenant + method + path (SPEC §2). */
export interface KeyScope {
  tenantId: string;
  method: string;
  path: string;
  key: string;
}

/** A key's row: a claim while its request runs (status null), then the response to replay. */
export interface KeyRow {
  body_hash: string;
  status: number | null;
  response: string | null;
  omitted: string[] | null;
}

const where = 'tenant_id = $1 and method = $2 and path = $3 and key = $4';
const scopeParams = (s: KeyScope) => [s.tenantId, s.method, s.path, s.key];

/** The idempotency_keys table: claims, stored responses and their purge. */
export class IdempotencyTable {
  constructor(private readonly db: Queryable) {}

  /**
   * Claims a key for one request (named by `token`): a new key, one past its 24 h window, or a
   * claim abandoned by a process that died. False when another request holds or answered it.
   */
  async claim(
    scope: KeyScope,
    bodyHash: string,
    token: string,
    at: { now: Date; expiredBefore: Date; abandonedBefore: Date },
  ): Promise<boolean> {
    const rows = await this.db.query(
      `insert into idempotency_keys (tenant_id, method, path, key, body_hash, status, response, claim_token, omitted, created_at)
       values ($1, $2, $3, $4, $5, null, null, $6, null, $7)
       on conflict (tenant_id, method, path, key) do update
         set body_hash = excluded.body_hash, status = null, response = null, claim_token = excluded.claim_token,
             omitted = null, created_at = excluded.created_at
         where idempotency_keys.created_at < $8 or (idempotency_keys.status is null and idempotency_keys.created_at < $9)
       returning claim_token`,
      [...scopeParams(scope), bodyHash, token, at.now, at.expiredBefore, at.abandonedBefore],
    );
    return rows.length === 1;
  }

  async find(scope: KeyScope): Promise<KeyRow | undefined> {
    const [row] = await this.db.query<KeyRow>(
      `select body_hash, status, response, omitted from idempotency_keys where ${where}`,
      scopeParams(scope),
    );
    return row;
  }

  /** Stores the response under the claim; false when the claim is no longer this request's. */
  async save(
    q: Queryable,
    scope: KeyScope,
    token: string,
    status: number,
    response: unknown,
    omitted: string[],
  ): Promise<boolean> {
    const rows = await q.query(
      `update idempotency_keys set status = $6, response = $7, omitted = $8
        where ${where} and claim_token = $5 and status is null returning key`,
      [...scopeParams(scope), token, status, JSON.stringify(response), omitted.length > 0 ? omitted : null],
    );
    return rows.length === 1;
  }

  /** Gives a claim up (its request failed), so a retry runs the handler again. */
  async release(q: Queryable, scope: KeyScope, token: string): Promise<void> {
    await q.query(`delete from idempotency_keys where ${where} and claim_token = $5 and status is null`, [
      ...scopeParams(scope),
      token,
    ]);
  }

  /**
   * Deletes every key created before `before`, in all sandboxes: housekeeping that no request
   * waits for (each sandbox's keys alone would be the same index range, once per sandbox).
   */
  async purge(before: Date): Promise<number> {
    const rows = await this.db.query('delete from idempotency_keys where created_at < $1 returning key', [before]);
    return rows.length;
  }
}
