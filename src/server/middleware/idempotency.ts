import { createHash } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import { ApiError, problemBody } from '../../shared/problem.ts';
import type { RouteResult } from '../route.ts';

const windowMs = 24 * 3600_000;
const maxKeyLength = 255;

/** JSON with sorted keys, so {"a":1,"b":2} and {"b":2,"a":1} compare equal (SPEC §2). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

export interface IdempotencyRequest {
  tenantId: string;
  method: string;
  path: string;
  key: string;
  body: unknown;
}

/**
 * Stripe-style Idempotency-Key: within 24 real hours the same key and body replay the
 * first response (2xx and 4xx; a 5xx is not stored, so a retry runs again); the same key
 * with another body is 409. Two requests racing on one key: the second gets 409.
 */
export class IdempotencyKeys {
  private readonly inFlight = new Set<string>();

  constructor(private readonly db: Db, private readonly realNow: () => number = Date.now) {}

  async run(req: IdempotencyRequest, handler: () => Promise<RouteResult>): Promise<RouteResult> {
    if (req.key.length > maxKeyLength) {
      throw new ApiError(422, 'validation_failed', `Idempotency-Key is limited to ${maxKeyLength} characters.`, {
        errors: [{ path: '/headers/Idempotency-Key', message: `At most ${maxKeyLength} characters.` }],
      });
    }
    const bodyHash = createHash('sha256').update(canonicalJson(req.body)).digest('hex');
    const [stored] = await this.db.query<{ body_hash: string; status: number; response: string }>(
      `select body_hash, status, response from idempotency_keys
        where tenant_id = $1 and method = $2 and path = $3 and key = $4 and created_at > $5`,
      [req.tenantId, req.method, req.path, req.key, new Date(this.realNow() - windowMs)],
    );
    if (stored) {
      if (stored.body_hash !== bodyHash) {
        throw new ApiError(409, 'idempotency_key_reused', 'This Idempotency-Key was already used with a different body.');
      }
      return { status: stored.status, body: JSON.parse(stored.response), headers: { 'Idempotent-Replayed': 'true' } };
    }
    const slot = [req.tenantId, req.method, req.path, req.key].join('\u0000');
    if (this.inFlight.has(slot)) {
      throw new ApiError(409, 'idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed.');
    }
    this.inFlight.add(slot);
    try {
      let result: RouteResult;
      try {
        result = await handler();
      } catch (err) {
        if (err instanceof ApiError && err.status < 500) await this.store(req, bodyHash, err.status, problemBody(err));
        throw err;
      }
      const status = result.status ?? 200;
      if (status < 500) await this.store(req, bodyHash, status, result.body ?? null);
      return result;
    } finally {
      this.inFlight.delete(slot);
    }
  }

  private async store(req: IdempotencyRequest, bodyHash: string, status: number, body: unknown): Promise<void> {
    await this.db.query(
      `insert into idempotency_keys (tenant_id, method, path, key, body_hash, status, response, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8)
       on conflict (tenant_id, method, path, key) do update
         set body_hash = excluded.body_hash, status = excluded.status, response = excluded.response, created_at = excluded.created_at`,
      [req.tenantId, req.method, req.path, req.key, bodyHash, status, JSON.stringify(body), new Date(this.realNow())],
    );
  }
}
