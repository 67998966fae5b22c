import type { Db } from '../../db/database.ts';
import type { SandboxClock } from '../../schedule/clock.ts';
import { breakDownSignature } from '../../shared/signature-breakdown.ts';
import { Endpoints } from '../endpoints.ts';
import type { Verification } from './request-log.ts';

export interface VerifyDeps {
  db: Db;
  clock: SandboxClock;
  endpoints: Endpoints;
}

/**
 * Verifies what a catcher received with the secret Sandbay signed it with: the delivery's
 * endpoint's live secrets, or the sandbox's webhookTestSecret for a test webhook sent to a
 * bare URL. A request that is no delivery of the catcher's sandbox cannot be verified.
 */
export async function verifyCaught(deps: VerifyDeps, tenantId: string, headers: Record<string, string>, body: string): Promise<Verification> {
  const deliveryId = headers['x-service-delivery-id'] ?? null;
  const unverified = (reason: Verification['reason'], secretSource: Verification['secretSource'] = null): Verification =>
    ({ verified: false, reason, deliveryId, secretSource });
  const [delivery] = deliveryId
    ? await deps.db.query<{ endpoint_id: string | null; webhook_test_secret: string }>(
      `select d.endpoint_id, t.webhook_test_secret from deliveries d join tenants t on t.id = d.tenant_id
        where d.tenant_id = $1 and d.id = $2`, [tenantId, deliveryId])
    : [];
  if (!delivery) return unverified('unknown_delivery');
  let secrets: string[];
  let secretSource: Verification['secretSource'];
  if (delivery.endpoint_id) {
    const target = await deps.endpoints.target(tenantId, delivery.endpoint_id);
    secrets = target ? Endpoints.signingSecrets(target, deps.clock.nowMs(tenantId)) : [];
    secretSource = 'endpoint';
  } else {
    secrets = [delivery.webhook_test_secret];
    secretSource = 'test_secret';
  }
  const result = await breakDownSignature({ header: headers['x-service-signature'] ?? '', body, secrets, now: Math.floor(deps.clock.real() / 1000) });
  if (!result.ok) return unverified(result.reason, secretSource);
  if (!result.breakdown.v1.some((v) => v.matchedSecret !== null)) return unverified('no_matching_signature', secretSource);
  if (result.breakdown.standing !== 'within_tolerance') return unverified('timestamp_outside_tolerance', secretSource);
  return { verified: true, reason: 'ok', deliveryId, secretSource };
}

/**
 * The sandbox that sent a request, when it is a delivery of another sandbox of this install
 * than the catcher's: the envelope names its tenant, and that tenant has the delivery.
 */
export async function senderIfAnotherSandbox(db: Db, tenantId: string, headers: Record<string, string>, body: string): Promise<string | undefined> {
  const deliveryId = headers['x-service-delivery-id'];
  if (!deliveryId) return undefined;
  let sender: unknown;
  try {
    sender = (JSON.parse(body) as { tenantId?: unknown } | null)?.tenantId;
  } catch {
    return undefined;
  }
  if (typeof sender !== 'string' || sender === tenantId) return undefined;
  const rows = await db.query('select 1 from deliveries where tenant_id = $1 and id = $2', [sender, deliveryId]);
  return rows.length > 0 ? sender : undefined;
}
