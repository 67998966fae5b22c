import type { Middleware } from 'koa';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { matchesAdminKey } from './admin-key.ts';

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

// Server-rendered pages and APIs the SPA fallback must not shadow (/3ds/: the 3-D Secure challenge page).
const apiPrefixes = ['/api/', '/oauth/', '/catch/', '/3ds/'];

export interface UiOptions {
  /** The built renderer (electron-vite's out/renderer). */
  dir: string;
  /** The admin key's SHA-256: a `?key=` that matches it becomes the admin cookie. */
  adminKeyHash: string;
  cookieName: string;
  /**
   * Whether opening /?key=… sets the admin cookie: on loopback only. A shared server never hands
   * the admin key to a browser (SPEC §9), so there the page ignores it.
   */
  adminCookie: boolean;
}

const missingBuild = `<!doctype html><meta charset="utf-8"><title>Sandbay</title>
<body style="font-family: system-ui; padding: 2rem"><h1>Sandbay is running</h1>
<p>The inspector UI has not been built yet. Run <code>npm run build</code> (or <code>npm start</code>, which builds it) and reload.</p>
<p>The API is at <code>/api/v1</code>; its OpenAPI document is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p>`;

/**
 * Serves the inspector: hashed assets from the renderer build, and index.html for every
 * other page so deep links (/sandboxes/…/deliveries/…) load the app. Opening the ready URL
 * (/?key=…) sets the admin cookie that EventSource and deep links rely on (SPEC §7, §8).
 */
export function staticUi(options: UiOptions): Middleware {
  const root = normalize(options.dir);
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || apiPrefixes.some((p) => ctx.path.startsWith(p)))
      return next();
    const key = ctx.query.key;
    if (options.adminCookie && typeof key === 'string' && matchesAdminKey(key, options.adminKeyHash)) {
      ctx.cookies.set(options.cookieName, key, {
        httpOnly: true,
        sameSite: 'strict',
        path: '/',
        overwrite: true,
      });
    }
    let file: string;
    try {
      file = normalize(join(root, decodeURIComponent(ctx.path)));
    } catch {
      return next(); // malformed percent-encoding: not a file of ours
    }
    if (file.startsWith(root + sep) && existsSync(file) && statSync(file).isFile()) {
      ctx.type = types[extname(file)] ?? 'application/octet-stream';
      if (ctx.path.startsWith('/assets/')) ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.body = readFileSync(file);
      return;
    }
    if (extname(ctx.path) && ctx.path !== '/index.html') return next();
    const index = join(root, 'index.html');
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.body = existsSync(index) ? readFileSync(index) : missingBuild;
  };
}
