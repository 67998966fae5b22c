import type { RouteDef } from './route.ts';

const writeMethods = new Set(['post', 'patch', 'put', 'delete']);

/** What each documented error status means, before its codes are listed. */
export const errorMeanings: Record<number, string> = {
  400: 'The body is not a JSON object, or has a field the operation does not know',
  401: 'No access token, or one that is not valid or has expired',
  402: 'The card issuer refused',
  403: 'Refused: a token without the needed scope or naming another sandbox than its own, or a request the host or origin guard turns away',
  404: "No such object in this sandbox (another sandbox's objects are not found either)",
  409: 'Conflicts with the current state, or with an earlier request under the same Idempotency-Key',
  413: 'The body is over its limit (1 MiB for JSON bodies; an upload names its own)',
  415: 'The body is not sent as a media type the operation reads',
  422: 'The input is well-formed but not valid: see errors[] for each field',
  429: 'Too many at once: wait (Retry-After says how long) and try again',
  503: 'The database is not answering (unreachable, restarting, stalled, or a statement or lock wait timed out); Retry-After says when to try again',
  507: 'The disk holding the database is full: nothing was written; Retry-After says when to try again',
};

type Codes = Map<number, Set<string>>;

const add = (out: Codes, status: number, ...codes: string[]) => {
  const set = out.get(status) ?? new Set<string>();
  for (const code of codes) set.add(code);
  out.set(status, set);
};

/**
 * The problem+json codes a route can answer, by status: the generic ones derived from its
 * definition (the guards, auth, path, query, body and Idempotency-Key steps of the router
 * pipeline) merged with the domain errors the route declares.
 */
export function problemCodes(def: RouteDef): Codes {
  const out: Codes = new Map();
  // The DNS-rebinding and origin guards run before routing, for every operation (SPEC §7).
  add(out, 403, 'host_not_allowed', 'origin_not_allowed');
  // Any operation that reads the database may meet a fault (SPEC §9): a 503 or 507 with Retry-After, never a 500.
  if (!def.noDatabase) {
    add(out, 503, 'database_unavailable');
    add(out, 507, 'insufficient_storage');
  }
  if (def.access === 'sandbox') {
    add(out, 401, 'missing_token', 'invalid_token', 'token_expired');
    if (def.scope) add(out, 403, 'insufficient_scope');
    // A token naming another sandbox than its own in Sandbay-Sandbox.
    add(out, 403, 'sandbox_mismatch');
    // The admin key names its sandbox in a header: missing is a 422, unknown a 404.
    add(out, 404, 'not_found');
    add(out, 422, 'sandbox_required');
  } else if (def.access === 'admin') {
    add(out, 401, 'missing_token');
    add(out, 403, 'admin_key_required');
  }
  if (/:\w+/.test(def.path)) add(out, 404, 'not_found');
  if (def.params || def.query) add(out, 422, 'validation_failed');
  const isWrite = writeMethods.has(def.method);
  if (isWrite && !def.raw) {
    add(out, 400, 'malformed_json', 'unknown_field');
    add(out, 413, 'payload_too_large');
    add(out, 415, 'unsupported_media_type');
    if (def.body) add(out, 422, 'validation_failed');
    if (def.idempotent !== false && def.access === 'sandbox') {
      add(out, 409, 'idempotency_key_reused', 'idempotency_key_in_use');
      add(out, 422, 'validation_failed'); // an Idempotency-Key over 255 characters
    }
  }
  for (const [status, codes] of Object.entries(def.errors ?? {})) add(out, Number(status), ...(codes ?? []));
  return out;
}

/**
 * The 409 codes of a state machine's refusal (illegalTransition in shared/problem.ts): `<object>_<status>`
 * for every status the action is not allowed from.
 */
export const refusedIn = (object: string, statuses: readonly string[], allowedFrom: readonly string[]) =>
  statuses.filter((s) => !allowedFrom.includes(s)).map((s) => `${object}_${s}`);
