import type { Context } from 'koa';
import { hostnameOf } from '../middleware/host-guard.ts';

/**
 * The inspector's sign-in on a shared server: an HttpOnly cookie carrying one sandbox's access
 * token, which the auth layer reads like a bearer token (EventSource cannot send headers).
 * Named with the port like the admin cookie (SPEC §7), so two instances on one host do not collide.
 */
export interface SessionCookie {
  name: string;
  /** The public origin: a session set through it over https is a Secure cookie. */
  publicUrl?: string;
}

/** The cookies' port: the public URL's when there is one (every engine behind it agrees), else the listening port. */
export function cookiePort(listenPort: number, publicUrl?: string): number {
  if (!publicUrl) return listenPort;
  const url = new URL(publicUrl);
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}

// Secure only where the browser sees https: through the public URL (TLS may end at a load
// balancer, so the connection here can be plain http) or on a TLS connection of our own.
function isHttpsForBrowser(ctx: Context, cookie: SessionCookie): boolean {
  if (ctx.secure) return true;
  if (!cookie.publicUrl) return false;
  const url = new URL(cookie.publicUrl);
  return url.protocol === 'https:' && hostnameOf(ctx.get('host')) === hostnameOf(url.host);
}

/** Sets the session cookie for `token`, expiring with it. */
export function setSessionCookie(ctx: Context, cookie: SessionCookie, token: string, expiresAtMs: number): void {
  const secure = isHttpsForBrowser(ctx, cookie);
  // Koa refuses a Secure cookie on a plain connection unless told the browser's side is https.
  if (secure) ctx.cookies.secure = true;
  ctx.cookies.set(cookie.name, token, {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    secure,
    overwrite: true,
    expires: new Date(expiresAtMs),
  });
}

/** Removes the session cookie (sign out). */
export function clearSessionCookie(ctx: Context, cookie: SessionCookie): void {
  const secure = isHttpsForBrowser(ctx, cookie);
  if (secure) ctx.cookies.secure = true;
  ctx.cookies.set(cookie.name, '', {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    secure,
    overwrite: true,
    expires: new Date(0),
  });
}

/** The access token in the session cookie, if any. */
export const sessionTokenOf = (ctx: Context, cookie: SessionCookie): string | undefined =>
  ctx.cookies.get(cookie.name) || undefined;
