/** A sandbox's attempts in flight on this engine; a reset or delete moves `epoch`, so they change nothing. */
export interface Flight {
  epoch: number;
  attempts: number;
}

/**
 * Sandboxes with attempts in flight here, each dropped with its last attempt (so the map holds only
 * sandboxes at work, never one per sandbox ever reset or deleted). A reset or delete bumps the epoch of
 * those in flight, so their outcomes change nothing (queued jobs it cancels outright).
 */
export class SandboxFlights {
  private readonly flights = new Map<string, Flight>();

  /** An attempt of the sandbox starts: it counts among those a reset makes stale. */
  board(tenantId: string): Flight {
    let flight = this.flights.get(tenantId);
    if (!flight) this.flights.set(tenantId, (flight = { epoch: 0, attempts: 0 }));
    flight.attempts++;
    return flight;
  }

  /** It ended: the sandbox's entry goes with its last attempt. */
  alight(tenantId: string, flight: Flight): void {
    if (--flight.attempts === 0 && this.flights.get(tenantId) === flight) this.flights.delete(tenantId);
  }

  /** The sandbox was reset or deleted: what is in flight now is stale. */
  bump(tenantId: string): void {
    const flight = this.flights.get(tenantId);
    if (flight) flight.epoch++;
  }

  /** How many sandboxes have attempts in flight on this engine. */
  get size(): number {
    return this.flights.size;
  }
}
