import { constantTimeEqual, hmacSha256Hex, utf8Length } from './hmac.ts';
import { defaultToleranceSeconds, parseSignatureHeader, signedPayload } from './signature.ts';

/** Where a signature timestamp stands against the verifier's tolerance window. */
export type TimestampStanding = 'within_tolerance' | 'stale' | 'future';

interface SignatureBreakdown {
  timestamp: number;
  /** Exactly what was signed: `<t>.<raw body>`. */
  signedString: string;
  bytes: { timestamp: number; separator: 1; body: number; total: number };
  /** Each v1 of the header, with the index of the secret that reproduces it (or null). */
  v1: { value: string; matchedSecret: number | null }[];
  /** The HMAC each secret gives for the signed string, in the order given. */
  expected: string[];
  /** now − t, in seconds (negative when the timestamp is in the future). */
  ageSeconds: number;
  standing: TimestampStanding;
  toleranceSeconds: number;
}

export type BreakdownResult =
  { ok: true; breakdown: SignatureBreakdown } | { ok: false; reason: 'no_header' | 'malformed_header' };

/** Places a timestamp's age against a ±tolerance window (SPEC §6 rejects both directions). */
export function timestampStanding(ageSeconds: number, toleranceSeconds = defaultToleranceSeconds): TimestampStanding {
  if (ageSeconds > toleranceSeconds) return 'stale';
  if (ageSeconds < -toleranceSeconds) return 'future';
  return 'within_tolerance';
}

/**
 * Splits a signature header and recomputes it from the raw body and the given secrets:
 * what the inspector's breakdown shows and the catcher's verification uses.
 */
export async function breakDownSignature(input: {
  header: string;
  body: string;
  secrets: readonly string[];
  /** Unix seconds. */
  now: number;
  toleranceSeconds?: number;
}): Promise<BreakdownResult> {
  if (!input.header.trim()) return { ok: false, reason: 'no_header' };
  const parsed = parseSignatureHeader(input.header);
  if (!parsed) return { ok: false, reason: 'malformed_header' };
  const signedString = signedPayload(parsed.timestamp, input.body);
  const expected = await Promise.all(input.secrets.map((secret) => hmacSha256Hex(secret, signedString)));
  const toleranceSeconds = input.toleranceSeconds ?? defaultToleranceSeconds;
  const ageSeconds = input.now - parsed.timestamp;
  const timestampBytes = String(parsed.timestamp).length;
  const bodyBytes = utf8Length(input.body);
  return {
    ok: true,
    breakdown: {
      timestamp: parsed.timestamp,
      signedString,
      bytes: { timestamp: timestampBytes, separator: 1, body: bodyBytes, total: timestampBytes + 1 + bodyBytes },
      v1: parsed.signatures.map((value) => {
        const index = expected.findIndex((e) => constantTimeEqual(e, value));
        return { value, matchedSecret: index < 0 ? null : index };
      }),
      expected,
      ageSeconds,
      standing: timestampStanding(ageSeconds, toleranceSeconds),
      toleranceSeconds,
    },
  };
}
