import { nodeFixes } from '../shared/fixes/node.ts';
import type { FindingCode } from '../shared/doctor-codes.ts';
import { diagnoseSync, secretMistakes, type Finding, type SyncSigners } from '../shared/receiver-doctor.ts';
import { ed25519Verifies } from './ed25519-keys.ts';
import { v1Signature } from './sign.ts';
import { standardV1Content } from './standard.ts';

/** The doctor's computations with node:crypto, for every scheme (SPEC §11). */
const nodeSigners: SyncSigners = { v1: v1Signature, standardV1: standardV1Content, ed25519: ed25519Verifies };

// Findings that describe the input rather than explain the failure.
const notACause = new Set<FindingCode>([
  'header_name_included',
  'signature_ok',
  'masked_secret',
  'no_matching_signature',
]);

// The doctor's words are the same in every language; the fix is said the Node way (this is the Node kit).
const nodeFix: Partial<Record<FindingCode, string>> = {
  reserialised_json: nodeFixes.rawBody,
  bom: nodeFixes.rawBody,
  crlf: nodeFixes.rawBody,
  surrounding_whitespace: nodeFixes.rawBody,
  wrong_encoding: nodeFixes.encoding,
  stripped_prefix: nodeFixes.key,
  stale_timestamp: "keep the receiver's clock in sync (NTP) and verify as the request arrives, not later from a queue",
  future_timestamp: "keep the receiver's clock in sync (NTP)",
};
const frameworks = Object.entries(nodeFixes.byFramework)
  .map(([name, f]) => (f.rawBody ? ` ${name}: ${f.rawBody}.` : ''))
  .join('');

export interface LikelyCause {
  code: FindingCode;
  text: string;
}

/**
 * The receiver doctor's likeliest cause of a failed verification, trying each secret the receiver holds (its words are
 * language-neutral).
 */
export function likelyFinding(
  payload: string | Uint8Array,
  header: string,
  secrets: readonly string[],
  now: number,
  toleranceSeconds: number,
  wanted: (code: FindingCode) => boolean,
): Finding | undefined {
  const body =
    typeof payload === 'string'
      ? payload
      : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8');
  for (const secret of secrets) {
    const found = diagnoseSync(
      { body, header, secret, now, toleranceSeconds: Number.isFinite(toleranceSeconds) ? toleranceSeconds : undefined },
      nodeSigners,
    ).findings.find((f) => !notACause.has(f.code) && wanted(f.code));
    if (found) return found;
  }
  return undefined;
}

/** That cause with the Node fix: verifyWebhook's hint (this is the Node kit). */
export function likelyCause(...args: Parameters<typeof likelyFinding>): LikelyCause | undefined {
  const found = likelyFinding(...args);
  if (!found) return undefined;
  const fix = nodeFix[found.code];
  const more = found.code === 'reserialised_json' ? frameworks : '';
  return { code: found.code, text: `${found.title}. ${found.detail}${fix ? ` In Node.js: ${fix}.${more}` : ''}` };
}

/**
 * The cause of a signature that matches nothing: the doctor's, or when no usual mistake with the body or the
 * key's form explains it (it tried them all), a key that is not the endpoint's. A hint is never left out.
 */
export function mismatchCause(publicKey: boolean, ...args: Parameters<typeof likelyFinding>): LikelyCause {
  const tried =
    'No usual mistake with the body (BOM, CRLF, whitespace, JSON serialised again, Latin-1) or with the key (a stripped whsec_, whitespace) explains the mismatch';
  return (
    likelyCause(...args) ?? {
      code: 'wrong_secret',
      text: publicKey
        ? `Wrong public key. ${tried}. Use the endpoint's current whpk_… public key.`
        : `${secretMistakes.wrong_secret.title}. ${tried}. ${secretMistakes.wrong_secret.detail}`,
    }
  );
}
