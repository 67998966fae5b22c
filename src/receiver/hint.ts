import { nodeFixes } from '../shared/fixes/node.ts';
import type { FindingCode } from '../shared/doctor-codes.ts';
import { diagnoseSync } from '../shared/receiver-doctor.ts';
import { v1Signature } from './sign.ts';

// Findings that describe the input rather than explain the failure.
const notACause = new Set<FindingCode>(['header_name_included', 'signature_ok', 'masked_secret', 'no_matching_signature']);

// The doctor's words are the same in every language; the fix is said the Node way (this is the Node kit).
const nodeFix: Partial<Record<FindingCode, string>> = {
  reserialised_json: nodeFixes.rawBody, bom: nodeFixes.rawBody, crlf: nodeFixes.rawBody, surrounding_whitespace: nodeFixes.rawBody,
  wrong_encoding: nodeFixes.encoding, stripped_prefix: nodeFixes.key,
  stale_timestamp: "keep the receiver's clock in sync (NTP) and verify as the request arrives, not later from a queue",
  future_timestamp: "keep the receiver's clock in sync (NTP)",
};
const frameworks = Object.entries(nodeFixes.byFramework).map(([name, f]) => (f.rawBody ? ` ${name}: ${f.rawBody}.` : '')).join('');

export interface LikelyCause {
  code: FindingCode;
  text: string;
}

/** The receiver doctor's likeliest cause of a failed verification, with the Node fix; tries each secret the receiver holds. */
export function likelyCause(
  payload: string | Uint8Array, header: string, secrets: readonly string[], now: number, toleranceSeconds: number, wanted: (code: FindingCode) => boolean,
): LikelyCause | undefined {
  const body = typeof payload === 'string' ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8');
  for (const secret of secrets) {
    const found = diagnoseSync({ body, header, secret, now, toleranceSeconds: Number.isFinite(toleranceSeconds) ? toleranceSeconds : undefined }, v1Signature)
      .findings.find((f) => !notACause.has(f.code) && wanted(f.code));
    if (!found) continue;
    const fix = nodeFix[found.code];
    const more = found.code === 'reserialised_json' ? frameworks : '';
    return { code: found.code, text: `${found.title}. ${found.detail}${fix ? ` In Node.js: ${fix}.${more}` : ''}` };
  }
  return undefined;
}
