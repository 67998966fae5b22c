/**
 * The receiver toolkit (SPEC §6), published as `sandbay/receiver`: verify a webhook's
 * signature on the raw body and dedupe deliveries. No server code is imported here.
 */
export { verifyWebhook, WebhookVerificationError } from './verify.ts';
export type { VerificationFailure, VerifyWebhookOptions, WebhookEnvelope } from './verify.ts';
export { createDeliveryDeduper } from './dedupe.ts';
export type { DeliveryDeduper, DeliveryDeduperOptions } from './dedupe.ts';
export { signatureHeaderName } from '../shared/signature.ts';
