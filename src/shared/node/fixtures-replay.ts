import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fixturesFormatVersion, type Fixture, type FixturesFile } from '../fixtures.ts';
import { formatSignatureHeader, signedPayload } from '../signature.ts';

/** How a replay signs: Sandbay's own header (SPEC §5.2), or Standard Webhooks' HMAC (SPEC §11). */
export type ReplayScheme = 'sandbay' | 'standard-webhooks';
export const replaySchemes: readonly ReplayScheme[] = ['sandbay', 'standard-webhooks'];

export interface ReplayOptions {
  /** The receiver to send the fixtures to. */
  url: string;
  /** The receiver's own secret (or several, as during a rotation): each fixture is signed with it afresh. */
  secret: string | readonly string[];
  /** Default `sandbay`. */
  scheme?: ReplayScheme;
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
    throw new Error(`${typeof file === 'string' ? file : 'that'} is not a Sandbay fixtures file (sandbay fixtures record writes one)`);
  }
  if (doc.sandbayFixtures > fixturesFormatVersion) throw new Error(`fixtures format ${doc.sandbayFixtures} is newer than this Sandbay reads (${fixturesFormatVersion}): upgrade Sandbay`);
  return doc.fixtures;
}

/** The signature headers of one request, in the scheme asked for. */
export function replaySignature(scheme: ReplayScheme, secrets: readonly string[], fixture: Fixture, timestamp: number): Record<string, string> {
  if (scheme === 'standard-webhooks') {
    const signatures = secrets.map((s) => {
      const key = Buffer.from(s.replace(/^whsec_/, ''), 'base64');
      return `v1,${createHmac('sha256', key).update(`${fixture.deliveryId}.${timestamp}.`).update(fixture.body).digest('base64')}`;
    });
    return { 'webhook-id': fixture.deliveryId, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatures.join(' ') };
  }
  const v1 = secrets.map((s) => createHmac('sha256', s).update(signedPayload(timestamp, '')).update(fixture.body).digest('hex'));
  return { 'x-service-signature': formatSignatureHeader(timestamp, v1) };
}

const excerpt = (text: string) => (Buffer.byteLength(text) > 4096 ? Buffer.from(text).subarray(0, 4096).toString('utf8') : text);

/** Sends one fixture, re-signed with a fresh timestamp; never throws (a failure is in the result). */
export async function replayOne(fixture: Fixture, options: ReplayOptions): Promise<ReplayResult> {
  const secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
  const timestamp = options.timestamp?.() ?? Math.floor(Date.now() / 1000);
  const signature = replaySignature(options.scheme ?? 'sandbay', secrets, fixture, timestamp);
  const started = performance.now();
  const base = { name: fixture.name, topic: fixture.topic, deliveryId: fixture.deliveryId };
  try {
    const res = await fetch(options.url, {
      method: 'POST', body: fixture.body, headers: { ...fixture.headers, ...signature }, redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    const body = excerpt(await res.text());
    return { ...base, status: res.status, ok: res.status >= 200 && res.status < 300, durationMs: Math.round(performance.now() - started), body, error: null };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const error = e.name === 'TimeoutError' ? `no answer within ${options.timeoutMs ?? 10_000} ms` : (e.cause?.code ?? e.cause?.message ?? e.message);
    return { ...base, status: null, ok: false, durationMs: Math.round(performance.now() - started), body: '', error };
  }
}

/** Sends every fixture in order, one after another (the receiver sees them as Sandbay sent them). */
export async function replayFixtures(file: string | FixturesFile, options: ReplayOptions): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  for (const fixture of await loadFixtures(file)) results.push(await replayOne(fixture, options));
  return results;
}
