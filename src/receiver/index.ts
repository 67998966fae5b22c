/**
 * The receiver kit (SPEC §6, §11): verify a webhook's signature on the raw body in any of Sandbay's
 * schemes (its own, Standard Webhooks HMAC and ed25519), dedupe deliveries, and sign test requests. Published on its
 * own as `sandbay-receiver` (zero dependencies) and re-exported by the main package as `sandbay/receiver`. Nothing of
 * the server is imported here.
 */
export { verifyWebhook, WebhookVerificationError } from './verify.ts';
export type { StandardWebhookPayload, VerificationFailure, VerifyWebhookOptions, WebhookEnvelope } from './verify.ts';
export { createDeliveryDeduper } from './dedupe.ts';
export type { DeliveryDeduper, DeliveryDeduperOptions } from './dedupe.ts';
export { signTestHeader, signTestHeaders } from './testing.ts';
export { sandbayScheme, schemes } from './schemes.ts';
export { standardEd25519Scheme, standardScheme } from './standard.ts';
export type { HeaderSource, SignatureScheme, SignedRequest, SignInput } from './schemes.ts';
export { echoHeaderName, signatureHeaderName } from '../shared/signature.ts';
