import { bodyRepairs, type BodyRepair } from './body-repairs.ts';
import type { FindingCode } from './doctor-codes.ts';
import { readHeader, verifiesWith, type CryptoQuestion, type ReadHeader } from './doctor-input.ts';
import { isPublicKey } from './schemes.ts';
import { constantTimeEqual, hmacSha256Hex } from './hmac.ts';
import { timestampStanding } from './signature-breakdown.ts';
import { defaultToleranceSeconds, signatureHeaderName } from './signature.ts';
import { ed25519Verifies, standardV1Base64 } from './standard-crypto.ts';
import { firstDifference, type TextDifference } from './text-diff.ts';
import { identifyJsonForm, sameJson, type JsonForm } from './json-forms.ts';

/**
 * The receiver doctor: given the body, header and secret a receiver saw, it says exactly
 * why verification fails — by finding which known mistake (re-serialised JSON and by which
 * language's serialiser, CRLF, a BOM, trimmed whitespace, a wrong, masked or prefix-stripped
 * secret, a stale or future timestamp) explains it. Its words are the same in every language;
 * receiver-fixes.ts says the fix in the receiver's own. One line of reasoning, two drivers: WebCrypto in the browser
 * (`diagnose`) and any synchronous HMAC in Node (`diagnoseSync`: verifyWebhook's hint, `sandbay verify`).
 */

export interface Finding {
  code: FindingCode;
  severity: 'ok' | 'warning' | 'error';
  title: string;
  detail: string;
  /** Where the pasted body departs from the bytes Sandbay sent (or from the repaired body). */
  difference?: TextDifference;
  /** For re-serialised JSON: the serialiser whose bytes these are (its language's fix applies). */
  form?: JsonForm;
}

export interface DoctorInput {
  /** The raw body as the receiver saw it. */
  body: string;
  /**
   * The X-Service-Signature header as the receiver saw it; or, for Standard Webhooks, its three
   * headers as "name: value" lines (webhook-id, webhook-timestamp, webhook-signature).
   */
  header: string;
  /** The secret the receiver verifies with (whsec_…), or for v1a the public key (whpk_…). */
  secret: string;
  /** Unix seconds. */
  now: number;
  toleranceSeconds?: number;
  /**
   * What Sandbay knows, when the doctor is opened on a delivery: the bytes sent and the live secrets (and public keys).
   */
  reference?: { rawBody: string; secrets: readonly string[] };
}

export interface Diagnosis {
  verified: boolean;
  findings: Finding[];
}

/** The v1 of a body: lowercase hex HMAC-SHA256 of "<t>.<body>" keyed by the UTF-8 bytes of `secret`. */
type V1Signer = (secret: string, timestamp: number, body: string) => string;

/** A synchronous driver: Sandbay's signer alone, or one for each scheme (node:crypto; see src/receiver/hint.ts). */
export type SyncSigners =
  | V1Signer
  | {
      v1: V1Signer;
      standardV1(secret: string, message: string): string | undefined;
      ed25519(publicKey: string, signature: string, message: string): boolean;
    };

const secretPrefix = 'whsec_';

/** The doctor's words for the secret mistakes, shared with the receiver check's causes. */
export const secretMistakes = {
  stripped_prefix: {
    title: 'The secret lost its whsec_ prefix',
    // What was seen, not what to do: every caller adds the fix (fixFor('key')) after it.
    detail: `With ${secretPrefix} put back in front of the secret given, the signature matches: the receiver computes its HMAC with the secret minus its prefix.`,
  },
  secret_whitespace: {
    title: 'The secret has surrounding whitespace',
    detail:
      'With the whitespace trimmed the signature matches. Trim the secret where you load it (a trailing newline in an env file is the usual cause).',
  },
  wrong_secret: {
    title: 'Wrong secret',
    detail:
      "Use the endpoint's current secret, the whole whsec_… string (after a rotation, both secrets sign for 24 h).",
  },
} as const;

const finding = (
  code: FindingCode,
  severity: Finding['severity'],
  title: string,
  detail: string,
  difference?: TextDifference,
): Finding => ({ code, severity, title, detail, ...(difference ? { difference } : {}) });

