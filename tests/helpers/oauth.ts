import { createHash, randomBytes } from 'node:crypto';
import type { ApiResponse, TestSandbox } from './engine.ts';
import { assertDocumented, bodyOf } from './openapi-contract.ts';

/** How to send a /oauth/token request: form body (default), JSON body, or HTTP Basic client auth. */
export interface TokenRequestInit {
  json?: boolean;
  basic?: { clientId: string; clientSecret: string };
  headers?: Record<string, string>;
}

/** POSTs to /oauth/token and parses the JSON answer. */
export async function tokenRequest(
  url: string,
  params: Record<string, string>,
  init: TokenRequestInit = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.basic)
    headers.authorization = `Basic ${Buffer.from(`${init.basic.clientId}:${init.basic.clientSecret}`).toString('base64')}`;
  headers['content-type'] ??= init.json ? 'application/json' : 'application/x-www-form-urlencoded';
  const body = init.json ? JSON.stringify(params) : new URLSearchParams(params).toString();
  const res = await fetch(`${url}/oauth/token`, { method: 'POST', headers, body });
  const text = await res.text();
  const parsed = bodyOf(res.headers.get('content-type'), text);
  await assertDocumented(url, {
    method: 'POST',
    path: '/oauth/token',
    status: res.status,
    contentType: res.headers.get('content-type'),
    body: parsed,
  });
  return { status: res.status, headers: res.headers, body: parsed };
}

/** A client_credentials access token for the sandbox, optionally with fewer scopes or a short life. */
export async function mintToken(url: string, sb: TestSandbox, extra: Record<string, string> = {}): Promise<string> {
  const res = await tokenRequest(url, {
    grant_type: 'client_credentials',
    client_id: sb.clientId,
    client_secret: sb.clientSecret,
    ...extra,
  });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token;
}

/** A PKCE verifier and its S256 challenge (RFC 7636). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Asserts the RFC 6749 §5.2 error shape; returns the body. */
export function oauthError(res: ApiResponse, status: number, error: string): any {
  const body = res.body;
  if (res.status !== status || body?.error !== error || typeof body.error_description !== 'string') {
    throw new Error(`expected ${status} ${error}, got ${res.status} ${JSON.stringify(body)}`);
  }
  if (res.headers.get('cache-control') !== 'no-store') throw new Error('OAuth error without Cache-Control: no-store');
  if (!res.headers.get('content-type')?.startsWith('application/json'))
    throw new Error(`OAuth error as ${res.headers.get('content-type')}`);
  return body;
}

const unescapeHtml = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|#39);/g, (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);

/** The hidden fields of the consent page's form, as the browser would post them. */
export function consentFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    fields[unescapeHtml(m[1])] = unescapeHtml(m[2]);
  return fields;
}

/**
 * Walks /oauth/authorize like a browser: GET the consent page, then press Approve or Deny.
 * Returns the redirect's Location (the client's redirect_uri with code or error, and state).
 */
export async function authorize(
  url: string,
  params: Record<string, string>,
  decision: 'approve' | 'deny' = 'approve',
): Promise<URL> {
  const pagePath = `/oauth/authorize?${new URLSearchParams(params)}`;
  const page = await fetch(url + pagePath, { redirect: 'manual' });
  const html = await page.text();
  await assertDocumented(url, {
    method: 'GET',
    path: pagePath,
    status: page.status,
    contentType: page.headers.get('content-type'),
    body: html,
  });
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${html}`);
  const form = new URLSearchParams({ ...consentFields(html), decision });
  const res = await fetch(`${url}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    body: form,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  const text = await res.text();
  await assertDocumented(url, {
    method: 'POST',
    path: '/oauth/authorize',
    status: res.status,
    contentType: res.headers.get('content-type'),
    body: text,
  });
  const location = res.headers.get('location');
  if (res.status !== 303 || !location) throw new Error(`decision (303 See Other expected): ${res.status} ${text}`);
  return new URL(location);
}

/**
 * Registers an OAuth client of the sandbox (public: no secret, PKCE) and returns it, with its secret when confidential.
 */
export async function registerClient(
  sb: TestSandbox,
  body: { public?: boolean; name?: string; redirectUris?: string[]; scope?: string } = {},
): Promise<any> {
  const res = await sb.api('/api/v1/sandbox/oauth-clients', { body });
  if (res.status !== 201) throw new Error(`client registration failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
