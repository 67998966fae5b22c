import { readFile } from 'node:fs/promises';
import { fixturesFormatVersion, type Fixture, type FixturesFile } from '../shared/fixtures.ts';
import { isSchemeName, isSigningKey, schemeNames, standardHmacKey, type SchemeName } from '../shared/schemes.ts';
import { signTestHeaders } from './testing.ts';

/**
 * Replaying recorded fixtures to a receiver (`sandbay replay`, `replayFixtures` of sandbay/testing), each
 * signed afresh through the same scheme objects the engine signs deliveries with. Not part of the
 * receiver kit's package (its index does not export it): it lives here because it signs as a receiver's
 * own tests do.
 */

/** How a replay signs (SPEC §5.2, §11): Sandbay's header, Standard Webhooks' HMAC, or its ed25519 with a whsk_ key. */
export type ReplayScheme = SchemeName;
export const replaySchemes: readonly ReplayScheme[] = schemeNames;

export interface ReplayOptions {
  /** The receiver to send the fixtures to. */
  url: string;
  /**
   * The receiver's own secret (or several, as during a rotation): each fixture is signed with it afresh.
   * whsec_ secrets sign Sandbay's scheme and Standard Webhooks' v1; a whsk_ ed25519 private key signs v1a.
   */
  secret: string | readonly string[];
  /**
   * One scheme or several at once. Default: standard-webhooks-ed25519 when every key is a whsk_ key (it signs nothing
   * else), else sandbay.
   */
  scheme?: ReplayScheme | readonly ReplayScheme[];
  /** Per request (default 10 s, as Sandbay's own attempts). */
  timeoutMs?: number;
  /** Unix seconds to sign with (default: now, each fixture as it is sent). */
  timestamp?: () => number;
}

/** What one replayed fixture got back. */
export interface ReplayResult {
  name: string;
  topic: string;
  deliveryId: string;
  /** The HTTP status, or null when no answer came (refused, timed out). */
  status: number | null;
  /** A 2xx answer. */
  ok: boolean;
  durationMs: number;
  /** The first 4 KiB of the answer's body. */
  body: string;
  error: string | null;
}

/** Reads and checks a fixtures file (`sandbay fixtures record`). */
export async function loadFixtures(file: string | FixturesFile): Promise<Fixture[]> {
  const doc = typeof file === 'string' ? (JSON.parse(await readFile(file, 'utf8')) as FixturesFile) : file;
  if (typeof doc?.sandbayFixtures !== 'number' || !Array.isArray(doc.fixtures)) {
    throw new Error(
      `${typeof file === 'string' ? file : 'that'} is not a Sandbay fixtures file (sandbay fixtures record writes one)`,
    );
  }
  if (doc.sandbayFixtures > fixturesFormatVersion)
    throw new Error(
      `fixtures format ${doc.sandbayFixtures} is newer than this Sandbay reads (${fixturesFormatVersion}): upgrade Sandbay`,
    );
  return doc.fixtures;
}

const keysOf = (secret: ReplayOptions['secret']) => (typeof secret === 'string' ? [secret] : [...secret]);

/**
 * The schemes a replay signs in, checked against the keys it was given: each scheme needs a key of its
 * kind (a whsec_ secret for the HMAC schemes, base64 after the prefix for Standard Webhooks'; a whsk_
 * key for ed25519). Throws an Error saying what is missing before anything is sent.
 */
function replaySchemesFor(scheme: ReplayOptions['scheme'], keys: readonly string[]): SchemeName[] {
  const secrets = keys.filter((k) => !isSigningKey(k));
  const asked =
    scheme === undefined
      ? [secrets.length === 0 && keys.length > 0 ? ('standard-webhooks-ed25519' as const) : ('sandbay' as const)]
      : typeof scheme === 'string'
        ? [scheme]
        : [...scheme];
  const unknown = asked.find((s) => !isSchemeName(s));
  if (unknown !== undefined || asked.length === 0)
    throw new Error(`the scheme is one of ${schemeNames.join(', ')} (or several), not ${unknown ?? 'none'}`);
  for (const name of asked) {
    if (name === 'standard-webhooks-ed25519') {
      if (!keys.some(isSigningKey))
        throw new Error(
          'standard-webhooks-ed25519 signs with an ed25519 private key: give a whsk_… key as the secret (the receiver verifies with its whpk_… public key)',
        );
    } else if (secrets.length === 0) {
      throw new Error(`${name} signs with a whsec_… secret: give the one the receiver verifies with`);
    } else if (name === 'standard-webhooks') {
      const bad = secrets.find((s) => !standardHmacKey(s)?.length);
      if (bad !== undefined)
        throw new Error(
          'a Standard Webhooks secret is whsec_ followed by base64 (its HMAC key is that base64, decoded)',
        );
    }
  }
  return asked;
}

const excerpt = (text: string) =>
  Buffer.byteLength(text) > 4096 ? Buffer.from(text).subarray(0, 4096).toString('utf8') : text;

/**
 * Sends one fixture, re-signed with a fresh timestamp in the schemes already checked (webhook-id is the
 * fixture's delivery id); a failed request never throws (it is in the result).
 */
async function sendOne(
  fixture: Fixture,
  schemes: readonly SchemeName[],
  keys: readonly string[],
  options: ReplayOptions,
): Promise<ReplayResult> {
  const timestamp = options.timestamp?.() ?? Math.floor(Date.now() / 1000);
  const signature = signTestHeaders({
    payload: fixture.body,
    secret: keys,
    scheme: schemes,
    id: fixture.deliveryId,
    timestamp,
  });
  const started = performance.now();
  const base = { name: fixture.name, topic: fixture.topic, deliveryId: fixture.deliveryId };
  try {
    const res = await fetch(options.url, {
      method: 'POST',
      body: fixture.body,
      headers: { ...fixture.headers, ...signature },
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    const body = excerpt(await res.text());
    return {
      ...base,
      status: res.status,
      ok: res.status >= 200 && res.status < 300,
      durationMs: Math.round(performance.now() - started),
      body,
      error: null,
    };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const error =
      e.name === 'TimeoutError'
        ? `no answer within ${options.timeoutMs ?? 10_000} ms`
        : (e.cause?.code ?? e.cause?.message ?? e.message);
    return { ...base, status: null, ok: false, durationMs: Math.round(performance.now() - started), body: '', error };
  }
}

/** Sends every fixture in order, one after another (the receiver sees them as Sandbay sent them). */
export async function replayFixtures(file: string | FixturesFile, options: ReplayOptions): Promise<ReplayResult[]> {
  const keys = keysOf(options.secret);
  const schemes = replaySchemesFor(options.scheme, keys); // refuse keys that cannot sign before sending anything
  const results: ReplayResult[] = [];
  for (const fixture of await loadFixtures(file)) results.push(await sendOne(fixture, schemes, keys, options));
  return results;
}