/** Re-serialised JSON, with the serialiser named when the bytes are exactly one known form's. */
function reserialisedFinding(repair: BodyRepair, original: string, verified: string): Finding {
  const form = identifyJsonForm(verified, original);
  const by = form ? ` These bytes are what ${form.label} writes (${form.features}).` : '';
  return {
    ...finding(repair.code, 'error', repair.title, `${repair.detail}${by}`, firstDifference(original, verified)),
    ...(form ? { form } : {}),
  };
}

const mask = (secret: string) => (secret.length > 10 ? `${secret.slice(0, 6)}…${secret.slice(-4)}` : '…');

// The reasoning yields the computations it needs (doctor-input.ts) and is sent back each answer.
type Examination = Generator<CryptoQuestion, Diagnosis, unknown>;

/** Diagnoses a failed (or successful) verification with WebCrypto; see the module comment. */
export async function diagnose(input: DoctorInput): Promise<Diagnosis> {
  const steps = examine(input);
  for (let step = steps.next(); ;) {
    if (step.done) return step.value;
    const q = step.value;
    step = steps.next(
      q.op === 'hmacHex'
        ? await hmacSha256Hex(q.secret, q.message)
        : q.op === 'standardV1'
          ? await standardV1Base64(q.secret, q.message)
          : await ed25519Verifies(q.publicKey, q.signature, q.message),
    );
  }
}

/** The same diagnosis with synchronous signers (node:crypto), for code that cannot await. */
export function diagnoseSync(input: DoctorInput, signers: SyncSigners): Diagnosis {
  const s =
    typeof signers === 'function' ? { v1: signers, standardV1: () => undefined, ed25519: () => false } : signers;
  const steps = examine(input);
  for (let step = steps.next(); ;) {
    if (step.done) return step.value;
    const q = step.value;
    // Sandbay's signer takes t and body apart: the message is "<t>.<body>".
    const dot = q.op === 'hmacHex' ? q.message.indexOf('.') : -1;
    step = steps.next(
      q.op === 'hmacHex'
        ? s.v1(q.secret, Number(q.message.slice(0, dot)), q.message.slice(dot + 1))
        : q.op === 'standardV1'
          ? s.standardV1(q.secret, q.message)
          : s.ed25519(q.publicKey, q.signature, q.message),
    );
  }
}

const standardNames = 'webhook-id, webhook-timestamp and webhook-signature';

/** The findings about the header itself, or the diagnosis when it cannot be used at all. */
function headerFindings(read: ReadHeader, findings: Finding[]): Diagnosis | undefined {
  if (read.scheme === 'sandbay' && 'nameIncluded' in read && read.nameIncluded) {
    findings.push(
      finding(
        'header_name_included',
        'warning',
        'The header name was pasted too',
        `Only the value after "${signatureHeaderName}:" is signed data; the doctor ignored the name. Make sure your code reads the value, not the whole line.`,
      ),
    );
  }
  if (!('error' in read)) return undefined;
  const standard = read.scheme === 'standard-webhooks';
  if (read.error === 'no_header') {
    return {
      verified: false,
      findings: [
        ...findings,
        finding(
          'no_header',
          'error',
          'No signature header',
          standard
            ? `Paste the ${standardNames} headers your receiver got, one "name: value" per line: webhook-signature is missing.`
            : `Paste the ${signatureHeaderName} header your receiver got. A missing header usually means a proxy dropped it or the code reads the wrong header name (they are case-insensitive).`,
        ),
      ],
    };
  }
  return {
    verified: false,
    findings: [
      ...findings,
      finding(
        'malformed_header',
        'error',
        'The header cannot be parsed',
        standard
          ? `Standard Webhooks needs all three: webhook-id (no "."), webhook-timestamp (unix seconds) and webhook-signature ("v1,<base64>" or "v1a,<base64>", space-separated). Check that nothing truncated them.`
          : 'It must look like t=<unix seconds>,v1=<64 hex digits>[,v1=…]. Check that nothing truncated it or joined it with another header.',
      ),
    ],
  };
}

