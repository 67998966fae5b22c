import { detached } from '../db/ambient.ts';
import type { Db } from '../db/database.ts';
import { isRowFault, type Quarantine } from './quarantine.ts';
import { soleHolderLeases, targetKey, type DeliveryLeases, type LeasedDelivery, type Target } from './leases.ts';

/** Sent (at COMMIT) when due work appears that no engine holds a lease on: every engine claims. */
export const dueChannel = 'sandbay_due';

export interface ClaimLoopDeps {
  db: Db;
  leases: DeliveryLeases;
  /** Swept at every poll: sandboxes whose clock the engine cannot run (the claims leave them out). */
  quarantine: Quarantine;
  /** Sandboxes an advance here is running: their due work is the advance's, not the loop's. */
  advancingTenants: () => string[];
  /** Starts the attempt a claim leased. */
  attempt: (leased: LeasedDelivery) => void;
  /** The safety-net poll: due work nobody was told of, and leases of crashed engines. */
  pollMs: number;
  onError: (message: string) => void;
}

/**
 * The real-time half of the dispatcher: claims due deliveries as far as their endpoints have room,
 * woken by NOTIFY sandbay_due, by the slow poll, and by its own attempts finishing on a target
 * whose due work did not all fit. One claim loop at a time; wake-ups meanwhile join its next turn.
 */
export class ClaimLoop {
  private claiming = false;
  /** Look for due work everywhere (a NOTIFY, the poll) at the next turn of the loop. */
  private scanAll = false;
  private readonly toClaim = new Map<string, Target>();
  /** Targets whose due work did not all fit in their slots: attempts finishing there claim again. */
  private readonly waiting = new Map<string, Target>();
  /**
   * Leases this engine holds per target whose request has not gone out yet (claimed ahead, waiting for a local turn).
   */
  private readonly unsent = new Map<string, number>();
  private poller?: NodeJS.Timeout;
  private stopListening?: () => Promise<void>;
  private stopMissed?: () => void;
  private closed = false;

  constructor(private readonly deps: ClaimLoopDeps) {}

  /** Listens on the due channel, starts the slow poll, and claims once now. */
  async start(): Promise<void> {
    this.stopListening = await this.deps.db.listen(dueChannel, () => this.kick());
    this.stopMissed = this.deps.db.onNotificationsMissed(() => this.kick());
    this.poller = detached(this.deps.db, () => setInterval(() => this.poll(), this.deps.pollMs));
    this.poller.unref();
    this.poll();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.poller);
    this.stopMissed?.();
    await this.stopListening?.().catch(() => {});
  }

  /** A leased attempt waits for a local turn on its target (its request has not gone out). */
  queued(target: Target): void {
    const key = targetKey(target);
    this.unsent.set(key, (this.unsent.get(key) ?? 0) + 1);
  }

  /** A queued attempt's request went out (or it gave up before sending). */
  sent(target: Target): void {
    const key = targetKey(target);
    const left = (this.unsent.get(key) ?? 0) - 1;
    if (left > 0) this.unsent.set(key, left);
    else this.unsent.delete(key);
  }

  /**
   * An attempt on the target was recorded: if due work waits there, claim again once what is claimed ahead runs low.
   */
  finished(target: Target): void {
    const key = targetKey(target);
    if (this.waiting.has(key) && (this.unsent.get(key) ?? 0) <= soleHolderLeases / 2) this.kick(target);
  }

  /** Claims due work of one target, or (without one) of every sandbox. */
  kick(target?: Target): void {
    if (this.closed) return;
    if (target) this.toClaim.set(targetKey(target), target);
    else this.scanAll = true;
    if (this.claiming) return;
    this.claiming = true;
    // Cannot reject: the turn catches and reports its own errors.
    void detached(this.deps.db, async () => {
      try {
        while ((this.scanAll || this.toClaim.size > 0) && !this.closed) await this.turn();
      } catch (err) {
        if (!this.closed) this.deps.onError(`claiming due deliveries failed: ${err}`);
      } finally {
        this.claiming = false;
      }
    });
  }

  private async turn(): Promise<void> {
    const targets = new Map(this.toClaim);
    this.toClaim.clear();
    const advancing = this.deps.advancingTenants();
    if (this.scanAll) {
      this.scanAll = false;
      for (const t of await this.deps.leases.dueTargets(advancing)) targets.set(targetKey(t), t);
    }
    for (const [key, t] of targets) {
      if (advancing.includes(t.tenantId)) continue; // the advance runs that sandbox's due work itself
      const { claimed, full } = await this.claimTarget(t);
      if (full) this.waiting.set(key, t);
      else this.waiting.delete(key);
      for (const leased of claimed) this.deps.attempt(leased);
    }
  }

  /** One target's claim; one that fails for its own rows is reported and the others are still claimed. */
  private async claimTarget(t: Target): Promise<{ claimed: LeasedDelivery[]; full: boolean }> {
    try {
      return await this.deps.leases.claimTarget(t);
    } catch (err) {
      if (!isRowFault(err)) throw err;
      this.deps.onError(`claiming due deliveries of sandbox ${t.tenantId} failed: ${(err as Error)?.message ?? err}`);
      return { claimed: [], full: false };
    }
  }

  private poll(): void {
    const report = (what: string) => (err: unknown) => {
      if (!this.closed) this.deps.onError(`${what} failed: ${err}`);
    };
    void Promise.all([
      this.deps.leases.releaseDeadOwners().catch(report('releasing leases of stopped engines')),
      this.deps.quarantine.sweepClocks().catch(report('quarantining deliveries of sandboxes with unusable clocks')),
    ]).finally(() => this.kick());
  }
}
