import { signatureHeaderName } from './signature.ts';

/**
 * The headers of a delivery attempt (SPEC §5.2), besides what the HTTP client adds (host,
 * content-length, connection): what the dispatcher sends, and what HAR exports and fixtures
 * reconstruct from the recorded signature header.
 */
export function deliveryHeaders(topic: string, deliveryId: string, signatureHeader: string | null): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Sandbay-Webhooks/1.0',
    'x-service-topic': topic,
    'x-service-delivery-id': deliveryId,
    ...(signatureHeader ? { [signatureHeaderName.toLowerCase()]: signatureHeader } : {}),
  };
}
