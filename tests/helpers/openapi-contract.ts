// Holds every response the tests receive to the engine's own OpenAPI document: the status is one
// the operation documents, the media type is one it documents for that status, and the body
// matches the schema. A response the document does not describe throws, failing the test.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

/** What a test's HTTP client saw. `body` is the parsed JSON for JSON media types, else the text. */
export interface ObservedResponse {
  method: string;
  /** The request path, query included. */
  path: string;
  status: number;
  contentType: string | null;
  body: unknown;
  /** A stream (SSE) whose body the client did not read: only status and media type are checked. */
  streamed?: boolean;
  /**
   * The test broke the engine on purpose (a failing database trigger): a 500 is then outside the
   * document, which promises none, but must still be problem details with code internal_error.
   */
  faultInjected?: boolean;
}

interface ResponseObject {
  content?: Record<string, { schema?: object }>;
}

interface Operation {
  method: string;
  template: string;
  operationId: string;
  pattern: RegExp;
  literalSegments: number;
  responses: Record<string, ResponseObject>;
}

interface Contract {
  operations: Operation[];
  ajv: Ajv2020;
  validators: Map<object, ValidateFunction>;
  problem: object;
}

/** The paths the document covers (as static-ui.ts lists them); everything else is the inspector UI. */
const apiPrefixes = ['/api/', '/oauth/', '/catch/', '/3ds/'];
const docRoot = 'sandbay-openapi';
const contracts = new Map<string, Promise<Contract>>();

interface Document {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, ResponseObject> }>>;
  components: object;
}

function operationsOf(doc: Document) {
  return Object.entries(doc.paths).flatMap(([template, item]) =>
    Object.entries(item).map(([method, op]): Operation => {
      const segments = template.split('/');
      const regex = segments
        .map((s) => (/^\{\w+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
        .join('/');
      return {
        method: method.toUpperCase(),
        template,
        operationId: op.operationId,
        responses: op.responses,
        pattern: new RegExp(`^${regex}/?$`),
        literalSegments: segments.filter((s) => !s.startsWith('{')).length,
      };
    }),
  );
}

async function load(baseUrl: string): Promise<Contract> {
  const res = await fetch(`${baseUrl}/api/v1/openapi.json`);
  if (res.status !== 200) throw new Error(`cannot fetch the OpenAPI document of ${baseUrl}: ${res.status}`);
  const doc = (await res.json()) as Document;
  // Formats are left to the patterns zod writes beside them (date-time, email).
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ components: doc.components }, docRoot);
  return {
    operations: operationsOf(doc),
    ajv,
    validators: new Map(),
    problem: { $ref: '#/components/schemas/Problem' },
  };
}

/** The engine's document, fetched once per base URL. */
function contractOf(baseUrl: string): Promise<Contract> {
  const key = new URL(baseUrl).origin;
  let contract = contracts.get(key);
  if (!contract) {
    contract = load(key);
    contracts.set(key, contract);
    contract.catch(() => contracts.delete(key));
  }
  return contract;
}

function validatorFor(contract: Contract, schema: object): ValidateFunction {
  let validate = contract.validators.get(schema);
  if (!validate) {
    // The document's refs are local (#/components/…); here they point into the registered copy.
    const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${docRoot}#/components/`));
    validate = contract.ajv.compile(rebased);
    contract.validators.set(schema, validate);
  }
  return validate;
}

/** The operation a request reached, as the router picks it: literal segments beat parameters. */
function operationFor(contract: Contract, method: string, pathname: string): Operation | undefined {
  const verb = method === 'HEAD' ? 'GET' : method;
  return contract.operations
    .filter((op) => op.method === verb && op.pattern.test(pathname))
    .sort((a, b) => b.literalSegments - a.literalSegments)[0];
}

/** A response body as the validator wants it: parsed for JSON media types, else the text. */
export function bodyOf(contentType: string | null, text: string): unknown {
  if (!/json/.test(contentType ?? '') || !text) return text;
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`a ${contentType} body that is not JSON: ${text.slice(0, 200)}`);
  }
}

const mediaOf = (contentType: string | null) => (contentType ?? '').split(';')[0].trim().toLowerCase();
const isEmpty = (body: unknown) => body === undefined || body === null || body === '';

/** The mismatch between a response and what the document says about it, or undefined when it matches. */
function mismatch(
  contract: Contract,
  documented: Record<string, ResponseObject>,
  seen: ObservedResponse,
): string | undefined {
  const entry = documented[String(seen.status)] ?? documented[`${String(seen.status)[0]}XX`];
  if (!entry) return `status ${seen.status} is not documented (documented: ${Object.keys(documented).join(', ')})`;
  const media = mediaOf(seen.contentType);
  if (!entry.content)
    return isEmpty(seen.body)
      ? undefined
      : `status ${seen.status} is documented without a body, but one came as ${media || 'no media type'}`;
  const content = entry.content[media];
  if (!content)
    return `${seen.status} came as ${media || 'no media type'}; documented: ${Object.keys(entry.content).join(', ')}`;
  if (seen.streamed || !content.schema || seen.method === 'HEAD') return undefined;
  const validate = validatorFor(contract, content.schema);
  if (validate(seen.body)) return undefined;
  return `the ${seen.status} ${media} body does not match its schema: ${contract.ajv.errorsText(validate.errors, { dataVar: 'body' })}\n  body: ${JSON.stringify(seen.body)?.slice(0, 600)}`;
}

/**
 * Requests no operation matches are answered before routing (docs/decisions/requests-no-operation-matches.md): 404
 * not_found, 405 method_not_allowed, or a guard's 403, all problem details; an OPTIONS gets CORS or Allow headers with
 * an empty 200/204.
 */
function unrouted(contract: Contract, seen: ObservedResponse): string | undefined {
  if (seen.method === 'OPTIONS' && (seen.status === 200 || seen.status === 204) && isEmpty(seen.body)) return undefined;
  const problems: Record<string, ResponseObject> = Object.fromEntries(
    [403, 404, 405].map((s) => [s, { content: { 'application/problem+json': { schema: contract.problem } } }]),
  );
  return mismatch(contract, problems, seen);
}

/** Throws unless the engine at `baseUrl` documents this response in its OpenAPI document. */
export async function assertDocumented(baseUrl: string, seen: ObservedResponse): Promise<void> {
  const pathname = new URL(seen.path, 'http://x').pathname;
  if (!apiPrefixes.some((p) => pathname.startsWith(p))) return;
  const contract = await contractOf(baseUrl);
  const op = operationFor(contract, seen.method, pathname);
  const internal = {
    500: {
      content: {
        'application/problem+json': {
          schema: { allOf: [contract.problem, { properties: { code: { const: 'internal_error' } } }] },
        },
      },
    },
  };
  const problem =
    seen.faultInjected && seen.status === 500
      ? mismatch(contract, internal, seen)
      : op
        ? mismatch(contract, op.responses, seen)
        : unrouted(contract, seen);
  if (problem) {
    const where = op ? `${op.operationId} (${op.method} ${op.template})` : `${seen.method} ${pathname} (no operation)`;
    throw new Error(`OpenAPI mismatch: ${where} answered ${seen.status}: ${problem}`);
  }
}