/** A Standard Webhooks header with no signature of the kind the key checks: the key is the wrong kind. */
function keyKindFinding(read: Exclude<ReadHeader, { error: string }>, key: string): Finding | undefined {
  if (read.scheme !== 'standard-webhooks') return undefined;
  const wanted = isPublicKey(key) ? 'v1a' : 'v1';
  if (read.parsed.signatures.some((s) => s.version === wanted)) return undefined;
  return isPublicKey(key)
    ? finding(
        'key_kind',
        'error',
        'A public key, but no v1a signature',
        "This request carries only v1 (HMAC) signatures: verify them with the endpoint's whsec_… secret, or turn standard-webhooks-ed25519 on for the endpoint.",
      )
    : finding(
        'key_kind',
        'error',
        'A secret, but no v1 signature',
        "This request carries only v1a (ed25519) signatures: verify them with the endpoint's whpk_… public key (its secret cannot check them).",
      );
}

function* examine(input: DoctorInput): Examination {
  const findings: Finding[] = [];
  const read = readHeader(input.header);
  const unusable = headerFindings(read, findings);
  if (unusable || 'error' in read) return unusable!;
  const standard = read.scheme === 'standard-webhooks';
  const parsed = read.parsed;
  if (!input.secret)
    return {
      verified: false,
      findings: [
        ...findings,
        finding(
          'no_secret',
          'error',
          'No secret',
          `Paste the secret your receiver verifies with (whsec_…${standard ? ', or the whpk_… public key for v1a' : ''}).`,
        ),
      ],
    };
  const kind = keyKindFinding(read, input.secret.trim());
  if (kind) return { verified: false, findings: [...findings, kind] };

  const tolerance = input.toleranceSeconds ?? defaultToleranceSeconds;
  const age = input.now - parsed.timestamp;
  const standing = timestampStanding(age, tolerance);
  const t = standard ? `webhook-timestamp ${parsed.timestamp}` : `t=${parsed.timestamp}`;
  if (standing === 'stale') {
    findings.push(
      finding(
        'stale_timestamp',
        'error',
        'The timestamp is too old',
        `${t} is ${Math.round(age)} s old, outside the ${tolerance} s tolerance, so a verifier rejects it even when the HMAC matches. Replay the delivery (or copy it as curl) to get a fresh signature; if this is a live request, check the receiver's clock.`,
      ),
    );
  } else if (standing === 'future') {
    findings.push(
      finding(
        'future_timestamp',
        'error',
        'The timestamp is in the future',
        `${t} is ${Math.round(-age)} s ahead of now, beyond the ${tolerance} s tolerance. The receiver's clock (or this machine's) is wrong; sync it with NTP.`,
      ),
    );
  }
  const done = (extra: Finding[]) => ({ verified: false, findings: [...findings, ...extra] });

  const matches = (key: string, body: string) => verifiesWith(read, key, body, constantTimeEqual);
  if (yield* matches(input.secret, input.body)) {
    if (standing !== 'within_tolerance')
      return done([
        finding('signature_ok', 'ok', 'The HMAC matches', 'Body and secret agree; only the timestamp fails.'),
      ]);
    const differs = input.reference && input.reference.rawBody !== input.body;
    return {
      verified: true,
      findings: [
        ...findings,
        finding(
          'signature_ok',
          differs ? 'warning' : 'ok',
          'The signature matches',
          differs
            ? 'This body and secret verify, but the body is not the one Sandbay sent for this delivery.'
            : 'Body, header and secret agree: a correct receiver accepts this request.',
        ),
      ],
    };
  }

  const secretFindings: Finding[] = [];
  if (input.secret.includes('•') || input.secret.includes('…')) {
    secretFindings.push(
      finding(
        'masked_secret',
        'error',
        'That is a masked secret',
        'The secret contains • characters: it was copied from a masked display. Reveal the secret in Endpoints and copy it again.',
      ),
    );
  }
  const trimmed = input.secret.trim();
  const repairedSecrets: [string, keyof typeof secretMistakes][] = [];
  if (trimmed !== input.secret) repairedSecrets.push([trimmed, 'secret_whitespace']);
  // Standard Webhooks decodes the part after whsec_, so a missing prefix changes nothing there.
  if (!standard && trimmed && !trimmed.startsWith(secretPrefix))
    repairedSecrets.push([secretPrefix + trimmed, 'stripped_prefix']);
  for (const [secret, code] of repairedSecrets) {
    if (yield* matches(secret, input.body))
      return done([finding(code, 'error', secretMistakes[code].title, secretMistakes[code].detail)]);
  }

  // The endpoint's other live keys of the same kind (a secret for v1, a public key for v1a).
  const other =
    input.reference?.secrets.filter((s) => s !== input.secret && isPublicKey(s) === isPublicKey(input.secret)) ?? [];
  for (const secret of other) {
    if (yield* matches(secret, input.body)) {
      return done([
        ...secretFindings,
        finding(
          'wrong_secret',
          'error',
          secretMistakes.wrong_secret.title,
          `This request was signed with the endpoint's ${isPublicKey(secret) ? 'key pair of the public key' : 'secret'} ${mask(secret)}, not with the one you gave (${mask(input.secret)}). ${secretMistakes.wrong_secret.detail}`,
        ),
      ]);
    }
  }

  const candidates = [...new Set([input.secret, ...repairedSecrets.map(([s]) => s), ...other])];
  for (const repair of bodyRepairs) {
    const repaired = repair.undo(input.body);
    if (repaired === undefined) continue;
    for (const secret of candidates) {
      if (!(yield* matches(secret, repaired))) continue;
      const secretMistake = repairedSecrets.find(([s]) => s === secret)?.[1];
      const alsoSecret = secretMistake
        ? [
            finding(
              secretMistake,
              'error',
              `Also: ${secretMistakes[secretMistake].title.toLowerCase()}`,
              secretMistakes[secretMistake].detail,
            ),
          ]
        : secret !== input.secret
          ? [
              finding(
                'wrong_secret',
                'error',
                'Also the wrong secret',
                `Even with the body repaired, only ${mask(secret)} matches.`,
              ),
            ]
          : [];
      const found =
        repair.code === 'reserialised_json'
          ? reserialisedFinding(repair, repaired, input.body)
          : finding(repair.code, 'error', repair.title, repair.detail, firstDifference(repaired, input.body));
      return done([...secretFindings, found, ...alsoSecret]);
    }
  }

  // The same JSON in other bytes whose order no repair can restore (a serialiser that sorts keys).
  if (input.reference && input.reference.rawBody !== input.body && sameJson(input.reference.rawBody, input.body)) {
    return done([
      ...secretFindings,
      reserialisedFinding(
        bodyRepairs.find((r) => r.code === 'reserialised_json')!,
        input.reference.rawBody,
        input.body,
      ),
    ]);
  }
  if (input.reference && input.reference.rawBody !== input.body) {
    return done([
      ...secretFindings,
      finding(
        'body_differs',
        'error',
        'The body is not what Sandbay sent',
        'The pasted body differs from the bytes sent for this delivery; a signature only verifies over the exact bytes.',
        firstDifference(input.reference.rawBody, input.body),
      ),
    ]);
  }
  const key = standard ? (isPublicKey(input.secret) ? 'public key' : 'secret') : 'secret';
  return done([
    ...secretFindings,
    finding(
      'no_matching_signature',
      'error',
      standard ? `No ${isPublicKey(input.secret) ? 'v1a' : 'v1'} matches` : 'No v1 matches',
      input.reference
        ? `The body is exactly what Sandbay sent, so the ${key} is the problem: it is not one of this endpoint's live ${key}s. Reveal the endpoint's ${key} and use that.`
        : standard
          ? `Neither the body as pasted nor any usual repair of it (BOM, CRLF, whitespace, re-serialised JSON, encoding) matches with this ${key}. Check that it is this endpoint's ${isPublicKey(input.secret) ? 'whpk_… public key' : 'whsec_… secret (its HMAC key is the base64 after whsec_, decoded)'} and that you verify the raw body, webhook-id and webhook-timestamp as sent.`
          : `Neither the body as pasted nor any usual repair of it (BOM, CRLF, whitespace, re-serialised JSON, encoding) matches with this secret. Check that the secret is this endpoint's whole ${secretPrefix}… string and that you verify the raw body.`,
    ),
  ]);
}
