import type { Db } from '../../db/database.ts';
import type { SandboxClock } from '../../schedule/clock.ts';
import { publicKeyText } from '../../receiver/ed25519-keys.ts';
import { schemeById } from '../../receiver/schemes.ts';
import { defaultToleranceSeconds } from '../../shared/signature.ts';
import { standardHeaders, type SchemeName } from '../../shared/schemes.ts';
import { endpointSigning, sandbaySigning, type AttemptSigning } from '../attempt-signing.ts';
import type { SigningKeys } from '../endpoint-keys.ts';
import type { Endpoints } from '../endpoints.ts';
import type { Verification } from './request-log.ts';

export interface VerifyDeps {
  db: Db;
  clock: SandboxClock;
  endpoints: Endpoints;
}

/** The delivery a request says it is: X-Service-Delivery-Id, or webhook-id under Standard Webhooks (the same id). */
const deliveryIdOf = (headers: Record<string, string>) =>
  headers['x-service-delivery-id'] ?? headers[standardHeaders.id] ?? null;

/**
 * Checks one scheme's signature of a request the way a receiver would: its headers, a match with
 * one of the keys (whsec_ secrets; for ed25519, the public halves of the endpoint's keys), the time.
 */
function verifyScheme(
  name: SchemeName,
  headers: Record<string, string>,
  body: string,
  keys: SigningKeys,
  now: number,
): Verification['reason'] {
  const scheme = schemeById(name);
  const reading = scheme.read(headers);
  if (typeof reading === 'string') return reading;
  const verifyWith = name === 'standard-webhooks-ed25519' ? keys.signingKeys.map(publicKeyText) : keys.secrets;
  if (!scheme.matches(reading, body, verifyWith)) return 'no_matching_signature';
  return Math.abs(now - reading.timestamp) > defaultToleranceSeconds ? 'timestamp_outside_tolerance' : 'ok';
}

/**
 * Verifies what a catcher received with the keys Sandbay signed it with: the delivery's endpoint's
 * live keys under each of its schemes (all must verify, as every one was sent), or Sandbay's scheme
 * with the sandbox's webhookTestSecret for a test webhook sent to a bare URL. A request that is no
 * delivery of the catcher's sandbox cannot be verified.
 */
export async function verifyCaught(
  deps: VerifyDeps,
  tenantId: string,
  headers: Record<string, string>,
  body: string,
): Promise<Verification> {
  const deliveryId = deliveryIdOf(headers);
  const [delivery] = deliveryId
    ? await deps.db.query<{ endpoint_id: string | null; webhook_test_secret: string }>(
        `select d.endpoint_id, t.webhook_test_secret from deliveries d join tenants t on t.id = d.tenant_id
        where d.tenant_id = $1 and d.id = $2`,
        [tenantId, deliveryId],
      )
    : [];
  if (!delivery) return { verified: false, reason: 'unknown_delivery', deliveryId, secretSource: null, signature: [] };
  let signing: AttemptSigning;
  let secretSource: Verification['secretSource'];
  if (delivery.endpoint_id) {
    const target = await deps.endpoints.target(tenantId, delivery.endpoint_id);
    // A deleted endpoint: nothing verifies (Sandbay's scheme, no keys).
    signing = target
      ? endpointSigning(target, deps.clock.nowMs(tenantId))
      : { schemes: ['sandbay'], keys: { secrets: [], signingKeys: [] } };
    secretSource = 'endpoint';
  } else {
    signing = sandbaySigning(delivery.webhook_test_secret);
    secretSource = 'test_secret';
  }
  const now = Math.floor(deps.clock.real() / 1000);
  const failed = signing.schemes
    .map((name) => verifyScheme(name, headers, body, signing.keys, now))
    .find((reason) => reason !== 'ok');
  return { verified: !failed, reason: failed ?? 'ok', deliveryId, secretSource, signature: signing.schemes };
}

/** The sandbox an envelope names (Sandbay's has tenantId; Standard Webhooks' names none). */
function tenantNamedIn(body: string): string | undefined {
  try {
    const named = (JSON.parse(body) as { tenantId?: unknown } | null)?.tenantId;
    return typeof named === 'string' ? named : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The sandbox that sent a request, when it is a delivery of another sandbox of this install than the
 * catcher's: the one Sandbay's envelope names, when it has that delivery; for Standard Webhooks, whose
 * envelope names no sandbox, the one that has the delivery webhook-id names (each sandbox looked up by
 * its key, and only when the catcher's own sandbox does not have it).
 */
export async function senderIfAnotherSandbox(
  db: Db,
  tenantId: string,
  headers: Record<string, string>,
  body: string,
): Promise<string | undefined> {
  const deliveryId = deliveryIdOf(headers);
  if (!deliveryId) return undefined;
  const named = tenantNamedIn(body);
  if (named !== undefined) {
    if (named === tenantId) return undefined;
    const rows = await db.query('select 1 from deliveries where tenant_id = $1 and id = $2', [named, deliveryId]);
    return rows.length > 0 ? named : undefined;
  }
  const own = await db.query('select 1 from deliveries where tenant_id = $1 and id = $2', [tenantId, deliveryId]);
  if (own.length > 0) return undefined;
  const [other] = await db.query<{ tenant_id: string }>(
    `select d.tenant_id from tenants t join deliveries d on d.tenant_id = t.id and d.id = $2
      where t.id <> $1 limit 1`,
    [tenantId, deliveryId],
  );
  return other?.tenant_id;
}
