import { bodyRepairs, type BodyRepair } from './body-repairs.ts';
import type { FindingCode } from './doctor-codes.ts';
import { constantTimeEqual, hmacSha256Hex } from './hmac.ts';
import { timestampStanding } from './signature-breakdown.ts';
import { defaultToleranceSeconds, parseSignatureHeader, signatureHeaderName, signedPayload, type ParsedSignature } from './signature.ts';
import { firstDifference, type TextDifference } from './text-diff.ts';
import { identifyJsonForm, sameJson, type JsonForm } from './json-forms.ts';

/**
 * The receiver doctor: given the body, header and secret a receiver saw, it says exactly
 * why verification fails — by finding which known mistake (re-serialised JSON and by which
 * language's serialiser, CRLF, a BOM, trimmed whitespace, a wrong, masked or prefix-stripped
 * secret, a stale or future timestamp) explains it. Its words are the same in every language;
 * receiver-fixes.ts says the fix in the receiver's own. One line of reasoning, two drivers: WebCrypto in the browser (`diagnose`) and
 * any synchronous HMAC in Node (`diagnoseSync`: verifyWebhook's hint, `sandbay verify`).
 */

export type { FindingCode } from './doctor-codes.ts';

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
  /** The X-Service-Signature header as the receiver saw it. */
  header: string;
  /** The secret the receiver verifies with. */
  secret: string;
  /** Unix seconds. */
  now: number;
  toleranceSeconds?: number;
  /** What Sandbay knows, when the doctor is opened on a delivery: the bytes sent and the live secrets. */
  reference?: { rawBody: string; secrets: readonly string[] };
}

export interface Diagnosis {
  verified: boolean;
  findings: Finding[];
}

/** The v1 of a body: lowercase hex HMAC-SHA256 of "<t>.<body>" keyed by the UTF-8 bytes of `secret`. */
export type V1Signer = (secret: string, timestamp: number, body: string) => string;

export const secretPrefix = 'whsec_';

/** The doctor's words for the secret mistakes, shared with the receiver check's causes. */
export const secretMistakes = {
  stripped_prefix: {
    title: 'The secret lost its whsec_ prefix',
    detail: `The HMAC key is the whole ${secretPrefix}… string, prefix included, as UTF-8 bytes: do not strip the prefix or base64-decode the rest (that is Svix's scheme, not this one).`,
  },
  secret_whitespace: {
    title: 'The secret has surrounding whitespace',
    detail: 'With the whitespace trimmed the signature matches. Trim the secret where you load it (a trailing newline in an env file is the usual cause).',
  },
  wrong_secret: {
    title: 'Wrong secret',
    detail: "Use the endpoint's current secret, the whole whsec_… string (after a rotation, both secrets sign for 24 h).",
  },
} as const;

const finding = (code: FindingCode, severity: Finding['severity'], title: string, detail: string, difference?: TextDifference): Finding =>
  ({ code, severity, title, detail, ...(difference ? { difference } : {}) });

/** Re-serialised JSON, with the serialiser named when the bytes are exactly one known form's. */
function reserialisedFinding(repair: BodyRepair, original: string, verified: string): Finding {
  const form = identifyJsonForm(verified, original);
  const by = form ? ` These bytes are what ${form.label} writes (${form.features}).` : '';
  return { ...finding(repair.code, 'error', repair.title, `${repair.detail}${by}`, firstDifference(original, verified)), ...(form ? { form } : {}) };
}

const mask = (secret: string) => (secret.length > 10 ? `${secret.slice(0, 6)}…${secret.slice(-4)}` : '…');

// The reasoning yields [secret, timestamp, body] questions and is sent back each v1 they give.
type Question = [secret: string, timestamp: number, body: string];
type Examination = Generator<Question, Diagnosis, string>;

/** Diagnoses a failed (or successful) verification with WebCrypto; see the module comment. */
export async function diagnose(input: DoctorInput): Promise<Diagnosis> {
  const steps = examine(input);
  for (let step = steps.next(); ; ) {
    if (step.done) return step.value;
    const [secret, timestamp, body] = step.value;
    step = steps.next(await hmacSha256Hex(secret, signedPayload(timestamp, body)));
  }
}

/** The same diagnosis with a synchronous signer (node:crypto), for code that cannot await. */
export function diagnoseSync(input: DoctorInput, sign: V1Signer): Diagnosis {
  const steps = examine(input);
  for (let step = steps.next(); ; ) {
    if (step.done) return step.value;
    step = steps.next(sign(...step.value));
  }
}

