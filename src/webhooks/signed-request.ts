import type { Db } from '../db/database.ts';
import type { SandboxClock } from '../schedule/clock.ts';
import { ApiError, notFound } from '../shared/problem.ts';
import type { SchemeName } from '../shared/schemes.ts';
import { endpointSigning, sandbaySigning, signAttempt, type AttemptSigning } from './attempt-signing.ts';
import { publicKeyOf } from './endpoint-keys.ts';
import type { Endpoints } from './endpoints.ts';

/** A delivery's request as it would be sent now: the exact body and every header, signed afresh. */
export interface SignedRequest {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The real-clock second the signatures carry. */
  signedAt: number;
  signature: SchemeName[];
}

interface Row {
  endpoint_id: string | null;
  target_url: string | null;
  topic: string;
  body: string;
  wire_id: string | null;
  signing_endpoint_id: string | null;
  check_secret: string | null;
  check_url: string | null;
  check_signature: SchemeName[] | null;
  check_public_key: string | null;
}

/**
 * Signs a delivery again for "Copy as curl" (SPEC §11): with the schemes and keys that would sign it
 * now, so an ed25519 signature is made where the private key lives, in the engine, and every scheme
 * is signed by the very code that signs attempts.
 */
export class Resigner {
  constructor(
    private readonly db: Db,
    private readonly clock: SandboxClock,
    private readonly endpoints: Endpoints,
    private readonly testSecret: (tenantId: string) => Promise<string>,
  ) {}

  async request(tenantId: string, id: string): Promise<SignedRequest> {
    const [row] = await this.db.query<Row>(
      `select d.endpoint_id, d.target_url, d.topic, d.body, d.wire_id, d.signing_endpoint_id, c.secret as check_secret, c.url as check_url, c.signature as check_signature, c.public_key as check_public_key
         from deliveries d left join check_runs c on c.tenant_id = d.tenant_id and c.id = d.check_id
        where d.tenant_id = $1 and d.id = $2`,
      [tenantId, id],
    );
    if (!row) throw notFound('delivery');
    // A replay to another URL is signed as the endpoint it came from (migration 150), sent to its own URL.
    const signedAs = row.check_secret ? null : (row.endpoint_id ?? row.signing_endpoint_id);
    const target = signedAs ? await this.endpoints.target(tenantId, signedAs) : null;
    if (signedAs && !target)
      throw new ApiError(
        409,
        'endpoint_deleted',
        'The endpoint of this delivery was deleted: nothing signs for it any more.',
      );
    let url: string;
    let signing: AttemptSigning;
    if (target) {
      url = row.endpoint_id ? target.url : (row.target_url ?? '');
      signing = endpointSigning(target, this.clock.nowMs(tenantId));
    } else if (row.check_secret !== null) {
      // A receiver check's request: the run's schemes and secret (migration 091), and for ed25519 the
      // endpoint's key whose public half the run recorded, while the endpoint still holds it.
      url = row.check_url ?? row.target_url ?? '';
      const endpoint =
        row.endpoint_id && row.check_public_key ? await this.endpoints.target(tenantId, row.endpoint_id) : null;
      const signingKeys = (endpoint?.secrets ?? []).flatMap((g) =>
        g.signingKey && publicKeyOf(g.signingKey) === row.check_public_key ? [g.signingKey] : [],
      );
      signing = { schemes: row.check_signature ?? ['sandbay'], keys: { secrets: [row.check_secret], signingKeys } };
    } else {
      // A test sent to a bare URL: Sandbay's scheme, with the sandbox's webhookTestSecret.
      url = row.target_url ?? '';
      signing = sandbaySigning(await this.testSecret(tenantId));
    }
    const signedAt = Math.floor(this.clock.real() / 1000);
    const { headers } = signAttempt(signing, { id, wireId: row.wire_id, topic: row.topic, body: row.body }, signedAt);
    return { method: 'POST', url, headers, body: row.body, signedAt, signature: signing.schemes };
  }
}
