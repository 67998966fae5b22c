import { request, type IncomingHttpHeaders } from 'node:http';
import { assertDocumented, bodyOf } from './openapi-contract.ts';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP request with exactly the headers given (fetch would refuse or rewrite Host,
 * Cookie and Origin, which the security tests need to forge). Host defaults to the URL's.
 */
function unchecked(
  baseUrl: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const headers: Record<string, string> = { host: url.host, ...init.headers };
  if (init.body !== undefined) headers['content-length'] ??= String(Buffer.byteLength(init.body));
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method: init.method ?? 'GET', path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/**
 * rawRequest, and the response must be one the engine's OpenAPI document describes
 * (openapi-contract.ts): forged Host and Origin headers, hostile paths and bodies included.
 */
export async function rawRequest(
  baseUrl: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  const res = await unchecked(baseUrl, path, init);
  const contentType = (res.headers['content-type'] as string | undefined) ?? null;
  await assertDocumented(baseUrl, {
    method: init.method ?? 'GET',
    path,
    status: res.status,
    contentType,
    body: bodyOf(contentType, res.body),
  });
  return res;
}

/** fetch, and the response must be one the engine's OpenAPI document describes; the caller can still read the body. */
export async function checkedFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, init);
  const asked = new URL(url);
  // A followed redirect left the engine's 3xx unseen; the page it led to is checked if the engine served it.
  const answered = new URL(res.url || url);
  if (answered.origin === asked.origin) {
    const contentType = res.headers.get('content-type');
    await assertDocumented(asked.origin, {
      method: res.redirected ? 'GET' : (init.method ?? 'GET'),
      path: answered.pathname + answered.search,
      status: res.status,
      contentType,
      body: bodyOf(contentType, await res.clone().text()),
    });
  }
  return res;
}

/** The JSON body of a raw response (problem+json included). */
export const jsonOf = (res: RawResponse): any => JSON.parse(res.body);

/** A raw response in the shape the engine helpers' problem() checks. */
export const asApiResponse = (res: RawResponse) => ({
  status: res.status,
  headers: new Headers(Object.entries(res.headers).map(([k, v]) => [k, String(v)])),
  body: JSON.parse(res.body),
});
