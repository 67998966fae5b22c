import type { Context, Middleware } from 'koa';
import { ApiError } from '../../shared/problem.ts';

const loopbackOrigin = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

export interface OriginPolicy {
  /** Requests that act as the dashboard: admin key or cookie, sandbox creation, OAuth consent. */
  isPrivileged(ctx: Context): boolean;
  /** The app's own origin as users reach it (--public-url), besides the address the request came to. */
  publicOrigin?: string;
}

const allowHeaders = 'Authorization, Content-Type, Idempotency-Key, Last-Event-ID';
const exposeHeaders = 'WWW-Authenticate, Idempotent-Replayed, Idempotent-Omitted, Location';

/**
 * Browser origins (SPEC §7): the dashboard's own origin may do anything; loopback origins
 * (a user's app on localhost:3000) may call the bearer-token API and /oauth/* with CORS;
 * every other origin is refused. Privileged requests are accepted from the own origin only.
 */
export function originPolicy(policy: OriginPolicy): Middleware {
  return async (ctx, next) => {
    const origin = ctx.get('origin');
    const own = `${ctx.protocol}://${ctx.host}`;
    // Behind a TLS-terminating load balancer the page is https://public while this hop is http.
    if (!origin || origin === own || origin === policy.publicOrigin) {
      if (!origin && policy.isPrivileged(ctx)) refuseCrossSiteFetch(ctx);
      return next();
    }
    if (!loopbackOrigin.test(origin)) {
      throw new ApiError(
        403,
        'origin_not_allowed',
        `Requests from ${origin} are refused; only loopback origins may call Sandbay.`,
      );
    }
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.vary('Origin');
    if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method')) {
      ctx.set('Access-Control-Allow-Methods', 'GET, POST, PATCH, PUT, DELETE');
      ctx.set('Access-Control-Allow-Headers', allowHeaders);
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    if (policy.isPrivileged(ctx)) {
      throw new ApiError(
        403,
        'origin_not_allowed',
        `${origin} may use bearer tokens, but dashboard operations are only accepted from ${policy.publicOrigin ?? own}.`,
      );
    }
    ctx.set('Access-Control-Expose-Headers', exposeHeaders);
    await next();
  };
}

// Browsers omit Origin on same-site GETs (an <img> on localhost:3000 pointing here, say);
// Sec-Fetch-Site still tells those apart from the dashboard's own requests.
function refuseCrossSiteFetch(ctx: Context): void {
  const site = ctx.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') {
    throw new ApiError(403, 'origin_not_allowed', 'Dashboard credentials are only accepted from the dashboard itself.');
  }
}
