export interface DeliveryDeduperOptions {
  /** How long a processed deliveryId is remembered (default 3 days: retries span 1 h 12 min, replays come later). */
  ttlSeconds?: number;
  /** At most this many ids are kept; the oldest are forgotten first (default 10,000). */
  maxEntries?: number;
  /** Unix seconds (default: the real clock); tests pass their own. */
  now?: () => number;
}

/** Remembers processed deliveryIds so a receiver handles each delivery once. */
export interface DeliveryDeduper {
  /** True when this deliveryId was marked within the TTL. */
  seen(deliveryId: string): boolean;
  /** Records a deliveryId as processed; call it once your handler has succeeded. */
  mark(deliveryId: string): void;
  /** How many ids are remembered now. */
  readonly size: number;
}

/**
 * An in-memory, bounded dedupe set keyed by deliveryId. Delivery is at least once (a retry
 * after a timeout, a replay from the DLQ), so the same deliveryId can arrive again; a
 * receiver with several processes should keep the ids in its database instead.
 */
export function createDeliveryDeduper(options: DeliveryDeduperOptions = {}): DeliveryDeduper {
  const { ttlSeconds = 3 * 86_400, maxEntries = 10_000, now = () => Date.now() / 1000 } = options;
  if (!(ttlSeconds > 0)) throw new TypeError('createDeliveryDeduper: ttlSeconds must be > 0');
  if (!Number.isInteger(maxEntries) || maxEntries < 1)
    throw new TypeError('createDeliveryDeduper: maxEntries must be an integer ≥ 1');
  // A Map iterates in insertion order, and mark() re-inserts, so the first entry is the oldest.
  const markedAt = new Map<string, number>();
  const expire = (at: number) => {
    for (const [id, time] of markedAt) {
      if (at - time < ttlSeconds) break;
      markedAt.delete(id);
    }
  };
  return {
    seen(deliveryId) {
      expire(now());
      return markedAt.has(deliveryId);
    },
    mark(deliveryId) {
      const at = now();
      expire(at);
      markedAt.delete(deliveryId);
      markedAt.set(deliveryId, at);
      if (markedAt.size > maxEntries) markedAt.delete(markedAt.keys().next().value!);
    },
    get size() {
      expire(now());
      return markedAt.size;
    },
  };
}
