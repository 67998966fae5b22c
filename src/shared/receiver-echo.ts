/**
 * The debug echo: a receiver under development may say what it verified, so the doctor compares
 * that with what Sandbay sent by itself (no pasting). It answers (any status) with
 *
 *   Sandbay-Echo: length=<bytes>,sha256=<hex>,v1=<hex it computed>[,t=<the t it used>][,body=<base64>]
 *
 * or a JSON body with that value in a top-level "sandbayEcho" field. `length` and `sha256` are of
 * the exact bytes it fed to the HMAC after "<t>."; `body` (those bytes, base64) is optional and worth
 * it for small bodies. The secret never travels: `v1` is an HMAC output, which tells the doctor
 * which variant of the secret (prefix stripped, base64-decoded …) the receiver keyed it with.
 */
import { jsonForms, sameJson, writeJson, identifyJsonForm, type JsonForm } from './json-forms.ts';
import { echoHeaderName } from './signature.ts';
import { firstDifference, type TextDifference } from './text-diff.ts';

export { echoHeaderName };

export interface Echo {
  length?: number;
  sha256?: string;
  v1?: string;
  t?: number;
  body?: Uint8Array;
}

/** How a secret becomes HMAC key bytes: the scheme's way, and the usual mistakes. */
export type KeyDerivation = 'utf8' | 'utf8_unprefixed' | 'base64_unprefixed' | 'utf8_newline';

type EchoCode =
  | 'echo_matches'
  | 'reserialised_json'
  | 'wrong_encoding'
  | 'surrounding_whitespace'
  | 'truncated_body'
  | 'crlf'
  | 'bom'
  | 'body_differs'
  | 'stripped_prefix'
  | 'decoded_key'
  | 'kept_prefix'
  | 'undecoded_key'
  | 'secret_whitespace'
  | 'wrong_secret';

export interface EchoFinding {
  code: EchoCode;
  /** One sentence: what the receiver did. */
  title: string;
  detail: string;
  /** The serialiser whose bytes the receiver verified (reserialised_json). */
  form?: JsonForm;
  difference?: TextDifference;
}

// ignoreBOM: a BOM the receiver added is part of what it verified, not to be decoded away.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const encoder = new TextEncoder();

function fromBase64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

function parseFields(value: string): Echo | undefined {
  const echo: Echo = {};
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim().toLowerCase();
    const v = part.slice(eq + 1).trim();
    if (key === 'length' && /^\d{1,9}$/.test(v)) echo.length = Number(v);
    else if (key === 'sha256' && /^[0-9a-f]{64}$/i.test(v)) echo.sha256 = v.toLowerCase();
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(v)) echo.v1 = v.toLowerCase();
    else if (key === 't' && /^\d{1,12}$/.test(v)) echo.t = Number(v);
    else if (key === 'body') echo.body = fromBase64(v);
  }
  return echo.sha256 || echo.v1 || echo.body ? echo : undefined;
}

/** The receiver's echo from its answer (header first, then a "sandbayEcho" body field); undefined without one. */
export function parseEcho(headers: Record<string, string>, body?: string): Echo | undefined {
  const header = headers[echoHeaderName.toLowerCase()] ?? headers[echoHeaderName];
  if (header) return parseFields(header);
  if (!body || !body.includes('sandbayEcho')) return undefined;
  try {
    const field = (JSON.parse(body) as { sandbayEcho?: unknown }).sandbayEcho;
    return typeof field === 'string' ? parseFields(field) : undefined;
  } catch {
    return undefined;
  }
}

const hex = (bytes: ArrayBuffer) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
const subtle = () => globalThis.crypto.subtle;
const sha256Hex = async (bytes: Uint8Array) => hex(await subtle().digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));

