import type { SchemeName } from '../../shared/schemes.ts';
import type { Db, Queryable } from '../../db/database.ts';
import type { SandboxClock } from '../../schedule/clock.ts';
import type { CheckReport, CheckRun } from '../../shared/check-report.ts';
import { newId } from '../../shared/ids.ts';
import { notFound } from '../../shared/problem.ts';

/**
 * Each endpoint (and the sandbox's bare-URL checks together) keeps its newest runs, so a user sees the score improve.
 */
const keptRunsPerEndpoint = 10;
// A battery sends ~20 requests of at most 10 s each; a run 'running' longer than this was cut off by a stop.
const staleRunSeconds = 600;

interface RunRow {
  id: string;
  endpoint_id: string | null;
  url: string;
  status: CheckRun['status'];
  report: CheckReport & { total: number };
  created_at: Date;
  finished_at: Date | null;
  seq: number;
  signature: SchemeName[];
}

// jsonb keeps keys in its own order: the report is rebuilt in the documented one. Runs stored before
// cases could be blocked have no status, blocked count or root cause: they read as passed or failed.
const inOrder = (r: CheckReport): CheckReport => ({
  url: r.url,
  passed: r.passed,
  failed: r.failed,
  blocked: r.blocked ?? 0,
  warnings: r.warnings,
  durationMs: r.durationMs,
  rootCause: r.rootCause ? { caseId: r.rootCause.caseId, cause: r.rootCause.cause, blocks: r.rootCause.blocks } : null,
  cases: r.cases.map((c) => ({
    id: c.id,
    ok: c.ok,
    status: c.status ?? (c.ok ? 'passed' : 'failed'),
    blockedBy: c.blockedBy ?? null,
    warning: c.warning,
    // Runs stored before `verified`: their expectation said when processed once was not checked.
    verified: c.verified ?? !c.expected.includes('not checked'),
    expected: c.expected,
    got: { status: c.got.status, ms: c.got.ms, error: c.got.error },
    cause: c.cause,
    fix: c.fix,
    deliveryIds: c.deliveryIds,
  })),
});

const toRun = (r: RunRow): CheckRun & { seq: number } => {
  const { total, ...stored } = r.report;
  const report = inOrder(stored);
  return {
    id: r.id,
    endpointId: r.endpoint_id,
    url: r.url,
    status: r.status,
    total,
    createdAt: r.created_at.toISOString(),
    finishedAt: r.finished_at?.toISOString() ?? null,
    signature: r.signature,
    report,
    seq: r.seq,
  };
};

/** One request of a check as the delivery log records it: a delivery (trigger `check`) with its attempt. */
export interface CheckAttempt {
  runId: string;
  caseId: string;
  endpointId: string | null;
  url: string;
  deliveryId: string;
  number: number;
  topic: string;
  data: unknown;
  body: string;
  signatureHeader: string;
  /** Every signing header sent, and the schemes they are of. */
  signatureHeaders: Record<string, string>;
  signature: readonly string[];
  startedAt: Date;
  outcome: {
    ok: boolean;
    status: number | null;
    headers: Record<string, string>;
    body: string;
    error: string | null;
    durationMs: number;
  };
}

/** Check runs and their deliveries in the database: the one truth for every engine (team mode). */
export class CheckStore {
  constructor(
    private readonly db: Db,
    private readonly clock: SandboxClock,
  ) {}

  async create(
    tenantId: string,
    run: {
      endpointId: string | null;
      url: string;
      secret: string;
      signature: readonly string[];
      publicKey: string | null;
      total: number;
      report: CheckReport;
    },
  ): Promise<CheckRun> {
    const id = newId('chk');
    const [row] = await this.db.query<RunRow>(
      `insert into check_runs (tenant_id, id, endpoint_id, url, secret, status, report, created_at, signature, public_key)
       values ($1, $2, $3, $4, $5, 'running', $6, $7, $8, $9) returning *`,
      [
        tenantId,
        id,
        run.endpointId,
        run.url,
        run.secret,
        JSON.stringify({ ...run.report, total: run.total }),
        this.clock.now(tenantId),
        run.signature,
        run.publicKey,
      ],
    );
    await this.db.query(
      `delete from check_runs where tenant_id = $1 and endpoint_id is not distinct from $2
          and seq <= (select seq from check_runs where tenant_id = $1 and endpoint_id is not distinct from $2 order by seq desc offset $3 limit 1)`,
      [tenantId, run.endpointId, keptRunsPerEndpoint],
    );
    const { seq: _seq, ...created } = toRun(row);
    return created;
  }

