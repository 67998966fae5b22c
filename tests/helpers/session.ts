import { rawRequest, type RawResponse } from './http.ts';

/** An operator's admin key for shared-server tests (explicit keys need at least 32 characters). */
export const operatorKey = 'operator-key-0123456789abcdefghijklmnop';

/**
 * POST /api/v1/session as the inspector page would (its own Origin); returns the response and the cookie pair to send
 * back.
 */
export async function signIn(
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ res: RawResponse; cookie: string; setCookie: string }> {
  const origin = headers.origin ?? new URL(url).origin;
  const res = await rawRequest(url, '/api/v1/session', {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { origin, 'content-type': 'application/json', ...headers },
  });
  const setCookie = res.headers['set-cookie']?.find((c) => c.startsWith('sandbay_session_')) ?? '';
  return { res, cookie: setCookie.split(';')[0], setCookie };
}
