import autocannon from 'autocannon';
import { Pool } from 'undici';
import { percentile } from './table.ts';

/** Requests per second at `connections` concurrent connections (autocannon, in this process). */
export async function requestsPerSecond(
  url: string,
  opts: { connections?: number; seconds?: number; headers?: Record<string, string> } = {},
): Promise<number> {
  const result = await autocannon({
    url,
    connections: opts.connections ?? 10,
    duration: opts.seconds ?? 5,
    headers: opts.headers,
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`load test saw ${result.non2xx} non-2xx and ${result.errors} errors at ${url}`);
  return result.requests.average;
}

/** Sequential latency of `run` in ms: p50 and p99 over `count` calls after a warm-up. */
export async function sequentialLatency(
  count: number,
  run: () => Promise<unknown>,
): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < Math.min(50, count); i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await run();
    samples.push(performance.now() - t);
  }
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

/** A keep-alive JSON client for the bench (undici Pool, one origin). */
export function jsonClient(origin: string, headers: Record<string, string> = {}) {
  const pool = new Pool(origin, { connections: 16 });
  return {
    async request(
      method: string,
      path: string,
      body?: unknown,
      extra: Record<string, string> = {},
    ): Promise<{ status: number; body: any }> {
      const res = await pool.request({
        method: method as 'GET',
        path,
        headers: { ...headers, ...extra, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? JSON.parse(text) : null };
    },
    close: () => pool.close(),
  };
}