function* examine(input: DoctorInput): Examination {
  const findings: Finding[] = [];
  let header = input.header.trim();
  const named = new RegExp(`^${signatureHeaderName}\\s*:\\s*`, 'i');
  if (named.test(header)) {
    header = header.replace(named, '');
    findings.push(finding('header_name_included', 'warning', 'The header name was pasted too',
      `Only the value after "${signatureHeaderName}:" is signed data; the doctor ignored the name. Make sure your code reads the value, not the whole line.`));
  }
  if (!header) return { verified: false, findings: [...findings, finding('no_header', 'error', 'No signature header', `Paste the ${signatureHeaderName} header your receiver got. A missing header usually means a proxy dropped it or the code reads the wrong header name (they are case-insensitive).`)] };
  const parsed = parseSignatureHeader(header);
  if (!parsed) {
    return { verified: false, findings: [...findings, finding('malformed_header', 'error', 'The header cannot be parsed',
      'It must look like t=<unix seconds>,v1=<64 hex digits>[,v1=…]. Check that nothing truncated it or joined it with another header.')] };
  }
  if (!input.secret) return { verified: false, findings: [...findings, finding('no_secret', 'error', 'No secret', 'Paste the secret your receiver verifies with (whsec_…).')] };

  const tolerance = input.toleranceSeconds ?? defaultToleranceSeconds;
  const age = input.now - parsed.timestamp;
  const standing = timestampStanding(age, tolerance);
  if (standing === 'stale') {
    findings.push(finding('stale_timestamp', 'error', 'The timestamp is too old',
      `t=${parsed.timestamp} is ${Math.round(age)} s old, outside the ${tolerance} s tolerance, so a verifier rejects it even when the HMAC matches. Replay the delivery (or copy it as curl) to get a fresh signature; if this is a live request, check the receiver's clock.`));
  } else if (standing === 'future') {
    findings.push(finding('future_timestamp', 'error', 'The timestamp is in the future',
      `t=${parsed.timestamp} is ${Math.round(-age)} s ahead of now, beyond the ${tolerance} s tolerance. The receiver's clock (or this machine's) is wrong; sync it with NTP.`));
  }
  const done = (extra: Finding[]) => ({ verified: false, findings: [...findings, ...extra] });

  if (yield* matches(parsed, input.secret, input.body)) {
    if (standing !== 'within_tolerance') return done([finding('signature_ok', 'ok', 'The HMAC matches', 'Body and secret agree; only the timestamp fails.')]);
    const differs = input.reference && input.reference.rawBody !== input.body;
    return { verified: true, findings: [...findings, finding('signature_ok', differs ? 'warning' : 'ok', 'The signature matches',
      differs ? 'This body and secret verify, but the body is not the one Sandbay sent for this delivery.' : 'Body, header and secret agree: a correct receiver accepts this request.')] };
  }

  const secretFindings: Finding[] = [];
  if (input.secret.includes('•') || input.secret.includes('…')) {
    secretFindings.push(finding('masked_secret', 'error', 'That is a masked secret',
      'The secret contains • characters: it was copied from a masked display. Reveal the secret in Endpoints and copy it again.'));
  }
  const trimmed = input.secret.trim();
  const repairedSecrets: [string, keyof typeof secretMistakes][] = [];
  if (trimmed !== input.secret) repairedSecrets.push([trimmed, 'secret_whitespace']);
  if (trimmed && !trimmed.startsWith(secretPrefix)) repairedSecrets.push([secretPrefix + trimmed, 'stripped_prefix']);
  for (const [secret, code] of repairedSecrets) {
    if (yield* matches(parsed, secret, input.body)) return done([finding(code, 'error', secretMistakes[code].title, secretMistakes[code].detail)]);
  }

  const other = input.reference?.secrets.filter((s) => s !== input.secret) ?? [];
  for (const secret of other) {
    if (yield* matches(parsed, secret, input.body)) {
      return done([...secretFindings, finding('wrong_secret', 'error', secretMistakes.wrong_secret.title,
        `This request was signed with the endpoint's secret ${mask(secret)}, not with the one you gave (${mask(input.secret)}). ${secretMistakes.wrong_secret.detail}`)]);
    }
  }

  const candidates = [...new Set([input.secret, ...repairedSecrets.map(([s]) => s), ...other])];
  for (const repair of bodyRepairs) {
    const repaired = repair.undo(input.body);
    if (repaired === undefined) continue;
    for (const secret of candidates) {
      if (!(yield* matches(parsed, secret, repaired))) continue;
      const secretMistake = repairedSecrets.find(([s]) => s === secret)?.[1];
      const alsoSecret = secretMistake
        ? [finding(secretMistake, 'error', `Also: ${secretMistakes[secretMistake].title.toLowerCase()}`, secretMistakes[secretMistake].detail)]
        : secret !== input.secret ? [finding('wrong_secret', 'error', 'Also the wrong secret', `Even with the body repaired, only ${mask(secret)} matches.`)] : [];
      const found = repair.code === 'reserialised_json' ? reserialisedFinding(repair, repaired, input.body) : finding(repair.code, 'error', repair.title, repair.detail, firstDifference(repaired, input.body));
      return done([...secretFindings, found, ...alsoSecret]);
    }
  }

  // The same JSON in other bytes whose order no repair can restore (a serialiser that sorts keys).
  if (input.reference && input.reference.rawBody !== input.body && sameJson(input.reference.rawBody, input.body)) {
    return done([...secretFindings, reserialisedFinding(bodyRepairs.find((r) => r.code === 'reserialised_json')!, input.reference.rawBody, input.body)]);
  }
  if (input.reference && input.reference.rawBody !== input.body) {
    return done([...secretFindings, finding('body_differs', 'error', 'The body is not what Sandbay sent',
      'The pasted body differs from the bytes sent for this delivery; a signature only verifies over the exact bytes.',
      firstDifference(input.reference.rawBody, input.body))]);
  }
  return done([...secretFindings, finding('no_matching_signature', 'error', 'No v1 matches',
    input.reference
      ? "The body is exactly what Sandbay sent, so the secret is the problem: it is not one of this endpoint's live secrets. Reveal the endpoint's secret and use that."
      : `Neither the body as pasted nor any usual repair of it (BOM, CRLF, whitespace, re-serialised JSON, encoding) matches with this secret. Check that the secret is this endpoint's whole ${secretPrefix}… string and that you verify the raw body.`)]);
}

/** Whether any v1 of the header is the HMAC of this body with this secret. */
function* matches(parsed: ParsedSignature, secret: string, body: string): Generator<Question, boolean, string> {
  const expected = yield [secret, parsed.timestamp, body];
  return parsed.signatures.some((v1) => constantTimeEqual(v1, expected));
}
