import type { Db } from '../../db/database.ts';
import type { SandboxClock } from '../../schedule/clock.ts';
import { ApiError, notFound } from '../../shared/problem.ts';
import type { Catcher, CatcherBehaviour, CatcherMode } from '../../shared/api-types.ts';
import { type CatcherRecord, RequestLog } from './request-log.ts';

interface Row {
  tenant_id: string; name: string; mode: CatcherMode; status: number; delay_ms: number; created_at: Date; updated_at: Date;
}

export const defaultBehaviour: CatcherBehaviour = { mode: 'status', status: 200, delayMs: 0 };

/**
 * The built-in catchers' configuration (in the database, so an endpoint pointing at one
 * keeps working after a restart) and their request logs (in memory, newest 50 each).
 */
export class Catchers {
  readonly log = new RequestLog();

  constructor(private readonly db: Db, private readonly clock: SandboxClock, private readonly baseUrl: () => string) {}

  /** Creates or reconfigures a sandbox's catcher; a name another sandbox holds is a 409. */
  async put(tenantId: string, name: string, patch: Partial<CatcherBehaviour>): Promise<{ catcher: Catcher; created: boolean }> {
    const now = this.clock.now(tenantId);
    const [owner] = await this.db.query<{ tenant_id: string }>('select tenant_id from catchers where name = $1', [name]);
    if (owner && owner.tenant_id !== tenantId) {
      throw new ApiError(409, 'catcher_name_taken', `The catcher name ${name} is in use by another sandbox; pick another name.`);
    }
    const b = { ...defaultBehaviour, ...patch };
    const [row] = await this.db.query<Row>(
      `insert into catchers (tenant_id, name, mode, status, delay_ms, created_at, updated_at) values ($1, $2, $3, $4, $5, $6, $6)
       on conflict (tenant_id, name) do update set
         mode = coalesce($7, catchers.mode), status = coalesce($8, catchers.status), delay_ms = coalesce($9, catchers.delay_ms), updated_at = $6
       returning *`,
      [tenantId, name, b.mode, b.status, b.delayMs, now, patch.mode ?? null, patch.status ?? null, patch.delayMs ?? null],
    );
    return { catcher: this.toCatcher(row), created: !owner };
  }

  async get(tenantId: string, name: string): Promise<Catcher> {
    const [row] = await this.db.query<Row>('select * from catchers where tenant_id = $1 and name = $2', [tenantId, name]);
    if (!row) throw notFound('catcher');
    return this.toCatcher(row);
  }

  /** A sandbox's catchers by name, `limit` from after `afterName`. */
  async list(tenantId: string, limit: number, afterName?: string): Promise<Catcher[]> {
    const rows = await this.db.query<Row>(
      'select * from catchers where tenant_id = $1 and ($3::text is null or name > $3) order by name limit $2', [tenantId, limit, afterName ?? null],
    );
    return rows.map((r) => this.toCatcher(r));
  }

  async remove(tenantId: string, name: string): Promise<void> {
    const rows = await this.db.query('delete from catchers where tenant_id = $1 and name = $2 returning name', [tenantId, name]);
    if (rows.length === 0) throw notFound('catcher');
    this.log.clear(name);
  }

  /** Who owns a name and how it answers (for /catch/<name>); undefined when nobody claimed it. */
  async lookup(name: string): Promise<(CatcherBehaviour & { tenantId: string }) | undefined> {
    const [row] = await this.db.query<Row>('select * from catchers where name = $1', [name]);
    return row && { tenantId: row.tenant_id, mode: row.mode, status: row.status, delayMs: row.delay_ms };
  }

  record(name: string, record: Omit<CatcherRecord, 'id'>): CatcherRecord {
    return this.log.add(name, record);
  }

  /** Forgets the request logs of a sandbox that was reset or deleted. */
  forgetTenant(tenantId: string): void {
    this.log.clearTenant(tenantId);
  }

  private toCatcher(r: Row): Catcher {
    return {
      name: r.name, url: `${this.baseUrl()}/catch/${r.name}`, mode: r.mode, status: r.status, delayMs: r.delay_ms,
      requestCount: this.log.count(r.name), createdAt: r.created_at.toISOString(), updatedAt: r.updated_at.toISOString(),
    };
  }
}
