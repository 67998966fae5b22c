import type { Middleware } from 'koa';
import { ApiError } from '../../shared/problem.ts';

const loopbackNames = ['localhost', '127.0.0.1', '::1'];

/** Strips the port from a Host header value (handles [::1]:4400). */
export function hostnameOf(host: string): string {
  const trimmed = host.trim().toLowerCase();
  if (trimmed.startsWith('[')) return trimmed.slice(1, trimmed.indexOf(']'));
  return trimmed.replace(/:\d+$/, '');
}

/**
 * DNS-rebinding guard (SPEC §7): a page on evil.example that rebinds its name to
 * 127.0.0.1 still sends Host: evil.example, so anything but a loopback name, the bound
 * address or an --allow-host name is refused.
 */
export function hostGuard(bindHost: string, allowHosts: string[]): Middleware {
  const allowed = new Set([...loopbackNames, hostnameOf(bindHost), ...allowHosts.map(hostnameOf)]);
  return async (ctx, next) => {
    const host = ctx.get('host');
    if (!host || !allowed.has(hostnameOf(host))) {
      throw new ApiError(
        403,
        'host_not_allowed',
        `Host ${host || '(none)'} is not allowed; start Sandbay with --allow-host to accept it.`,
      );
    }
    await next();
  };
}