async function hmacHex(key: Uint8Array, message: Uint8Array): Promise<string> {
  const k = await subtle().importKey(
    'raw',
    (key.length ? key : new Uint8Array(1)) as Uint8Array<ArrayBuffer>,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return hex(await subtle().sign('HMAC', k, message as Uint8Array<ArrayBuffer>));
}

/** The key bytes a derivation makes of a secret (undefined when it does not apply, e.g. not base64). */
function deriveKey(secret: string, how: KeyDerivation): Uint8Array | undefined {
  const unprefixed = secret.replace(/^whsec_/, '');
  switch (how) {
    case 'utf8':
      return encoder.encode(secret);
    case 'utf8_unprefixed':
      return unprefixed !== secret ? encoder.encode(unprefixed) : undefined;
    case 'base64_unprefixed':
      return fromBase64(unprefixed);
    case 'utf8_newline':
      return encoder.encode(`${secret}\n`);
  }
}

const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

// Candidate bodies: what the usual mistakes make of the bytes Sandbay sent.
function candidates(sent: string): { code: EchoCode; bytes: Uint8Array; form?: JsonForm }[] {
  const out: { code: EchoCode; bytes: Uint8Array; form?: JsonForm }[] = [];
  try {
    const value = JSON.parse(sent);
    for (const form of jsonForms)
      out.push({ code: 'reserialised_json', bytes: encoder.encode(writeJson(value, form)), form });
  } catch {
    // not JSON: no re-serialising to undo
  }
  const sentBytes = encoder.encode(sent);
  out.push({
    code: 'wrong_encoding',
    bytes: encoder.encode(Array.from(sentBytes, (b) => String.fromCharCode(b)).join('')),
  });
  out.push({ code: 'surrounding_whitespace', bytes: encoder.encode(sent.trim()) });
  out.push({ code: 'crlf', bytes: encoder.encode(sent.replace(/\n/g, '\r\n')) });
  out.push({ code: 'bom', bytes: concat(new Uint8Array([0xef, 0xbb, 0xbf]), sentBytes) });
  return out;
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

const bodyWords: Record<
  Exclude<
    EchoCode,
    | 'echo_matches'
    | 'stripped_prefix'
    | 'decoded_key'
    | 'kept_prefix'
    | 'undecoded_key'
    | 'secret_whitespace'
    | 'wrong_secret'
  >,
  [string, string]
> = {
  reserialised_json: [
    'It verified the JSON parsed and serialised again',
    'The bytes it verified are the same JSON as the body Sandbay sent, but not the same bytes.',
  ],
  wrong_encoding: [
    'It decoded the body as Latin-1',
    'It read the UTF-8 bytes as Latin-1 and hashed them encoded again (Ã¼ where Sandbay sent ü).',
  ],
  surrounding_whitespace: [
    'It trimmed the body',
    'It verified the body without its surrounding whitespace; the signature covers every byte.',
  ],
  truncated_body: [
    'It verified only part of the body',
    'The bytes it verified are the start of the body Sandbay sent, cut short.',
  ],
  crlf: ['Its line endings became CRLF', 'It verified the body with \\r\\n where Sandbay sent \\n (a text-mode read).'],
  bom: ['A byte order mark was added', 'It verified the body with a UTF-8 BOM in front; Sandbay sends none.'],
  body_differs: [
    'It verified other bytes than Sandbay sent',
    'The body it verified is not the one Sandbay sent for this delivery.',
  ],
};

const keyWords: Record<Exclude<KeyDerivation, 'utf8'>, { code: EchoCode; title: string; detail: string }> = {
  utf8_unprefixed: {
    code: 'stripped_prefix',
    title: 'It keyed the HMAC with the secret without its whsec_ prefix',
    detail: 'The HMAC key is the whole whsec_… string as UTF-8 bytes, prefix included.',
  },
  base64_unprefixed: {
    code: 'decoded_key',
    title: 'It base64-decoded the secret',
    detail:
      "It keyed the HMAC with the base64-decoded part after whsec_ (Svix's and Standard Webhooks' way); Sandbay's key is the whole whsec_… string as UTF-8 bytes.",
  },
  utf8_newline: {
    code: 'secret_whitespace',
    title: 'Its secret ends with a newline',
    detail:
      'It keyed the HMAC with the secret and a trailing newline (read from a file or an env file); trim the secret where you load it.',
  },
};

/** What the receiver verified, against what Sandbay sent: the body it hashed, then the key it used. */
export async function diagnoseEcho(input: {
  echo: Echo;
  sent: string;
  timestamp: number;
  secrets: readonly string[];
  keyDerivation?: KeyDerivation;
}): Promise<EchoFinding[]> {
  const { echo, sent } = input;
  const sentBytes = encoder.encode(sent);
  const findings: EchoFinding[] = [];
  let verified: Uint8Array | undefined = echo.body;
  if (!verified && echo.sha256) {
    if ((await sha256Hex(sentBytes)) === echo.sha256) verified = sentBytes;
    else {
      for (const c of candidates(sent)) {
        if ((await sha256Hex(c.bytes)) === echo.sha256) {
          verified = c.bytes;
          break;
        }
      }
      if (
        !verified &&
        echo.length !== undefined &&
        echo.length < sentBytes.length &&
        (await sha256Hex(sentBytes.slice(0, echo.length))) === echo.sha256
      )
        verified = sentBytes.slice(0, echo.length);
    }
  }
  if (verified && !sameBytes(verified, sentBytes)) findings.push(bodyFinding(sent, verified));
  else if (!verified && echo.sha256) {
    const [title, detail] = bodyWords.body_differs;
    findings.push({
      code: 'body_differs',
      title,
      detail: `${detail} It hashed ${echo.length ?? '?'} bytes; Sandbay sent ${sentBytes.length}, and none of the usual mistakes (re-serialised JSON, Latin-1, trimming, CRLF, a BOM, a cut) gives its sha256. Echo the body itself (body=<base64>) to see where they differ.`,
    });
  }
  if (echo.v1) {
    const t = echo.t ?? input.timestamp;
    const message = concat(encoder.encode(`${t}.`), verified ?? sentBytes);
    const expected = input.keyDerivation ?? 'utf8';
    let keyed: KeyDerivation | undefined;
    for (const how of [expected, 'utf8', 'utf8_unprefixed', 'base64_unprefixed', 'utf8_newline'] as const) {
      for (const secret of input.secrets) {
        const key = deriveKey(secret, how);
        if (key && (await hmacHex(key, message)) === echo.v1) keyed = how;
        if (keyed) break;
      }
      if (keyed) break;
    }
    if (keyed && keyed !== expected) {
      const words =
        keyed === 'utf8'
          ? {
              code: 'kept_prefix' as const,
              title: 'It keyed the HMAC with the whole whsec_… string as text',
              detail: "This scheme's key is the base64-decoded part after whsec_.",
            }
          : keyWords[keyed];
      findings.push({ code: words.code, title: words.title, detail: words.detail });
    } else if (!keyed && (verified || !echo.sha256)) {
      findings.push({
        code: 'wrong_secret',
        title: 'It used another secret',
        detail:
          "Its v1 matches none of this endpoint's live secrets, nor their usual variants (prefix stripped, base64-decoded, whitespace). Use the endpoint's current whsec_… secret.",
      });
    }
  }
  if (findings.length === 0) {
    findings.push({
      code: 'echo_matches',
      title: 'It verified exactly the bytes Sandbay sent, with the right key',
      detail:
        'Body and key agree, so the signature matches: the rejection comes from elsewhere (the timestamp check, how it compares v1 values, or code after verifying).',
    });
  }
  return findings;
}

function bodyFinding(sent: string, verifiedBytes: Uint8Array): EchoFinding {
  const verified = decoder.decode(verifiedBytes);
  const difference = firstDifference(sent, verified);
  const form = identifyJsonForm(verified, sent);
  const code: keyof typeof bodyWords =
    form || sameJson(sent, verified)
      ? 'reserialised_json'
      : sameBytes(
            verifiedBytes,
            encoder.encode(Array.from(encoder.encode(sent), (b) => String.fromCharCode(b)).join('')),
          )
        ? 'wrong_encoding'
        : verified === sent.trim()
          ? 'surrounding_whitespace'
          : verified === sent.replace(/\n/g, '\r\n')
            ? 'crlf'
            : verified === `\uFEFF${sent}`
              ? 'bom'
              : verified.length > 0 && sent.startsWith(verified)
                ? 'truncated_body'
                : 'body_differs';
  const [title, detail] = bodyWords[code];
  const by = form ? ` They are what ${form.label} writes (${form.features}).` : '';
  return {
    code,
    title: form ? `${title} with ${form.label}` : title,
    detail: `${detail}${by}`,
    ...(form ? { form } : {}),
    ...(difference ? { difference } : {}),
  };
}
