import { isIP } from 'node:net';

/** A start-up option that cannot work; the message says what to pass instead. */
export class StartupError extends Error {}

/** Shortest explicit admin key accepted: as strong as the generated one (sbk_ + 32 random characters). */
const minAdminKeyLength = 32;

/** True for names and addresses only this machine can reach (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  return name === '::1' || /^::ffff:127\./.test(name);
}

/**
 * Checks --public-url: an absolute http(s) URL of an origin (no path but /, no query, no
 * credentials), because cookies, Host/Origin checks and every link are built from it.
 * Returns the origin, without a trailing slash.
 */
export function parsePublicUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new StartupError(
      `--public-url must be an absolute http(s) URL such as https://sandbay.example.com, not ${JSON.stringify(value)}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new StartupError(`--public-url must use http or https, not ${url.protocol.slice(0, -1)}`);
  if (url.username || url.password) throw new StartupError('--public-url must not carry a user name or password');
  if (url.pathname !== '/' || url.search || url.hash || /[?#]/.test(value)) {
    throw new StartupError(
      `--public-url is an origin (scheme, host and port) with no path, query or fragment: try ${url.origin}`,
    );
  }
  return url.origin;
}

/** Checks an explicit admin key: long enough to be a secret, and safe in an Authorization header. */
export function checkAdminKey(key: string): string {
  if (!/^[\x21-\x7e]+$/.test(key)) throw new StartupError('--admin-key must be printable ASCII with no spaces');
  if (key.length < minAdminKeyLength) {
    throw new StartupError(`--admin-key must be at least ${minAdminKeyLength} characters (try: openssl rand -hex 32)`);
  }
  return key;
}

/** How the server faces its users: on one machine, or shared beyond it. */
export interface Exposure {
  /**
   * Beyond loopback: the admin key stays the operator's secret (never in a URL, a page or a
   * cookie) and browsers sign in with one sandbox's credentials (SPEC §9).
   */
  shared: boolean;
  /** The origin users and receivers see (--public-url), if one was given. */
  publicUrl?: string;
  /** The explicit admin key (--admin-key), if one was given. */
  adminKey?: string;
}

/**
 * Decides the exposure from --host, --public-url and --admin-key. A server is shared when it
 * binds beyond loopback (a wildcard 0.0.0.0 included) or is published under a non-loopback
 * URL (a reverse proxy on the same machine reaches other people too); then an explicit
 * admin key is required, with or without a database server.
 */
export function resolveExposure(options: { host: string; publicUrl?: string; adminKey?: string }): Exposure {
  const publicUrl = options.publicUrl ? parsePublicUrl(options.publicUrl) : undefined;
  const adminKey = options.adminKey === undefined ? undefined : checkAdminKey(options.adminKey);
  const reason = !isLoopbackHost(options.host)
    ? `binds ${options.host}, beyond loopback`
    : publicUrl && !isLoopbackHost(new URL(publicUrl).hostname)
      ? `is published at ${publicUrl}`
      : undefined;
  if (reason && !adminKey) {
    throw new StartupError(
      `Sandbay ${reason}, so its admin key must be your secret rather than printed for browsers: ` +
        `pass --admin-key KEY (or set SANDBAY_ADMIN_KEY; at least ${minAdminKeyLength} characters, e.g. from openssl rand -hex 32). ` +
        "Teammates then sign in to the inspector with their own sandbox's credentials.",
    );
  }
  return { shared: Boolean(reason), publicUrl, adminKey };
}
