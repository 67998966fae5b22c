// Issue 2's figures: ready time and RSS, sandbox create/reset, order latency and throughput,
// next to bare Koa and Koa + one PGlite lookup measured in the same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonClient, requestsPerSecond, sequentialLatency } from './load.ts';
import { runScript, startCeiling, startSandbay } from './spawn.ts';
import { percentile, type BenchRow, sectionRows } from './table.ts';

const row = sectionRows('server');

async function readiness(): Promise<BenchRow[]> {
  const child = join('tests', 'bench', 'servers', 'ready-child.ts');
  const measure = async (target: string) =>
    JSON.parse(await runScript(child, [target])) as { readyMs: number; rssMb: number };
  const dir = mkdtempSync(join(tmpdir(), 'sandbay-bench-'));
  try {
    const fresh = await measure(join(dir, 'data'));
    const reopened: { readyMs: number; rssMb: number }[] = [];
    for (let i = 0; i < 3; i++) reopened.push(await measure(join(dir, 'data')));
    const memory: { readyMs: number; rssMb: number }[] = [];
    for (let i = 0; i < 3; i++) memory.push(await measure('memory'));
    const med = (xs: { readyMs: number }[]) =>
      percentile(
        xs.map((x) => x.readyMs),
        50,
      );
    const maxRss = Math.max(fresh.rssMb, ...reopened.map((x) => x.rssMb), ...memory.map((x) => x.rssMb));
    return [
      row('ready, fresh data dir', fresh.readyMs / 1000, 's'),
      row('ready, re-opened data dir (median of 3)', med(reopened) / 1000, 's', '≤ 1.0 s', med(reopened) <= 1000),
      row('ready, --memory (median of 3)', med(memory) / 1000, 's', '≤ 1.5 s', med(memory) <= 1500),
      row('RSS after start (max of all)', maxRss, 'MB', '≤ 400 MB', maxRss <= 400),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * GET order against the Koa + one PGlite lookup ceiling, both running, in alternating
 * 3-second rounds: on a shared box whose speed drifts by a third within a minute, only
 * figures taken side by side compare. Each round's ratio is GET order over the ceiling
 * measured right after it; the median round is reported.
 */
async function againstLookupCeiling(url: string, headers: Record<string, string>, rounds = 5) {
  const lookup = await startCeiling('koa-pglite');
  try {
    await requestsPerSecond(url, { headers, seconds: 2 }); // warm both up (JIT, caches)
    await requestsPerSecond(lookup.url, { seconds: 2 });
    const route: number[] = [];
    const ceiling: number[] = [];
    const ratios: number[] = [];
    for (let i = 0; i < rounds; i++) {
      route.push(await requestsPerSecond(url, { headers, seconds: 3 }));
      ceiling.push(await requestsPerSecond(lookup.url, { seconds: 3 }));
      ratios.push((100 * route[i]) / ceiling[i]);
    }
    return {
      rps: percentile(route, 50),
      lookupRps: percentile(ceiling, 50),
      ratio: percentile(ratios, 50),
      worst: Math.min(...ratios),
    };
  } finally {
    await lookup.stop();
  }
}

async function sandboxesAndOrders(): Promise<BenchRow[]> {
  const sandbay = await startSandbay();
  try {
    const anon = jsonClient(sandbay.url);
    const createMs: number[] = [];
    let token = '';
    for (let i = 0; i < 15; i++) {
      const t = performance.now();
      const res = await anon.request('POST', '/api/v1/sandboxes');
      createMs.push(performance.now() - t);
      token = res.body.credentials.accessToken;
    }
    const api = jsonClient(sandbay.url, { authorization: `Bearer ${token}` });
    const resetMs: number[] = [];
    for (let i = 0; i < 10; i++) resetMs.push((await api.request('POST', '/api/v1/sandbox/reset')).body.durationMs);

    const get = await sequentialLatency(1000, () => api.request('GET', '/api/v1/orders/ord_0042'));
    const order = {
      customerId: 'cus_0003',
      items: [{ variantId: 'var_0005', quantity: 1 }],
      shippingAddress: { city: 'Ankara', district: 'Çankaya' },
    };
    const post = await sequentialLatency(300, () => api.request('POST', '/api/v1/orders', order));
    await api.request('POST', '/api/v1/sandbox/reset');

    await Promise.all([anon.close(), api.close()]);
    const { rps, lookupRps, ratio, worst } = await againstLookupCeiling(`${sandbay.url}/api/v1/orders/ord_0042`, {
      authorization: `Bearer ${token}`,
    });

    const constant = await startCeiling('koa-constant');
    const koaRps = await requestsPerSecond(constant.url).finally(() => constant.stop());

    const createMed = percentile(createMs.slice(3), 50);
    const resetMed = percentile(resetMs, 50);
    return [
      row('sandbox create + seed (median, HTTP)', createMed, 'ms', '≤ 150 ms', createMed <= 150),
      row('sandbox reset (median, server-side)', resetMed, 'ms', '≤ 100 ms', resetMed <= 100),
      row('GET order p50 (sequential)', get.p50, 'ms', '≤ 1 ms', get.p50 <= 1),
      row('GET order p99 (sequential)', get.p99, 'ms', '≤ 5 ms', get.p99 <= 5),
      row('POST order p50 (sequential)', post.p50, 'ms'),
      row('POST order p99 (sequential)', post.p99, 'ms'),
      row('GET order, 10 connections (median of 5 rounds)', rps, 'req/s', '≥ 3,000 req/s', rps >= 3000),
      row('ceiling: Koa + one PGlite lookup (interleaved)', lookupRps, 'req/s'),
      row('GET order / that ceiling (median round)', ratio, '%', '≥ 95 %', ratio >= 95),
      row('GET order / that ceiling (worst round)', worst, '%'),
      row('ceiling: bare Koa constant route', koaRps, 'req/s'),
    ];
  } finally {
    await sandbay.stop();
  }
}

export async function run(): Promise<BenchRow[]> {
  return [...(await readiness()), ...(await sandboxesAndOrders())];
}
