import { randomBytes } from 'node:crypto';
import { newEd25519KeyPair, publicKeyText } from '../receiver/ed25519-keys.ts';
import { randomString } from '../shared/ids.ts';
import { defaultScheme, keyPrefixes, type SchemeName } from '../shared/schemes.ts';

/** What signs at one moment, newest first: whsec_ secrets (both HMAC schemes) and whsk_ ed25519 keys. */
export interface SigningKeys {
  secrets: readonly string[];
  signingKeys: readonly string[];
}

/**
 * One generation of an endpoint's keys: a whsec_ secret and an ed25519 key (null on generations older than the scheme).
 */
export interface KeyGeneration {
  secret: string;
  signingKey: string | null;
  createdAt: number;
  expiresAt: number | null;
}

const standard = (schemes: readonly SchemeName[]) => schemes.some((s) => s !== 'sandbay');

/**
 * A new whsec_ secret. Sandbay's own scheme keys its HMAC with the whole string, and its secrets stay
 * what they always were (32 base62 characters). Where a Standard Webhooks scheme is on, the rest is
 * base64 of 32 random bytes, as that specification asks (24 to 64 bytes, decoded to key the HMAC);
 * Sandbay's scheme signs with the same string. A base62 secret is valid base64 too (of 24 bytes),
 * so an endpoint switched to Standard Webhooks later keeps the secret its receivers hold.
 */
export const newWebhookSecret = (schemes: readonly SchemeName[] = [defaultScheme]) =>
  keyPrefixes.secret + (standard(schemes) ? randomBytes(32).toString('base64') : randomString(32));

/**
 * A generation's keys: the secret, and an ed25519 key every generation gets (cheap, and ready should the scheme be
 * turned on).
 */
export const newGeneration = (schemes: readonly SchemeName[]) => ({
  secret: newWebhookSecret(schemes),
  signingKey: newSigningKey(),
});

/** A new ed25519 private key (whsk_…). */
export const newSigningKey = () => newEd25519KeyPair().signingKey;

/** The whpk_ public key of a generation, for receivers; null without an ed25519 key. */
export const publicKeyOf = (signingKey: string | null) => (signingKey ? publicKeyText(signingKey) : null);

/** The generations still live at sandbox time `at` (not expired), in the order given. */
export const liveGenerations = <G extends KeyGeneration>(generations: readonly G[], at: number): G[] =>
  generations.filter((g) => g.expiresAt === null || g.expiresAt > at);

/** The keys that sign at sandbox time `at`, newest first. */
export function signingKeysAt(generations: readonly KeyGeneration[], at: number): SigningKeys {
  const live = liveGenerations(generations, at);
  return { secrets: live.map((g) => g.secret), signingKeys: live.flatMap((g) => (g.signingKey ? [g.signingKey] : [])) };
}

/**
 * The schemes of a request's `signature` (one name or a list, checked by its schema), without repeats, in the order
 * given.
 */
export const schemesOf = (value: SchemeName | readonly SchemeName[]): SchemeName[] => [
  ...new Set(typeof value === 'string' ? [value] : value),
];
