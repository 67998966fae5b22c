import { readFileSync } from 'node:fs';

export interface VectorCase { secret: string; t: number; body: string; signedString: string; v1: string; header: string }
export interface SignatureVectors {
  cases: VectorCase[];
  rotation: { secrets: string[]; t: number; body: string; header: string };
}

/**
 * SPEC's reference vectors (../shared/vectors/signature.json, computed outside the project and
 * accepted by Stripe's SDK), copied byte for byte into the repo so a fresh clone has them.
 */
export const signatureVectors: SignatureVectors = JSON.parse(
  readFileSync(new URL('../fixtures/signature-vectors.json', import.meta.url), 'utf8'),
);
