import { request, type IncomingHttpHeaders } from 'node:http';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP request with exactly the headers given (fetch would refuse or rewrite Host,
 * Cookie and Origin, which the security tests need to forge). Host defaults to the URL's.
 */
export function rawRequest(
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

/** The JSON body of a raw response (problem+json included). */
export const jsonOf = (res: RawResponse): any => JSON.parse(res.body);
