import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { ApiError } from '../shared/problem.ts';
import { authenticate, type AuthConfig } from './auth/authenticate.ts';
import { decodeBody, readRawBody } from './body.ts';
import type { IdempotencyKeys } from './middleware/idempotency.ts';
import { carriesCredentials, JsonText, type RouteDef, type RouteResult } from './route.ts';
import { parseInput } from './validate.ts';

// Built once: zod compiles a schema on its first parse, so a schema made per request costs
// far more than the validation itself.
const emptyObject = z.object({});
const noQuery = Object.freeze({});
const noBody = z.object({}).strict();
const anyParams = z.record(z.string(), z.string());
const writeMethods = new Set(['post', 'patch', 'put', 'delete']);

export interface RouterDeps {
  auth: AuthConfig;
  idempotency: IdempotencyKeys;
}

/** Guard → auth → body → idempotency → validate → handler, for every route (DESIGN.md, Outline). */
function pipeline(def: RouteDef, deps: RouterDeps): Middleware {
  return async (ctx) => {
    const principal = await authenticate(ctx, def.access, def.scope, deps.auth);
    // Set before the handler runs, so raw routes (/oauth/token) and replays carry it as well.
    if (carriesCredentials(def)) ctx.set('Cache-Control', 'no-store');
    const params = parseInput(def.params ?? anyParams, ctx.params, 'path');
    // Most reads have no query string and no query schema: nothing to parse.
    const query = def.query || ctx.querystring ? parseInput(def.query ?? emptyObject, ctx.query, 'query') : noQuery;
    const isWrite = writeMethods.has(def.method);
    const rawBody = isWrite && !def.raw ? await readRawBody(ctx.req) : Buffer.alloc(0);
    const input = isWrite && !def.raw ? decodeBody(rawBody, ctx.req, def.accepts ?? ['json']) : {};
    const run = async (): Promise<RouteResult> => {
      // Raw routes read (and check) their own body: /oauth/token must answer in RFC 6749 form.
      const body = def.raw ? undefined : parseInput(def.body ?? noBody, input, 'body');
      return def.handler({ body, query, params, principal, ctx });
    };
    const key = ctx.get('idempotency-key');
    const result =
      key && isWrite && def.idempotent !== false && principal.tenantId
        ? await deps.idempotency.run(
            { tenantId: principal.tenantId, method: ctx.method, path: ctx.path, key, body: input },
            run,
            { atomic: !def.awaitsNetwork, secretFields: def.secretFields },
          )
        : await run();
    if (def.raw) return;
    respond(ctx, result);
  };
}

function respond(ctx: Context, result: RouteResult): void {
  for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
  const status = result.status ?? 200;
  ctx.status = status;
  if (status === 204) return;
  if (status >= 400) {
    ctx.type = 'application/problem+json';
    ctx.body = JSON.stringify(result.body);
  } else if (result.body instanceof JsonText) {
    ctx.type = 'application/json';
    ctx.body = result.body.text;
  } else {
    ctx.body = result.body ?? null;
  }
}

/**
 * The routing bucket of a path: /api/v1/<resource>, or the first segment elsewhere (/oauth,
 * /catch). Lower-cased, as route matching ignores case.
 */
function bucketOf(path: string): string {
  const parts = path.toLowerCase().split('/', 4);
  return parts[1] === 'api' ? parts.join('/') : `/${parts[1] ?? ''}`;
}

/** Mounts route definitions; unknown paths and methods answer problem+json too. */
export function buildRouter(defs: RouteDef[], deps: RouterDeps): Middleware[] {
  // One router per bucket: a request is matched against its resource's few routes, not all
  // hundred-odd (@koa/router tries every route's pattern in turn, which the hottest reads felt).
  const routers = new Map<string, Router>();
  for (const def of defs) {
    const bucket = bucketOf(def.path);
    if (!routers.has(bucket)) routers.set(bucket, new Router());
    routers.get(bucket)![def.method](def.path, pipeline(def, deps));
  }
  const buckets = new Map<string, Middleware>(
    [...routers].map(([bucket, router]) => {
      const routes = router.routes() as Middleware;
      const allowed = router.allowedMethods() as Middleware;
      return [bucket, (ctx, next) => routes(ctx, () => allowed(ctx, next))];
    }),
  );
  const dispatch: Middleware = (ctx, next) => {
    const bucket = buckets.get(bucketOf(ctx.path));
    return bucket ? bucket(ctx, next) : next();
  };
  const fallbacks: Middleware = async (ctx, next) => {
    await next();
    // A raw route that took over the response (SSE) leaves Koa's default 404 status behind.
    if (ctx.body !== undefined || ctx.respond === false) return;
    if (ctx.status === 404) throw new ApiError(404, 'not_found', `No route for ${ctx.method} ${ctx.path}.`);
    // allowedMethods leaves the Allow header (RFC 9110 §15.5.6); an unknown method is a 405 too, never a 5xx.
    if (ctx.status === 405 || ctx.status === 501) {
      const allow = ctx.response.get('Allow');
      throw new ApiError(
        405,
        'method_not_allowed',
        allow ? `${ctx.method} is not supported here; use ${allow}.` : 'This method is not supported.',
      );
    }
  };
  return [fallbacks, dispatch];
}
