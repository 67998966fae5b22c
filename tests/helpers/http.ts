import { request, type IncomingHttpHeaders } from 'node:http';
import { assertDocumented } from './openapi-contract.ts';

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
  baseUrl: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const headers: Record<string, string> = { host: url.host, ...init.headers };
  if (init.body !== undefined) headers['content-length'] ??= String(Buffer.byteLength(init.body));
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method: init.method ?? 'GET', path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }));
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
  baseUrl: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  const res = await unchecked(baseUrl, path, init);
  const contentType = (res.headers['content-type'] as string | undefined) ?? null;
  let body: unknown = res.body;
  if (/json/.test(contentType ?? '') && res.body) {
    try {
      body = JSON.parse(res.body);
    } catch {
      throw new Error(`${init.method ?? 'GET'} ${path} answered ${res.status} ${contentType} that is not JSON: ${res.body.slice(0, 200)}`);
    }
  }
  await assertDocumented(baseUrl, { method: init.method ?? 'GET', path, status: res.status, contentType, body });
  return res;
}

/** The JSON body of a raw response (problem+json included). */
export const jsonOf = (res: RawResponse): any => JSON.parse(res.body);
