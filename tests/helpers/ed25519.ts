import { createPrivateKey, createPublicKey, verify } from 'node:crypto';
import { signatureVectors } from './vectors.ts';

// Node's own crypto, from the key texts: no Sandbay code between a test and what it checks.

/** Whether one of a delivery's v1a signatures verifies with the whpk_ public key. */
export function ed25519Accepts(publicKey: string, headers: Record<string, string>, body: string): boolean {
  const key = createPublicKey({
    key: {
      kty: 'OKP',
      crv: 'Ed25519',
      x: Buffer.from(publicKey.slice('whpk_'.length), 'base64').toString('base64url'),
    },
    format: 'jwk',
  });
  const signed = Buffer.from(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`, 'utf8');
  return headers['webhook-signature']
    .split(' ')
    .filter((s) => s.startsWith('v1a,'))
    .some((s) => verify(null, signed, key, Buffer.from(s.slice(4), 'base64')));
}

const { signingKey, publicKey } = signatureVectors.standardWebhooksEd25519.cases[0];

/** The Standard Webhooks ed25519 vector's key pair as texts, and its signing key as a KeyObject (PKCS #8). */
export const vectorKeyPair = {
  signingKey,
  publicKey,
  privateKey: createPrivateKey({
    key: Buffer.concat([
      Buffer.from('302e020100300506032b657004220420', 'hex'),
      Buffer.from(signingKey.slice(5), 'base64'),
    ]),
    format: 'der',
    type: 'pkcs8',
  }),
};
