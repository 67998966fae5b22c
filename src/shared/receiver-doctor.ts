import { constantTimeEqual, hmacSha256Hex } from './hmac.ts';
import { timestampStanding } from './signature-breakdown.ts';
import { defaultToleranceSeconds, parseSignatureHeader, signatureHeaderName, signedPayload } from './signature.ts';
import { firstDifference, type TextDifference } from './text-diff.ts';

/**
 * The receiver doctor: given the body, header and secret a receiver saw, it says exactly
 * why verification fails — by finding which known mistake (re-serialised JSON, CRLF, a BOM,
 * trimmed whitespace, a wrong or masked secret, a stale or future timestamp) explains it.
 */

export type FindingCode =
  | 'signature_ok' | 'no_header' | 'malformed_header' | 'header_name_included' | 'no_secret' | 'masked_secret'
  | 'secret_whitespace' | 'wrong_secret' | 'stale_timestamp' | 'future_timestamp' | 'bom' | 'crlf'
  | 'surrounding_whitespace' | 'reserialised_json' | 'wrong_encoding' | 'body_differs' | 'no_matching_signature';

export interface Finding {
  code: FindingCode;
  severity: 'ok' | 'warning' | 'error';
  title: string;
  detail: string;
  /** Where the pasted body departs from the bytes Sandbay sent (or from the repaired body). */
  difference?: TextDifference;
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

interface BodyRepair {
  code: Extract<FindingCode, 'bom' | 'crlf' | 'surrounding_whitespace' | 'reserialised_json' | 'wrong_encoding'>;
  title: string;
  detail: string;
  /** Undoes what the receiver did, or returns undefined when it does not apply. */
  undo: (body: string) => string | undefined;
}

// Each repair is a mistake receivers make; if undoing it makes the signature match, that was the mistake.
const bodyRepairs: BodyRepair[] = [
  {
    code: 'bom', title: 'The body starts with a byte order mark',
    detail: 'Something added a UTF-8 BOM (EF BB BF) in front of the body. Sandbay signs the body without it: verify the bytes exactly as received.',
    undo: (b) => (b.startsWith('\uFEFF') ? b.slice(1) : undefined),
  },
  {
    code: 'crlf', title: 'Line endings were changed to CRLF',
    detail: 'The body you verified has \\r\\n where Sandbay sent \\n (a Windows tool, a proxy or a text-mode read rewrote them). Read the body as binary.',
    undo: (b) => (b.includes('\r\n') ? b.replace(/\r\n/g, '\n') : undefined),
  },
  {
    code: 'surrounding_whitespace', title: 'Whitespace was added around the body',
    detail: 'The body has leading or trailing whitespace (often a trailing newline added by a logger, an editor or `echo`). Verify the raw request bytes.',
    undo: (b) => (b.trim() !== b ? b.trim() : undefined),
  },
  {
    code: 'reserialised_json', title: 'The JSON was parsed and serialised again',
    detail: 'The body is the same JSON, but not the same bytes: a framework parsed it (e.g. express.json(), request.json()) and you signed JSON.stringify of the result. Verify the raw body (express.raw({ type: "application/json" })) before parsing.',
    undo: (b) => {
      try {
        const compact = JSON.stringify(JSON.parse(b.replace(/^\uFEFF/, '')));
        return compact !== b ? compact : undefined;
      } catch {
        return undefined;
      }
    },
  },
  {
    code: 'wrong_encoding', title: 'The body was decoded with the wrong character set',
    detail: 'UTF-8 bytes were read as Latin-1 (Ã¼ instead of ü). Decode the body as UTF-8, or better, verify the raw bytes.',
    undo: (b) => {
      if (!/[\u0080-\u00ff]/.test(b) || /[^\u0000-\u00ff]/.test(b)) return undefined;
      try {
        return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(b, (c) => c.charCodeAt(0)));
      } catch {
        return undefined;
      }
    },
  },
];

const finding = (code: FindingCode, severity: Finding['severity'], title: string, detail: string, difference?: TextDifference): Finding =>
  ({ code, severity, title, detail, ...(difference ? { difference } : {}) });

