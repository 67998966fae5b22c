import type { Db } from '../../db/database.ts';
import type { CaughtRequest } from '../../shared/api-types.ts';
import { randomString } from '../../shared/ids.ts';

/** What a catcher saw and what it made of it: the API's CaughtRequest. */
export type CatcherRecord = CaughtRequest;
export type Verification = CaughtRequest['verification'];

/** A request as it arrived: the raw body is cut to what is kept. */
export type Caught = Omit<CatcherRecord, 'id' | 'body'> & { body: Buffer };

/** Requests kept per catcher, like webhook.site's bins. */
export const keptPerCatcher = 50;
const keptBodyBytes = 64 * 1024;
const foreignKeyViolation = '23503';

interface Row {
  id: string;
  received_at: Date;
  method: string;
  headers: Record<string, string>;
  body: Uint8Array;
  bytes: number;
  verification: Verification;
  response_status: number | null;
  delay_ms: number;
}

/**
 * Catchers' request logs, in the database so every engine sharing it lists what any engine
 * caught; each catcher keeps its newest requests, the oldest dropped first.
 */
export class RequestLog {
  constructor(private readonly db: Db) {}

  /** Records a request; one that arrived as its catcher was deleted is dropped with it. */
  async add(tenantId: string, name: string, caught: Caught): Promise<void> {
    try {
      await this.db.transaction(async (tx) => {
        // Adds to one catcher take turns: two at once (two engines, or two connections of one) would
        // each trim the log as it was without the other's row, and together keep one too many.
        await tx.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [
          `sandbay:catcher:${tenantId}:${name}`,
        ]);
        // One statement after the lock: the delete sees the log as it was before this insert, so it keeps one fewer.
        await tx.query(
          `with added as (
             insert into catcher_requests (tenant_id, catcher_name, id, received_at, method, headers, body, bytes, verification, response_status, delay_ms)
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
           )
           delete from catcher_requests where tenant_id = $1 and catcher_name = $2 and seq <= (
             select seq from catcher_requests where tenant_id = $1 and catcher_name = $2 order by seq desc offset $12 limit 1)`,
          [
            tenantId,
            name,
            `req_${randomString(16)}`,
            caught.receivedAt,
            caught.method,
            JSON.stringify(caught.headers),
            caught.body.subarray(0, keptBodyBytes),
            caught.bytes,
            JSON.stringify(caught.verification),
            caught.responseStatus,
            caught.delayMs,
            keptPerCatcher - 1,
          ],
        );
      });
    } catch (err) {
      if ((err as { code?: string }).code !== foreignKeyViolation) throw err;
    }
  }

  /** A catcher's requests, newest first. */
  async list(tenantId: string, name: string): Promise<CatcherRecord[]> {
    const rows = await this.db.query<Row>(
      `select id, received_at, method, headers, body, bytes, verification, response_status, delay_ms from catcher_requests
        where tenant_id = $1 and catcher_name = $2 order by seq desc limit $3`,
      [tenantId, name, keptPerCatcher],
    );
    return rows.map((r) => ({
      id: r.id,
      receivedAt: r.received_at.toISOString(),
      method: r.method,
      headers: r.headers,
      body: Buffer.from(r.body).toString('utf8'),
      // Requests caught before schemes were recorded were all verified Sandbay's way.
      bytes: r.bytes,
      verification: { ...r.verification, signature: r.verification.signature ?? ['sandbay'] },
      responseStatus: r.response_status,
      delayMs: r.delay_ms,
    }));
  }
}
