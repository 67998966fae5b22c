import { signRequest } from '../receiver/schemes.ts';
import { attemptHeaders, mainSignatureHeader } from '../shared/delivery-headers.ts';
import type { SchemeName } from '../shared/schemes.ts';
import type { Trigger } from './attempt-outcome.ts';
import type { ChaosSettings } from './chaos.ts';
import { storedEnvelope } from './envelope.ts';
import type { SigningKeys } from './endpoint-keys.ts';
import { Endpoints, type EndpointTarget } from './endpoints.ts';
import type { LeasedDelivery } from './leases.ts';
import type { Sender, SendOutcome } from './sender.ts';
import type { AttemptTracer } from './tracing/attempt-tracer.ts';

/** What an attempt is signed with: the endpoint's schemes and the keys live at the attempt's sandbox time. */
export interface AttemptSigning {
  schemes: SchemeName[];
  keys: SigningKeys;
}

/** An endpoint's signing at sandbox time `at`: its schemes and the keys live then (SPEC §11). */
export const endpointSigning = (target: EndpointTarget, at: number): AttemptSigning => ({
  schemes: target.signature,
  keys: Endpoints.signingKeys(target, at),
});

/**
 * Sandbay's scheme with one secret: a test sent to a bare URL (the sandbox's webhookTestSecret), or a receiver check's.
 */
export const sandbaySigning = (secret: string): AttemptSigning => ({
  schemes: ['sandbay'],
  keys: { secrets: [secret], signingKeys: [] },
});

export interface SignedAttempt {
  /** Every header of the request. */
  headers: Record<string, string>;
  /** Just the signing headers, as the attempt records them. */
  signatureHeaders: Record<string, string>;
  /**
   * The attempt's main signature header (X-Service-Signature, else webhook-signature), for the API's signatureHeader.
   */
  signatureHeader: string;
}

/**
 * Signs one attempt afresh (SPEC §5.2, §11): every scheme's headers at the real-clock second `timestamp`;
 * webhook-id is the delivery id, the same on every attempt and replay, so receivers can dedupe on it
 * (a resend that kept the original's id carries that one: `wireId`).
 */
export function signAttempt(
  signing: AttemptSigning,
  delivery: { id: string; wireId?: string | null; topic: string; body: string },
  timestamp: number,
): SignedAttempt {
  const id = delivery.wireId ?? delivery.id;
  // signRequest returns just the signing headers (X-Service-Signature, webhook-id/-timestamp/-signature).
  const signatureHeaders = signRequest(signing.schemes, {
    id,
    timestamp,
    payload: delivery.body,
    secrets: signing.keys.secrets,
    signingKeys: signing.keys.signingKeys,
  });
  return {
    // Sandbay's topic and delivery id headers go with its scheme; Standard Webhooks has webhook-id instead.
    headers: attemptHeaders(delivery.topic, id, { signature: signing.schemes, signatureHeaders }),
    signatureHeaders,
    signatureHeader: mainSignatureHeader(signatureHeaders),
  };
}

/** Where an attempt goes and how it is signed, or why it is not made (SPEC §5.1, §5.4, §11). */
export type AttemptTarget =
  | {
      url: string;
      signing: AttemptSigning;
      allowInsecureTls: boolean;
      chaos?: { id: string; chaos: ChaosSettings; sinceSeq: number };
    }
  | { skipped: 'endpoint_disabled' | 'endpoint_deleted' };

/**
 * An attempt's target at sandbox time `asOf`: the endpoint's URL, schemes and live keys, or a test's bare URL and
 * secret.
 */
export async function resolveTarget(
  deps: { endpoints: Endpoints; testSecret: (tenantId: string) => Promise<string> },
  state: { tenantId: string; endpointId: string | null; targetUrl: string | null; signingEndpointId?: string | null },
  asOf: number,
): Promise<AttemptTarget> {
  if (!state.endpointId && state.signingEndpointId) {
    // A replay to another URL: the endpoint's schemes and live keys, whether the endpoint is enabled or not (its
    // own URL is what being disabled stops), no chaos (that is the endpoint's receiver's weather).
    const endpoint = await deps.endpoints.target(state.tenantId, state.signingEndpointId);
    if (!endpoint) return { skipped: 'endpoint_deleted' };
    return { url: state.targetUrl!, signing: endpointSigning(endpoint, asOf), allowInsecureTls: false };
  }
  if (!state.endpointId) {
    // A test sent to a bare URL: Sandbay's scheme, with the sandbox's webhookTestSecret (SPEC §5.4).
    return {
      url: state.targetUrl!,
      signing: sandbaySigning(await deps.testSecret(state.tenantId)),
      allowInsecureTls: false,
    };
  }
  const endpoint = await deps.endpoints.target(state.tenantId, state.endpointId);
  if (!endpoint) return { skipped: 'endpoint_deleted' };
  // A disabled endpoint's deliveries stay pending in the database and are queued again on enable.
  if (!endpoint.enabled) return { skipped: 'endpoint_disabled' };
  const chaos = endpoint.chaos
    ? { id: state.endpointId, chaos: endpoint.chaos, sinceSeq: endpoint.chaosSinceSeq }
    : undefined;
  return {
    url: endpoint.url,
    signing: endpointSigning(endpoint, asOf),
    allowInsecureTls: endpoint.allowInsecureTls,
    chaos,
  };
}

/**
 * Signs a leased delivery afresh at the real clock's second and POSTs it with its `traceparent`; the attempt's span
 * ends with the answer. A stored body that is no envelope throws (the dispatcher quarantines its delivery).
 */
export async function sendSigned(
  deps: { sender: Sender; tracer: AttemptTracer; realNow: () => number },
  target: Exclude<AttemptTarget, { skipped: string }>,
  leased: LeasedDelivery,
  trigger: Trigger,
): Promise<{ signed: SignedAttempt; outcome: SendOutcome }> {
  const stored = storedEnvelope(leased.body);
  if ('invalid' in stored) throw new Error(stored.invalid);
  const signed = signAttempt(target.signing, leased, Math.floor(deps.realNow() / 1000));
  const span = deps.tracer.start({
    tenantId: leased.tenantId,
    deliveryId: leased.id,
    topic: leased.topic,
    number: leased.slot,
    trigger,
    url: target.url,
    resentFrom: leased.resentFrom ?? null,
  });
  const outcome = await deps.sender.send({
    url: target.url,
    body: leased.body,
    allowInsecureTls: target.allowInsecureTls,
    headers: { ...signed.headers, traceparent: span.traceparent },
  });
  span.end(outcome);
  return { signed, outcome };
}