const mask = (secret: string) => (secret.length > 10 ? `${secret.slice(0, 6)}…${secret.slice(-4)}` : '…');

/** Diagnoses a failed (or successful) verification; see the module comment. */
export async function diagnose(input: DoctorInput): Promise<Diagnosis> {
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

  const matches = async (secret: string, body: string) => {
    const expected = await hmacSha256Hex(secret, signedPayload(parsed.timestamp, body));
    return parsed.signatures.some((v1) => constantTimeEqual(v1, expected));
  };
  const timestampOk = standing === 'within_tolerance';
  const done = (extra: Finding[]) => ({ verified: false, findings: [...findings, ...extra] });

  if (await matches(input.secret, input.body)) {
    if (!timestampOk) return done([finding('signature_ok', 'ok', 'The HMAC matches', 'Body and secret agree; only the timestamp fails.')]);
    const differs = input.reference && input.reference.rawBody !== input.body;
    return { verified: true, findings: [...findings, finding('signature_ok', differs ? 'warning' : 'ok', 'The signature matches',
      differs ? 'This body and secret verify, but the body is not the one Sandbay sent for this delivery.' : 'Body, header and secret agree: a correct receiver accepts this request.')] };
  }

  const secretFindings: Finding[] = [];
  const secrets = [input.secret];
  if (input.secret.includes('•') || input.secret.includes('…')) {
    secretFindings.push(finding('masked_secret', 'error', 'That is a masked secret',
      'The secret contains • characters: it was copied from a masked display. Reveal the secret in Endpoints and copy it again.'));
  }
  if (input.secret.trim() !== input.secret) {
    secrets.push(input.secret.trim());
  }
  for (const secret of secrets.slice(1)) {
    if (await matches(secret, input.body)) {
      return done([finding('secret_whitespace', 'error', 'The secret has surrounding whitespace',
        'With the whitespace trimmed the signature matches. Trim the secret where you load it (a trailing newline in an env file is the usual cause).')]);
    }
  }

  const other = input.reference?.secrets.filter((s) => s !== input.secret) ?? [];
  for (const secret of other) {
    if (await matches(secret, input.body)) {
      return done([...secretFindings, finding('wrong_secret', 'error', 'Wrong secret',
        `This request was signed with the endpoint's secret ${mask(secret)}, not with the one you gave (${mask(input.secret)}). Use the endpoint's current secret (after a rotation, both secrets sign for 24 h).`)]);
    }
  }

  const candidates = [...new Set([...secrets, ...other])];
  for (const repair of bodyRepairs) {
    const repaired = repair.undo(input.body);
    if (repaired === undefined) continue;
    for (const secret of candidates) {
      if (!(await matches(secret, repaired))) continue;
      const wrongSecret = secret !== input.secret && secret !== input.secret.trim();
      return done([...secretFindings,
        finding(repair.code, 'error', repair.title, repair.detail, firstDifference(repaired, input.body)),
        ...(wrongSecret ? [finding('wrong_secret', 'error', 'Also the wrong secret', `Even with the body repaired, only the endpoint's secret ${mask(secret)} matches.`)] : [])]);
    }
  }

  if (input.reference && input.reference.rawBody !== input.body) {
    return done([...secretFindings, finding('body_differs', 'error', 'The body is not what Sandbay sent',
      'The pasted body differs from the bytes sent for this delivery; a signature only verifies over the exact bytes.',
      firstDifference(input.reference.rawBody, input.body))]);
  }
  return done([...secretFindings, finding('no_matching_signature', 'error', 'No v1 matches',
    input.reference
      ? "The body is exactly what Sandbay sent, so the secret is the problem: it is not one of this endpoint's live secrets. Reveal the endpoint's secret and use that."
      : 'Neither the body as pasted nor any usual repair of it (BOM, CRLF, whitespace, re-serialised JSON, encoding) matches with this secret. Check that the secret belongs to this endpoint and that you pasted the raw body.')]);
}
