import { readFileSync } from 'node:fs';

interface VectorCase {
  secret: string;
  t: number;
  body: string;
  signedString: string;
  v1: string;
  header: string;
}
interface StandardCase {
  secret: string;
  id: string;
  timestamp: number;
  body: string;
  signedContent: string;
  signature: string;
}
interface Ed25519Case {
  signingKey: string;
  publicKey: string;
  id: string;
  timestamp: number;
  body: string;
  signedContent: string;
  signature: string;
}
export interface SignatureVectors {
  cases: VectorCase[];
  rotation: { secrets: string[]; t: number; body: string; header: string };
  /**
   * Standard Webhooks v1, computed by the official standardwebhooks library (scripts/vectors/standard-webhooks-v1.mjs).
   */
  standardWebhooks: {
    cases: StandardCase[];
    rotation: { secrets: string[]; id: string; timestamp: number; body: string; header: string };
  };
  /**
   * Standard Webhooks v1a, computed by Python's cryptography from RFC 8032 keys
   * (scripts/vectors/standard-webhooks-v1a.py).
   */
  standardWebhooksEd25519: {
    cases: Ed25519Case[];
    rotation: { publicKeys: string[]; id: string; timestamp: number; body: string; header: string };
  };
}

/**
 * SPEC's reference vectors (../shared/vectors/signature.json, computed outside the project and
 * accepted by Stripe's SDK), copied byte for byte into the repo so a fresh clone has them; beside
 * them the Standard Webhooks vectors, computed once outside the project too (see each `about`).
 */
export const signatureVectors: SignatureVectors = JSON.parse(
  readFileSync(new URL('../fixtures/signature-vectors.json', import.meta.url), 'utf8'),
);
