import type { SchemeName } from '../../shared/schemes.ts';

/**
 * How the battery speaks of signatures in the scheme a run signs with (SPEC §11): Sandbay's header,
 * t and deliveryId, or Standard Webhooks' webhook-signature, webhook-timestamp and webhook-id.
 */
export interface CheckWords {
  /** The request carries Standard Webhooks' headers (and no Sandbay ones). */
  standard: boolean;
  /** An HMAC scheme signs (the secret's mis-readings can be probed). */
  hmac: boolean;
  header: string;
  t: string;
  id: string;
  /** One signature of the header. */
  signature: string;
  /** What the receiver verifies with. */
  key: string;
  /** The fix for a check that lets a bad request through. */
  verify: string;
  /** What the malformed-signature case sends, in order. */
  malformed: [string, string];
}

export const sandbayWords: CheckWords = {
  standard: false,
  hmac: true,
  header: 'X-Service-Signature',
  t: 't',
  id: 'deliveryId',
  signature: 'v1',
  key: 'secret',
  verify:
    'Verify X-Service-Signature over the raw body bytes on every request (verifyWebhook from sandbay-receiver) and answer 400 when it fails.',
  malformed: ['garbage', 't=abc,v1='],
};

/**
 * The words of a run signed with these schemes: Sandbay's whenever its scheme is among them (its receivers read its
 * headers).
 */
export function wordsFor(schemes: readonly SchemeName[]): CheckWords {
  if (schemes.includes('sandbay')) return sandbayWords;
  const hmac = schemes.includes('standard-webhooks');
  return {
    standard: true,
    hmac,
    header: 'webhook-signature',
    t: 'webhook-timestamp',
    id: 'webhook-id',
    signature: 'signature',
    key: hmac ? 'secret' : 'public key',
    verify: `Verify webhook-signature over webhook-id, webhook-timestamp and the raw body bytes on every request (verifyWebhook from sandbay-receiver, or a Standard Webhooks library${hmac ? '' : ' that checks v1a'}) and answer 400 when it fails.`,
    malformed: ['garbage', hmac ? 'v1,' : 'v1a,'],
  };
}
