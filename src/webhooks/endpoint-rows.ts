import type { Queryable } from '../db/database.ts';
import type { Endpoint, EndpointDisabled } from '../shared/api-types.ts';
import { maskSecret } from '../shared/mask-secret.ts';
import type { SchemeName } from '../shared/schemes.ts';
import type { ChaosSettings } from './chaos.ts';
import { newGeneration, publicKeyOf } from './endpoint-keys.ts';

// An endpoint's row and its current key generation, as stored and as the API shows them.

export interface EndpointRow {
  id: string;
  url: string;
  topics: string[];
  description: string | null;
  enabled: boolean;
  allow_insecure_tls: boolean;
  created_at: Date;
  updated_at: Date;
  secret: string;
  signing_key: string | null;
  chaos: ChaosSettings | null;
  signature: SchemeName[];
  disabled_reason: EndpointDisabled['reason'] | null;
  disabled_at: Date | null;
  disabled_delivery_id: string | null;
}

// The current generation is the newest one without an expiry.
export const endpointSelect = `
  select e.*, s.secret, s.signing_key from webhook_endpoints e
    left join lateral (select s.secret, s.signing_key from webhook_secrets s where s.tenant_id = e.tenant_id and s.endpoint_id = e.id
                        and s.expires_at is null order by s.created_at desc limit 1) s on true`;

/**
 * Why an endpoint is off, as the API shows it (an endpoint disabled before reasons were kept counts as the user's
 * doing).
 */
function disabledOf(r: EndpointRow): EndpointDisabled | null {
  if (r.enabled) return null;
  const reason = r.disabled_reason ?? 'user';
  return {
    reason,
    at: (r.disabled_at ?? r.updated_at).toISOString(),
    deliveryId: r.disabled_delivery_id,
    message: {
      gone: `The receiver answered 410 Gone${r.disabled_delivery_id ? ` to delivery ${r.disabled_delivery_id}` : ''}, so the endpoint was disabled; its pending deliveries wait. Enable it to resume them.`,
      user: 'Disabled by a user; its pending deliveries wait until it is enabled.',
      imported: `Imported from a sandbox file: nothing is sent to ${r.url} until you enable it; its pending deliveries wait.`,
    }[reason],
  };
}

export const toEndpoint = (r: EndpointRow, reveal: boolean): Endpoint => ({
  id: r.id,
  url: r.url,
  topics: r.topics,
  description: r.description,
  enabled: r.enabled,
  allowInsecureTls: r.allow_insecure_tls,
  signature: r.signature,
  secret: reveal ? r.secret : maskSecret(r.secret),
  publicKey: r.signature.includes('standard-webhooks-ed25519') ? publicKeyOf(r.signing_key) : null,
  disabled: disabledOf(r),
  chaos: r.chaos,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

export const insertGeneration = (
  tx: Queryable,
  tenantId: string,
  id: string,
  schemes: readonly SchemeName[],
  now: Date,
  ownSecret?: string,
) => {
  const generation = newGeneration(schemes);
  const { signingKey } = generation;
  const secret = ownSecret ?? generation.secret;
  return tx.query(
    'insert into webhook_secrets (tenant_id, endpoint_id, secret, signing_key, created_at) values ($1, $2, $3, $4, $5)',
    [tenantId, id, secret, signingKey, now],
  );
};
