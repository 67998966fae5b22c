import { goFixes } from './fixes/go.ts';
import { nodeFixes } from './fixes/node.ts';
import { phpFixes } from './fixes/php.ts';
import { pythonFixes } from './fixes/python.ts';
import { rubyFixes } from './fixes/ruby.ts';
import type { LanguageFixes, ReceiverLanguage, ReceiverStack } from './fixes/types.ts';

export type { LanguageFixes, ReceiverLanguage, ReceiverStack } from './fixes/types.ts';

/**
 * Fixes in the receiver's own language and framework: the receiver check, the doctor and
 * `sandbay verify` name the mistake, and this says what to write instead.
 */
export const languageFixes: Record<ReceiverLanguage, LanguageFixes> = {
  node: nodeFixes,
  python: pythonFixes,
  php: phpFixes,
  go: goFixes,
  ruby: rubyFixes,
};

export type FixKind = 'rawBody' | 'key' | 'encoding' | 'wholeBody' | 'bodyLimit';

// When the language is unknown: one neutral sentence, and each language's usual spelling in a few words.
const anyLanguage: Record<FixKind, string> = {
  rawBody:
    'Verify the raw request bytes before parsing them, never JSON parsed and serialised again (Flask request.get_data(), Django request.body, Express express.raw(), Laravel $request->getContent(), PHP php://input, Go io.ReadAll(r.Body), Rails request.raw_post).',
  key: "The HMAC key is the whole whsec_… string as UTF-8 bytes, prefix included: do not strip whsec_ or base64-decode the rest (that is Svix's scheme, not this one).",
  encoding: 'Hash the body bytes as received; decode them as UTF-8 only to parse them, never as Latin-1.',
  wholeBody: 'Read the whole body (Content-Length bytes, every chunk) before verifying.',
  bodyLimit:
    "Accept bodies of at least 1 MiB on the webhook route (Express: express.raw({ limit: '1mb' }), its default is 100kb).",
};

const label = (stack: ReceiverStack) =>
  `${languageFixes[stack.language].name}${stack.framework ? ` (${stack.framework})` : ''}`;

/** The fix of one kind in the receiver's language (and framework), or in every language's words when unknown. */
export function fixFor(kind: FixKind, stack?: ReceiverStack): string {
  if (!stack) return anyLanguage[kind];
  const fixes = languageFixes[stack.language];
  const text =
    (kind !== 'key' && stack.framework ? fixes.byFramework[stack.framework]?.[kind] : undefined) ?? fixes[kind];
  return `In ${label(stack)}: ${text}.`;
}

/** Which fix answers a doctor's or an echo's finding code (undefined: the finding's own words say it). */
function fixKindOf(code: string): FixKind | undefined {
  if (['reserialised_json', 'bom', 'crlf', 'surrounding_whitespace', 'body_differs'].includes(code)) return 'rawBody';
  if (code === 'wrong_encoding') return 'encoding';
  if (code === 'truncated_body') return 'wholeBody';
  if (['stripped_prefix', 'decoded_key', 'kept_prefix', 'undecoded_key', 'secret_whitespace'].includes(code))
    return 'key';
  return undefined;
}

/**
 * The stack to give fixes for: the serialiser's language when the bytes named one (they do not lie), else what the
 * headers said.
 */
export function stackFor(detected: ReceiverStack | undefined, language?: ReceiverLanguage): ReceiverStack | undefined {
  if (!language) return detected;
  return detected?.language === language ? detected : { language };
}

/** The fix for a doctor's or an echo's finding, in the receiver's language (a re-serialiser's bytes name theirs). */
export function fixForFinding(code: string, stack?: ReceiverStack, language?: ReceiverLanguage): string | undefined {
  const kind = fixKindOf(code);
  return kind ? fixFor(kind, stackFor(stack, language)) : undefined;
}

/** How a stack is named in a cause: "Python (Flask)". */
export const stackLabel = (stack: ReceiverStack | undefined) => (stack ? label(stack) : undefined);

/**
 * The receiver's language and framework, told from the headers it answers with (Server,
 * X-Powered-By, cookies and the like); undefined when they say nothing recognisable.
 */
export function detectStack(headers: Record<string, string>): ReceiverStack | undefined {
  const h = (name: string) => headers[name] ?? headers[name.toLowerCase()] ?? '';
  const server = h('server');
  const powered = h('x-powered-by');
  const cookies = h('set-cookie');
  if (/Next\.js/i.test(powered)) return { language: 'node', framework: 'Next.js' };
  if (/Express/i.test(powered)) return { language: 'node', framework: 'Express' };
  if (/PHP/i.test(powered) || /PHP/i.test(server))
    return /laravel_session|XSRF-TOKEN/i.test(cookies)
      ? { language: 'php', framework: 'Laravel' }
      : { language: 'php' };
  if (/Werkzeug/i.test(server)) return { language: 'python', framework: 'Flask' };
  if (/uvicorn|hypercorn/i.test(server)) return { language: 'python', framework: 'FastAPI' };
  if (/WSGIServer/i.test(server) || /csrftoken|sessionid/.test(cookies))
    return { language: 'python', framework: 'Django' };
  if (/BaseHTTP/i.test(server)) return { language: 'python', framework: 'http.server' };
  if (/gunicorn|Python/i.test(server)) return { language: 'python' };
  if (h('x-runtime') && h('x-request-id')) return { language: 'ruby', framework: 'Rails' };
  if (/WEBrick|Puma|Thin|Falcon/i.test(server))
    return { language: 'ruby', framework: /sinatra/i.test(powered) ? 'Sinatra' : undefined };
  if (/fastify/i.test(powered)) return { language: 'node', framework: 'Fastify' };
  // Node's own server announces its keep-alive timeout; Go's http.Error sets exactly these two.
  if (/^timeout=\d+$/.test(h('keep-alive'))) return { language: 'node' };
  if (
    !server &&
    !powered &&
    h('x-content-type-options') === 'nosniff' &&
    h('content-type') === 'text/plain; charset=utf-8'
  )
    return { language: 'go', framework: 'net/http' };
  return undefined;
}