  /** Stores the report so far; `finished` closes the run. */
  async progress(tenantId: string, id: string, report: CheckReport, total: number, finished: boolean): Promise<void> {
    await this.db.query(
      `update check_runs set report = $3, status = case when $4 then 'finished' else status end, finished_at = case when $4 then $5 else finished_at end
        where tenant_id = $1 and id = $2`,
      [tenantId, id, JSON.stringify({ ...report, total }), finished, this.clock.now(tenantId)],
    );
  }

  async get(q: Queryable, tenantId: string, id: string, endpointId?: string): Promise<CheckRun> {
    await this.interruptStale(tenantId);
    const [row] = await q.query<RunRow>(
      'select * from check_runs where tenant_id = $1 and id = $2 and ($3::text is null or endpoint_id = $3)',
      [tenantId, id, endpointId ?? null],
    );
    if (!row) throw notFound('check run');
    const { seq: _seq, ...run } = toRun(row);
    return run;
  }

  /** Runs newest first; `endpointId` undefined lists every run of the sandbox, null its bare-URL runs. */
  async list(
    tenantId: string,
    filter: { endpointId?: string | null },
    limit: number,
    afterSeq?: number,
  ): Promise<(CheckRun & { seq: number })[]> {
    await this.interruptStale(tenantId);
    const rows = await this.db.query<RunRow>(
      `select * from check_runs where tenant_id = $1 and ($3::bigint is null or seq < $3)
          and (not $4 or endpoint_id is not distinct from $5) order by seq desc limit $2`,
      [tenantId, limit, afterSeq ?? null, filter.endpointId !== undefined, filter.endpointId ?? null],
    );
    return rows.map(toRun);
  }

  /** The secret a run signed with (for the signature breakdown of its deliveries). */
  async secret(tenantId: string, id: string): Promise<{ secret: string; createdAt: string; publicKey: string | null }> {
    const [row] = await this.db.query<{ secret: string; created_at: Date; public_key: string | null }>(
      'select secret, created_at, public_key from check_runs where tenant_id = $1 and id = $2',
      [tenantId, id],
    );
    if (!row) throw notFound('check run');
    return { secret: row.secret, createdAt: row.created_at.toISOString(), publicKey: row.public_key };
  }

  /**
   * Records one answered request: the first attempt of a delivery inserts its event and
   * delivery (already final: a check is never retried), a repeat adds an attempt. Nothing is
   * written once the run is gone (a reset while it ran). Returns whether it was recorded.
   */
  async recordAttempt(tenantId: string, a: CheckAttempt): Promise<boolean> {
    const now = this.clock.now(tenantId);
    const status = a.outcome.ok ? 'succeeded' : 'dead';
    return this.db.transaction(async (tx) => {
      const [run] = await tx.query('select 1 from check_runs where tenant_id = $1 and id = $2', [tenantId, a.runId]);
      if (!run) return false;
      if (a.number === 1) {
        const eventId = newId('evt');
        await tx.query(
          'insert into events (tenant_id, id, topic, occurred_at, data, test) values ($1, $2, $3, $4, $5, true)',
          [tenantId, eventId, a.topic, a.startedAt, JSON.stringify(a.data)],
        );
        await tx.query(
          `insert into deliveries (tenant_id, id, event_id, endpoint_id, target_url, topic, status, body, attempt_count, last_status, last_error,
                                   created_at, updated_at, check_id, check_case)
           values ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9, $10, $11, $12, $13, $14)`,
          [
            tenantId,
            a.deliveryId,
            eventId,
            a.endpointId,
            a.endpointId ? null : a.url,
            a.topic,
            status,
            a.body,
            a.outcome.status,
            a.outcome.error,
            a.startedAt,
            now,
            a.runId,
            a.caseId,
          ],
        );
      } else {
        await tx.query(
          `update deliveries set status = $3, attempt_count = $4, last_status = $5, last_error = $6, updated_at = $7 where tenant_id = $1 and id = $2`,
          [tenantId, a.deliveryId, status, a.number, a.outcome.status, a.outcome.error, now],
        );
      }
      await tx.query(
        `insert into attempts (tenant_id, delivery_id, number, trigger, url, started_at, duration_ms, signature_header, response_status,
                               response_headers, response_body, error, signature, signature_headers)
         values ($1, $2, $3, 'check', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        [
          tenantId,
          a.deliveryId,
          a.number,
          a.url,
          a.startedAt,
          a.outcome.durationMs,
          a.signatureHeader,
          a.outcome.status,
          JSON.stringify(a.outcome.headers),
          a.outcome.body,
          a.outcome.error,
          a.signature,
          JSON.stringify(a.signatureHeaders),
        ],
      );
      return true;
    });
  }

  private async interruptStale(tenantId: string): Promise<void> {
    await this.db.query(
      `update check_runs set status = 'interrupted' where tenant_id = $1 and status = 'running' and started_real < now() - make_interval(secs => $2)`,
      [tenantId, staleRunSeconds],
    );
  }
}
