import { standardHeaders } from './schemes.ts';
import { signatureHeaderName } from './signature.ts';

/**
 * The headers of a delivery attempt (SPEC §5.2), besides what the HTTP client adds (host,
 * content-length, connection): what the dispatcher sends, and what HAR exports and fixtures
 * reconstruct from the recorded signature header.
 */
export function deliveryHeaders(
  topic: string,
  deliveryId: string,
  signatureHeader: string | null,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Sandbay-Webhooks/1.0',
    'x-service-topic': topic,
    'x-service-delivery-id': deliveryId,
    ...(signatureHeader ? { [signatureHeaderName.toLowerCase()]: signatureHeader } : {}),
  };
}

/**
 * The headers an attempt went out with, from what it recorded (SPEC §11): Sandbay's topic and delivery
 * id headers when its scheme was among the attempt's, and every signing header it carried.
 */
export function attemptHeaders(
  topic: string,
  deliveryId: string,
  attempt: { signature: readonly string[]; signatureHeaders: Record<string, string> },
): Record<string, string> {
  const sandbay = deliveryHeaders(topic, deliveryId, null);
  const base = attempt.signature.includes('sandbay')
    ? sandbay
    : { 'content-type': sandbay['content-type'], 'user-agent': sandbay['user-agent'] };
  return { ...base, ...attempt.signatureHeaders };
}

/**
 * An attempt's main signature header among its signing headers: X-Service-Signature, else webhook-signature ('' with
 * neither).
 */
export function mainSignatureHeader(signatureHeaders: Record<string, string>): string {
  return signatureHeaders[signatureHeaderName.toLowerCase()] ?? signatureHeaders[standardHeaders.signature] ?? '';
}
