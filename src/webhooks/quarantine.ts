import type { Db } from '../db/database.ts';
import { faultOf } from '../db/errors.ts';
import { clockInRangeSql, maxClockOffsetMs } from '../schedule/clock-range.ts';

/** What a quarantined delivery's lastError starts with (docs/decisions/quarantined-rows.md). */
const quarantinedPrefix = 'quarantined: ';

/**
 * True when err says something about the row being processed rather than about the database: not a
 * database fault (away, out of disk) and not a transaction that lost a race (SQLSTATE class 40: a
 * deadlock, a serialization failure), which are tried again. Anything else thrown while the engine
 * works on a row — an Invalid Date, an unknown scheme, malformed JSON — would be thrown again at every
 * try, so the row is quarantined instead.
 */
export function isRowFault(err: unknown): boolean {
  const code = String((err as { code?: unknown })?.code ?? '');
  return faultOf(err) === undefined && !code.startsWith('40');
}

/** The reason a quarantine records: the step that failed and the error's message (never a stack). */
export const faultReason = (step: string, err: unknown) =>
  `${step}: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500);

export interface QuarantineDeps {
  db: Db;
  /** A quarantined delivery's queued attempt is cancelled and the live stream hears of it. */
  dropped: (tenantId: string, id: string, error: string) => void;
  onError: (message: string) => void;
}

/**
 * The one path for rows the engine cannot process (DESIGN.md Habits: a bad row is quarantined, never
 * fatal): the delivery is dead-lettered with `quarantined: <reason>` as its last error, its lease given
 * back, and the error logged once (a delivery already dead is not quarantined again, so not logged again).
 * Timestamps are the database's: the sandbox's own clock may be what is wrong.
 */
export class Quarantine {
  constructor(private readonly deps: QuarantineDeps) {}

  /** Quarantines one delivery; true if it was not dead already. */
  async delivery(tenantId: string, id: string, reason: string): Promise<boolean> {
    const error = quarantinedPrefix + reason;
    const rows = await this.deps.db.query<{ id: string }>(
      `update deliveries set status = 'dead', next_attempt_at = null, last_error = $3, updated_at = now(),
              lease_owner = null, lease_until = null, lease_slot = null
        where tenant_id = $1 and id = $2 and status <> 'dead' returning id`,
      [tenantId, id, error],
    );
    if (rows.length === 0) return false;
    this.deps.onError(`delivery ${id} of sandbox ${tenantId} quarantined: ${reason}`);
    this.deps.dropped(tenantId, id, error);
    return true;
  }

  /**
   * Quarantines the pending deliveries of sandboxes whose clock is beyond what the engine can run
   * (src/schedule/clock-range.ts): the engine-wide polls leave such sandboxes out, so without this their
   * deliveries would wait for ever, unexplained. Free of leases only, like any claim.
   */
  async sweepClocks(): Promise<void> {
    const error = `${quarantinedPrefix}the sandbox's clock is more than ${maxClockOffsetMs / (365.25 * 86_400_000)} years from real time`;
    const rows = await this.deps.db.query<{ tenant_id: string; id: string }>(
      `update deliveries d set status = 'dead', next_attempt_at = null, last_error = $1, updated_at = now()
         from tenants t
        where t.id = d.tenant_id and not ${clockInRangeSql('t')} and d.status = 'pending'
          and (d.lease_until is null or d.lease_until < now())
        returning d.tenant_id, d.id`,
      [error],
    );
    const bySandbox = new Map<string, number>();
    for (const { tenant_id, id } of rows) {
      bySandbox.set(tenant_id, (bySandbox.get(tenant_id) ?? 0) + 1);
      this.deps.dropped(tenant_id, id, error);
    }
    for (const [tenantId, n] of bySandbox)
      this.deps.onError(
        `sandbox ${tenantId}: ${n} pending deliveries quarantined: ${error.slice(quarantinedPrefix.length)}`,
      );
  }
}
