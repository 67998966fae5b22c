import {
  targetKey,
  type ClaimCondition,
  type ClaimRefusal,
  type DeliveryLeases,
  type LeasedDelivery,
  type Target,
} from './leases.ts';

/** A claim refused because the endpoint's ten slots are taken (on any engine) tries again this often. */
const fullRetryMs = 20;

interface ClaimAsk {
  id: string;
  when: ClaimCondition;
  resolve: (result: LeasedDelivery | ClaimRefusal) => void;
  reject: (err: unknown) => void;
}

/**
 * Claims asked for in the same turn of the event loop (an advance's batch) go to the database
 * together: one `claimMany` statement per target instead of one per delivery.
 */
export class ClaimBatcher {
  private readonly batches = new Map<string, { target: Target; asks: ClaimAsk[] }>();

  constructor(private readonly leases: DeliveryLeases) {}

  /**
   * Claims one delivery's lease with this turn's batch; a claim refused for want of a free slot (taken on another
   * engine) is asked again shortly, until `closed()`. Undefined: not claimable (or closing).
   */
  async claim(
    target: Target,
    id: string,
    when: ClaimCondition,
    closed: () => boolean,
  ): Promise<LeasedDelivery | undefined> {
    for (;;) {
      const result = await this.ask(target, id, when);
      if (result === 'unavailable') return undefined;
      if (result !== 'full') return result;
      await new Promise((r) => setTimeout(r, fullRetryMs));
      if (closed()) return undefined;
    }
  }

  /** The delivery's lease for its next slot, or why not; resolved when this turn's batch is claimed. */
  private ask(target: Target, id: string, when: ClaimCondition): Promise<LeasedDelivery | ClaimRefusal> {
    const key = targetKey(target);
    return new Promise((resolve, reject) => {
      let batch = this.batches.get(key);
      if (!batch) {
        const created = { target, asks: [] as ClaimAsk[] };
        this.batches.set(key, (batch = created));
        setImmediate(() => {
          this.batches.delete(key);
          this.leases.claimMany(created.target, created.asks).then(
            (results) => {
              for (const ask of created.asks) ask.resolve(results.get(ask.id) ?? 'unavailable');
            },
            (err) => {
              for (const ask of created.asks) ask.reject(err);
            },
          );
        });
      }
      batch.asks.push({ id, when, resolve, reject });
    });
  }
}
