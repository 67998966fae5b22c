import type { Context } from 'koa';
import type { z } from 'zod';
import type { BodyKind } from './body.ts';
import type { Principal } from './auth/principal.ts';

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

/**
 * Who may call a route:
 * - `none`: anyone (sandbox creation, OpenAPI, OAuth endpoints);
 * - `sandbox`: a sandbox's bearer token, or the admin key plus a Sandbay-Sandbox header;
 * - `admin`: the admin key alone (dashboard-wide operations).
 */
export type Access = 'none' | 'sandbox' | 'admin';

interface RouteInput<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  principal: Principal;
  ctx: Context;
}

/** A body that is JSON text already (a stored document): sent as is, with no parse and re-serialise. */
export class JsonText {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

export interface RouteResult {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 409 | 413 | 415 | 422 | 429;

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Default application/json; several when the response varies (a redirect's text/html or text/plain). */
  contentType?: string | readonly string[];
}

/** Koa's ctx.redirect writes a one-line note with the Location: HTML or plain text, by the Accept header. */
export const redirectMedia = ['text/html', 'text/plain'] as const;

/** One route: its schemas drive both request validation and the OpenAPI document. */
export interface RouteDef<
  B extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
> {
  method: Method;
  /** Koa-style path, e.g. /api/v1/orders/:id */
  path: string;
  operationId: string;
  summary: string;
  tags: string[];
  access: Access;
  /** Scope needed with a bearer token, e.g. orders:write. */
  scope?: string;
  body?: B;
  query?: Q;
  params?: P;
  accepts?: BodyKind[];
  /** A raw route's request body that is not JSON (an uploaded file): its media types, for the OpenAPI document. */
  requestMedia?: { types: readonly string[]; description: string };
  /**
   * Response schemas per status (or range such as 4XX), for the OpenAPI document. The generic
   * problem+json errors are derived from the rest of the definition (see openapi-errors.ts).
   */
  responses?: Record<number | string, z.ZodType | ResponseSpec>;
  /**
   * The problem+json codes this route's handler and domain rules answer, by status, beyond the
   * generic ones (auth, body, path, query, Idempotency-Key): 409 state conflicts, 402 card_declined…
   */
  errors?: Partial<Record<ErrorStatus, readonly string[]>>;
  /** Writes honour Idempotency-Key unless a route opts out. */
  idempotent?: boolean;
  /**
   * Top-level response fields holding a secret the database keeps only hashed (an invitation
   * token): the response stored for an Idempotency-Key never holds them, so a replay omits them
   * and names them in its Idempotent-Omitted header.
   */
  secretFields?: string[];
  /**
   * The response carries a credential (a token, a client or endpoint secret, a sandbox's credentials):
   * it goes out with `Cache-Control: no-store` (RFC 6749 §5.1, SPEC §7), answers and replays alike, and
   * the OpenAPI document says so. Routes with secretFields carry one by definition.
   */
  credentials?: boolean;
  /**
   * The handler awaits the network (webhook attempts). With an Idempotency-Key every other
   * handler runs in one transaction with its stored response; no transaction may wait on a
   * receiver, so this one runs on its own and its response is stored once it answers.
   */
  awaitsNetwork?: boolean;
  /**
   * The handler reads no database (health, the OpenAPI document): it answers during an outage, so no 503/507 is
   * documented.
   */
  noDatabase?: boolean;
  /**
   * Routes whose handler writes the response itself (HTML, SSE, redirects) and reads its own
   * body; `body` then only documents the request in OpenAPI and the handler gets undefined.
   */
  raw?: boolean;
  handler: (input: RouteInput<z.output<B>, z.output<Q>, z.output<P>>) => Promise<RouteResult> | RouteResult;
}

/** Whether a route's answers carry a credential, so no cache may keep them. */
export const carriesCredentials = (def: RouteDef) => Boolean(def.credentials || def.secretFields?.length);

/** Keeps each route's handler typed by its own schemas. */
export function route<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType>(def: RouteDef<B, Q, P>): RouteDef {
  return def as unknown as RouteDef;
}
