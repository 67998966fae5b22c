import type { Db } from '../db/database.ts';
import type { AttemptChaos } from '../shared/api-types.ts';

/** An endpoint's faults (off when null): what real senders do to a receiver, on purpose and reproducibly. */
export interface ChaosSettings {
  /** Probability (0–1) that a delivery answered 2xx is sent once more (same deliveryId, fresh signature). */
  duplicateRate: number;
  /** Each delivery's first attempt is held back a random 0…window ms, so deliveries within a window arrive shuffled. */
  reorderWindowMs: number;
  /** Added to every delivery's first attempt. */
  delayMs: number;
  /** The same seed gives the same faults to the same sequence of deliveries. */
  seed: number;
}

/** The faults drawn for one delivery: the n-th to its endpoint since the settings were made. */
export interface ChaosDraw {
  ordinal: number;
  duplicate: boolean;
  delayMs: number;
  reorderMs: number;
}

/** A seeded, counter-based uniform number in [0, 1): the same (seed, n, salt) always gives the same value. */
function unit(seed: number, n: number, salt: number): number {
  let h =
    Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^
    Math.imul(n + 0x632be5ab, 0xc2b2ae35) ^
    Math.imul(salt + 0x165667b1, 0x27d4eb2f);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

/** The faults of the n-th delivery (1-based) under these settings; pure and deterministic. */
export function drawChaos(settings: ChaosSettings, ordinal: number): ChaosDraw {
  return {
    ordinal,
    duplicate: unit(settings.seed, ordinal, 1) < settings.duplicateRate,
    delayMs: settings.delayMs,
    reorderMs: Math.floor(unit(settings.seed, ordinal, 2) * settings.reorderWindowMs),
  };
}

/** How an attempt carries its chaos in the delivery log. */
export const attemptChaos = (draw: ChaosDraw | null, duplicate: boolean): AttemptChaos | null => {
  if (duplicate) return { duplicate: true, heldMs: 0, delayMs: 0, reorderMs: 0 };
  if (!draw || draw.delayMs + draw.reorderMs === 0) return null;
  return { duplicate: false, heldMs: draw.delayMs + draw.reorderMs, delayMs: draw.delayMs, reorderMs: draw.reorderMs };
};

/**
 * Draws a delivery's faults once, before its first attempt, and stores them on the delivery
 * with the held-back due time: a restart or another engine sees the same hold and the same
 * duplicate decision. Deliveries are numbered by their order of creation since the endpoint's
 * chaos was set, so a seed reproduces the same faults for the same sequence of events.
 */
export class Chaos {
  constructor(private readonly db: Db) {}

  /** The delivery's draw, and until when (sandbox ms) it must wait if this is the moment it is drawn. */
  async plan(
    tenantId: string,
    deliveryId: string,
    endpoint: { id: string; chaos: ChaosSettings; sinceSeq: number },
    asOf: number,
  ): Promise<{ draw: ChaosDraw; holdUntil: number | null }> {
    const [row] = await this.db.query<{ chaos: ChaosDraw | null; ordinal: number }>(
      `select d.chaos, (select count(*)::int from deliveries o where o.tenant_id = d.tenant_id and o.endpoint_id = d.endpoint_id
                          and o.check_id is null and o.seq > $3 and o.seq <= d.seq) as ordinal
         from deliveries d where d.tenant_id = $1 and d.id = $2`,
      [tenantId, deliveryId, endpoint.sinceSeq],
    );
    if (!row)
      return {
        draw: drawChaos({ ...endpoint.chaos, duplicateRate: 0, reorderWindowMs: 0, delayMs: 0 }, 0),
        holdUntil: null,
      };
    if (row.chaos) return { draw: row.chaos, holdUntil: null };
    const draw = drawChaos(endpoint.chaos, row.ordinal);
    const held = draw.delayMs + draw.reorderMs;
    const holdUntil = held > 0 ? asOf + held : null;
    // Drawn once: a racing engine that loses the update uses the stored draw instead.
    const stored = await this.db.query(
      `update deliveries set chaos = $3, next_attempt_at = coalesce($4, next_attempt_at) where tenant_id = $1 and id = $2 and chaos is null returning 1`,
      [tenantId, deliveryId, JSON.stringify(draw), holdUntil === null ? null : new Date(holdUntil)],
    );
    if (stored.length === 0) return this.plan(tenantId, deliveryId, endpoint, asOf);
    return { draw, holdUntil };
  }
}
