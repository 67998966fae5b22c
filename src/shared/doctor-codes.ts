/** The mistakes a receiver makes with the body bytes (shared/body-repairs.ts undoes each). */
export type BodyRepairCode = 'bom' | 'crlf' | 'surrounding_whitespace' | 'reserialised_json' | 'wrong_encoding';

/** Every finding the receiver doctor can report (shared/receiver-doctor.ts), and verifyWebhook's hintCode. */
export type FindingCode =
  | 'signature_ok'
  | 'no_header'
  | 'malformed_header'
  | 'header_name_included'
  | 'no_secret'
  | 'masked_secret'
  | 'secret_whitespace'
  | 'stripped_prefix'
  | 'wrong_secret'
  | 'stale_timestamp'
  | 'future_timestamp'
  | BodyRepairCode
  | 'body_differs'
  | 'no_matching_signature'
  /** Standard Webhooks: a whsec_ secret for a request signed only v1a, or a whpk_ key for one signed only v1. */
  | 'key_kind';
