import { ApiError } from '../../shared/problem.ts';
import { KeyedLimiter } from '../limiter.ts';

/** Outbound requests one sandbox may have in flight at once on one engine of a shared server. */
export const outboundPerSandbox = 20;
/** Receiver checks one sandbox may run at once on one engine of a shared server. */
export const checksPerSandbox = 10;

const noop = () => {};

/**
 * Each sandbox's share of a shared server's outbound capacity (SPEC §9): however many endpoints,
 * test webhooks, replays and checks a tenant sets going, at most `outboundPerSandbox` of its
 * requests are in flight on an engine (the rest wait their turn), and at most `checksPerSandbox`
 * checks run (the next is 429). On a laptop there are no shares: the one user has it all.
 */
export class TenantShares {
  private readonly outbound?: KeyedLimiter;
  private readonly checks = new Map<string, number>();

  constructor(private readonly shared: boolean) {
    if (shared) this.outbound = new KeyedLimiter(outboundPerSandbox);
  }

  /** Waits for one of the sandbox's outbound turns; call the release when the request is done. */
  async request(tenantId: string): Promise<() => void> {
    return this.outbound ? this.outbound.acquire(tenantId) : noop;
  }

  /** Takes one of the sandbox's check slots, or throws 429 too_many_checks; release when the run ends. */
  startCheck(tenantId: string): () => void {
    if (!this.shared) return noop;
    const running = this.checks.get(tenantId) ?? 0;
    if (running >= checksPerSandbox) {
      throw new ApiError(
        429,
        'too_many_checks',
        `This sandbox already runs ${checksPerSandbox} receiver checks at once on this server; wait for one to finish.`,
        {
          headers: { 'Retry-After': '5' },
        },
      );
    }
    this.checks.set(tenantId, running + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.checks.get(tenantId) ?? 1) - 1;
      if (left <= 0) this.checks.delete(tenantId);
      else this.checks.set(tenantId, left);
    };
  }
}
