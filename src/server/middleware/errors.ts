import type { Middleware } from 'koa';
import { faultOf } from '../../db/errors.ts';
import { ApiError, problemBody } from '../../shared/problem.ts';
import { throttled } from '../../shared/throttled-log.ts';
import { OAuthError } from '../../domain/oauth/oauth-error.ts';
import type { Logger } from '../log.ts';

/** Renders every failure as problem+json (or RFC 6749 JSON on /oauth/token); never a stack trace. */
export function errorHandler(logger: Logger): Middleware {
  const faultLog = throttled((message) => logger.warn(message), 5_000, 'more such answers since');
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
      // A database fault is the database's state, not a bug here: one line, at most every few seconds.
      if (err.status === 503 || err.status === 507) faultLog(`${err.code}: ${(caught as Error)?.message ?? caught}`);
      else if (err.status >= 500)
        logger.error(`${ctx.method} ${ctx.path} failed: ${(caught as Error)?.stack ?? caught}`);
      ctx.status = err.status;
      for (const [name, value] of Object.entries(err.options.headers ?? {})) ctx.set(name, value);
      ctx.type = 'application/problem+json';
      ctx.body = JSON.stringify(problemBody(err));
    }
  };
}

/** Seconds a client should wait before trying again: the engine recovers within 5 s of the database returning. */
const databaseRetryAfterSeconds = 2;

/** The answer to a database fault (src/db/errors.ts): 503 while it cannot serve, 507 while its disk is full. */
function databaseFaultError(caught: unknown): ApiError | undefined {
  const fault = faultOf(caught);
  if (fault === 'unavailable') {
    return new ApiError(
      503,
      'database_unavailable',
      'The database is not answering (unreachable, restarting, or too slow); try again in a few seconds.',
      { headers: { 'Retry-After': String(databaseRetryAfterSeconds) } },
    );
  }
  if (fault === 'storage_full') {
    return new ApiError(
      507,
      'insufficient_storage',
      'The disk holding the database is full, so this change was not saved; free some space and try again.',
      { headers: { 'Retry-After': '30' } },
    );
  }
  return undefined;
}

function toApiError(caught: unknown): ApiError {
  if (caught instanceof ApiError) return caught;
  const fault = databaseFaultError(caught);
  if (fault) return fault;
  // Errors Koa raises itself (bad cookies, URI decoding) carry a 4xx status.
  const status = (caught as { status?: number })?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiError(
      status,
      status === 404 ? 'not_found' : 'bad_request',
      (caught as Error).message || 'Bad request.',
    );
  }
  return new ApiError(500, 'internal_error', 'Something went wrong inside Sandbay; the server log has the details.');
}
