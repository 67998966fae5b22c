import type { Middleware } from 'koa';
import { ApiError, problemBody } from '../../shared/problem.ts';
import { OAuthError } from '../../domain/oauth/oauth-error.ts';
import type { Logger } from '../log.ts';

/** Renders every failure as problem+json (or RFC 6749 JSON on /oauth/token); never a stack trace. */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (caught) {
      if (caught instanceof OAuthError) {
        ctx.status = caught.status;
        ctx.set('Cache-Control', 'no-store');
        // RFC 6749 §5.2: a failed client authentication names the scheme to authenticate with.
        if (caught.status === 401) ctx.set('WWW-Authenticate', 'Basic realm="sandbay"');
        ctx.body = { error: caught.error, error_description: caught.description };
        return;
      }
      const err = toApiError(caught);
      if (err.status >= 500) logger.error(`${ctx.method} ${ctx.path} failed: ${(caught as Error)?.stack ?? caught}`);
      ctx.status = err.status;
      for (const [name, value] of Object.entries(err.options.headers ?? {})) ctx.set(name, value);
      ctx.type = 'application/problem+json';
      ctx.body = JSON.stringify(problemBody(err));
    }
  };
}

function toApiError(caught: unknown): ApiError {
  if (caught instanceof ApiError) return caught;
  // Errors Koa raises itself (bad cookies, URI decoding) carry a 4xx status.
  const status = (caught as { status?: number })?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiError(status, status === 404 ? 'not_found' : 'bad_request', (caught as Error).message || 'Bad request.');
  }
  return new ApiError(500, 'internal_error', 'Something went wrong inside Sandbay; the server log has the details.');
}
