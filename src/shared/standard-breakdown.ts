import { constantTimeEqual, utf8Length } from './hmac.ts';
import { parseStandardHeaders, standardSignedContent, type StandardVersion } from './schemes.ts';
import { timestampStanding, type TimestampStanding } from './signature-breakdown.ts';
import { defaultToleranceSeconds } from './signature.ts';
import { ed25519Verifies, standardV1Base64 } from './standard-crypto.ts';

/**
 * A Standard Webhooks signature taken apart (SPEC §11): the inspector's breakdown and the catcher-like checks of the
 * doctor.
 */
interface StandardBreakdown {
  id: string;
  timestamp: number;
  /** Exactly what was signed: `<webhook-id>.<webhook-timestamp>.<raw body>`. */
  signedString: string;
  bytes: { id: number; timestamp: number; separators: 2; body: number; total: number };
  /** Each signature of webhook-signature, and the key that reproduces (v1) or verifies (v1a) it. */
  signatures: {
    version: StandardVersion;
    value: string;
    matched: { kind: 'secret' | 'publicKey'; index: number } | null;
  }[];
  /** The base64 v1 each secret gives for the signed string (null: not a base64 secret). */
  expected: (string | null)[];
  ageSeconds: number;
  standing: TimestampStanding;
  toleranceSeconds: number;
}

export type StandardBreakdownResult =
  { ok: true; breakdown: StandardBreakdown } | { ok: false; reason: 'no_header' | 'malformed_header' };

/**
 * Splits the three Standard Webhooks headers and checks each signature with the given whsec_ secrets and whpk_ public
 * keys.
 */
export async function breakDownStandard(input: {
  headers: { id?: string; timestamp?: string; signature?: string };
  body: string;
  secrets: readonly string[];
  publicKeys: readonly string[];
  /** Unix seconds. */
  now: number;
  toleranceSeconds?: number;
}): Promise<StandardBreakdownResult> {
  if (!input.headers.signature?.trim()) return { ok: false, reason: 'no_header' };
  const parsed = parseStandardHeaders(input.headers);
  if (!parsed) return { ok: false, reason: 'malformed_header' };
  const signedString = standardSignedContent(parsed.id, parsed.timestamp, input.body);
  const expected = await Promise.all(input.secrets.map((s) => standardV1Base64(s, signedString)));
  const signatures = await Promise.all(
    parsed.signatures.map(async (s) => {
      if (s.version === 'v1') {
        const index = expected.findIndex((e) => e !== undefined && constantTimeEqual(e, s.value));
        return { ...s, matched: index < 0 ? null : { kind: 'secret' as const, index } };
      }
      for (const [index, key] of input.publicKeys.entries()) {
        if (await ed25519Verifies(key, s.value, signedString))
          return { ...s, matched: { kind: 'publicKey' as const, index } };
      }
      return { ...s, matched: null };
    }),
  );
  const toleranceSeconds = input.toleranceSeconds ?? defaultToleranceSeconds;
  const ageSeconds = input.now - parsed.timestamp;
  const bytes = {
    id: utf8Length(parsed.id),
    timestamp: String(parsed.timestamp).length,
    separators: 2 as const,
    body: utf8Length(input.body),
  };
  return {
    ok: true,
    breakdown: {
      id: parsed.id,
      timestamp: parsed.timestamp,
      signedString,
      bytes: { ...bytes, total: bytes.id + bytes.timestamp + 2 + bytes.body },
      signatures,
      expected: expected.map((e) => e ?? null),
      ageSeconds,
      standing: timestampStanding(ageSeconds, toleranceSeconds),
      toleranceSeconds,
    },
  };
}
