import { randomString } from '../../shared/ids.ts';

/** What a catcher saw and what it made of it. */
export interface CatcherRecord {
  id: string;
  tenantId: string;
  /** Real time the request arrived. */
  receivedAt: string;
  method: string;
  headers: Record<string, string>;
  /** The body as received (first 64 KiB). */
  body: string;
  bytes: number;
  verification: Verification;
  /** What the catcher answered; null when it let the request time out. */
  responseStatus: number | null;
  delayMs: number;
}

export interface Verification {
  verified: boolean;
  /** ok, or why not: the receiver toolkit's reasons plus unknown_delivery. */
  reason: 'ok' | 'no_header' | 'malformed_header' | 'no_matching_signature' | 'timestamp_outside_tolerance' | 'unknown_delivery';
  deliveryId: string | null;
  /** Which secret verified it: the endpoint's, or the sandbox's webhookTestSecret for a test webhook to a bare URL. */
  secretSource: 'endpoint' | 'test_secret' | null;
}

const keepPerCatcher = 50;

/** In-memory logs of the newest requests per catcher (like webhook.site's bins). */
export class RequestLog {
  private readonly byName = new Map<string, CatcherRecord[]>();

  add(name: string, record: Omit<CatcherRecord, 'id'>): CatcherRecord {
    const full = { id: `req_${randomString(16)}`, ...record };
    const list = this.byName.get(name) ?? [];
    list.unshift(full);
    if (list.length > keepPerCatcher) list.length = keepPerCatcher;
    this.byName.set(name, list);
    return full;
  }

  /** Newest first. */
  list(name: string): CatcherRecord[] {
    return this.byName.get(name) ?? [];
  }

  count(name: string): number {
    return this.byName.get(name)?.length ?? 0;
  }

  clear(name: string): void {
    this.byName.delete(name);
  }

  clearTenant(tenantId: string): void {
    for (const [name, list] of this.byName) if (list[0]?.tenantId === tenantId) this.byName.delete(name);
  }
}
