import {
  targetKey,
  type ClaimCondition,
  type ClaimRefusal,
  type DeliveryLeases,
  type LeasedDelivery,
  type Target,
} from './leases.ts';

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

  /** The delivery's lease for its next slot, or why not; resolved when this turn's batch is claimed. */
  ask(target: Target, id: string, when: ClaimCondition): Promise<LeasedDelivery | ClaimRefusal> {
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
