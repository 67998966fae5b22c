import type { Db } from '../../db/database.ts';
import type { SandboxClock } from '../../schedule/clock.ts';
import { ApiError, notFound } from '../../shared/problem.ts';
import type { Catcher, CatcherBehaviour, CatcherMode } from '../../shared/api-types.ts';
import { RequestLog } from './request-log.ts';

interface Row {
  tenant_id: string;
  name: string;
  mode: CatcherMode;
  status: number;
  delay_ms: number;
  created_at: Date;
  updated_at: Date;
  request_count: number;
}

const defaultBehaviour: CatcherBehaviour = { mode: 'status', status: 200, delayMs: 0 };

const requestCount = `(select count(*) from catcher_requests r where r.tenant_id = catchers.tenant_id and r.catcher_name = catchers.name)::int as request_count`;

/** The path a sandbox's catcher receives at: the sandbox is part of it, so names are per sandbox. */
const catcherPath = (tenantId: string, name: string) =>
  `/catch/${encodeURIComponent(tenantId)}/${encodeURIComponent(name)}`;

/**
 * The built-in catchers, each a sandbox's own (at /catch/<sandboxId>/<name>): their settings,
 * so an endpoint pointing at one keeps working after a restart, and their request logs.
 */
export class Catchers {
  readonly log: RequestLog;

  constructor(
    private readonly db: Db,
    private readonly clock: SandboxClock,
    private readonly baseUrl: () => string,
  ) {
    this.log = new RequestLog(db);
  }

  /** Creates (created: true) or reconfigures a sandbox's catcher; racing puts of one name create it once. */
  async put(
    tenantId: string,
    name: string,
    patch: Partial<CatcherBehaviour>,
  ): Promise<{ catcher: Catcher; created: boolean }> {
    const now = this.clock.now(tenantId);
    const b = { ...defaultBehaviour, ...patch };
    // A delete racing between the insert and the update makes the insert worth trying again.
    for (let tries = 0; tries < 3; tries++) {
      const [inserted] = await this.db.query<Row>(
        `insert into catchers (tenant_id, name, mode, status, delay_ms, created_at, updated_at) values ($1, $2, $3, $4, $5, $6, $6)
         on conflict (tenant_id, name) do nothing returning *, 0 as request_count`,
        [tenantId, name, b.mode, b.status, b.delayMs, now],
      );
      if (inserted) return { catcher: this.toCatcher(inserted), created: true };
      const [updated] = await this.db.query<Row>(
        `update catchers set mode = coalesce($3, mode), status = coalesce($4, status), delay_ms = coalesce($5, delay_ms), updated_at = $6
          where tenant_id = $1 and name = $2 returning *, ${requestCount}`,
        [tenantId, name, patch.mode ?? null, patch.status ?? null, patch.delayMs ?? null, now],
      );
      if (updated) return { catcher: this.toCatcher(updated), created: false };
    }
    throw new ApiError(
      409,
      'catcher_changing',
      `The catcher ${name} is being deleted and created again by other requests; try again.`,
    );
  }

  async get(tenantId: string, name: string): Promise<Catcher> {
    const catcher = await this.lookup(tenantId, name);
    if (!catcher) throw notFound('catcher');
    return catcher;
  }

  /** A sandbox's catchers by name, `limit` from after `afterName`. */
  async list(tenantId: string, limit: number, afterName?: string): Promise<Catcher[]> {
    const rows = await this.db.query<Row>(
      `select *, ${requestCount} from catchers where tenant_id = $1 and ($3::text is null or name > $3) order by name limit $2`,
      [tenantId, limit, afterName ?? null],
    );
    return rows.map((r) => this.toCatcher(r));
  }

  /** Deletes a catcher and its log. */
  async remove(tenantId: string, name: string): Promise<void> {
    const rows = await this.db.query('delete from catchers where tenant_id = $1 and name = $2 returning name', [
      tenantId,
      name,
    ]);
    if (rows.length === 0) throw notFound('catcher');
  }

  /** A sandbox's catcher and how it answers; undefined when it has none of that name. */
  async lookup(tenantId: string, name: string): Promise<Catcher | undefined> {
    const [row] = await this.db.query<Row>(
      `select *, ${requestCount} from catchers where tenant_id = $1 and name = $2`,
      [tenantId, name],
    );
    return row && this.toCatcher(row);
  }

  private toCatcher(r: Row): Catcher {
    return {
      name: r.name,
      url: `${this.baseUrl()}${catcherPath(r.tenant_id, r.name)}`,
      mode: r.mode,
      status: r.status,
      delayMs: r.delay_ms,
      requestCount: r.request_count,
      createdAt: r.created_at.toISOString(),
      updatedAt: r.updated_at.toISOString(),
    };
  }
}
