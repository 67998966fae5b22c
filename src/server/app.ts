import Koa, { type Context, type Middleware } from 'koa';
import { carriesAdminKey, sessionCookieToken, type AuthConfig } from './auth/authenticate.ts';
import type { Logger } from './log.ts';
import { errorHandler } from './middleware/errors.ts';
import { hostGuard } from './middleware/host-guard.ts';
import type { IdempotencyKeys } from './middleware/idempotency.ts';
import { originPolicy } from './middleware/origin.ts';
import type { RouteDef } from './route.ts';
import { buildRouter } from './router.ts';

export interface AppConfig {
  host: string;
  allowHosts: string[];
  /** The origin users see (--public-url): its host passes the Host guard, its origin is the app's own. */
  publicUrl?: string;
  auth: AuthConfig;
  idempotency: IdempotencyKeys;
  routes: RouteDef[];
  logger: Logger;
  logRequests: boolean;
  /** Extra middleware that runs before the API router (the inspector UI, the catcher). */
  before?: Middleware[];
}

// Dashboard-only requests: the admin key (header or cookie), the inspector's session cookie (a
// page on localhost:3000 is same-site, so SameSite alone would let it ride along), signing in
// and out, sandbox creation (and import), OAuth consent.
const privileged = (auth: AuthConfig) => (ctx: Context) =>
  carriesAdminKey(ctx, auth) ||
  sessionCookieToken(ctx, auth) !== undefined ||
  (ctx.path === '/api/v1/session' && ctx.method !== 'GET') ||
  (ctx.method === 'POST' &&
    (ctx.path === '/api/v1/sandboxes' || ctx.path === '/api/v1/sandboxes/import' || ctx.path === '/oauth/authorize'));

function requestLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      // Path only: query strings can carry the admin key (?key=) and OAuth codes. A stream (SSE)
      // wrote its own head, so Koa's ctx.status would still say 404.
      const status = ctx.respond === false ? ctx.res.statusCode : ctx.status;
      logger.info(`${ctx.method} ${ctx.path} ${status} ${(performance.now() - started).toFixed(1)}ms`);
    }
  };
}

/** The Koa app: (log) → errors → host guard → origin/CORS → UI → API routes. */
export function createApp(config: AppConfig): Koa {
  const app = new Koa();
  app.silent = true; // errorHandler renders and logs; Koa's default would print stacks
  if (config.logRequests) app.use(requestLog(config.logger));
  app.use(errorHandler(config.logger));
  const publicHost = config.publicUrl ? [new URL(config.publicUrl).host] : [];
  app.use(hostGuard(config.host, [...config.allowHosts, ...publicHost]));
  app.use(originPolicy({ isPrivileged: privileged(config.auth), publicOrigin: config.publicUrl }));
  for (const mw of config.before ?? []) app.use(mw);
  for (const mw of buildRouter(config.routes, { auth: config.auth, idempotency: config.idempotency })) app.use(mw);
  return app;
}
