// Issue 3's figures: sustained deliveries/s with every attempt recorded, first-attempt latency
// after the API call returns, and a 2 h clock advance over 1,000 failing deliveries — next to
// raw undici signed POSTs to the same receiver, measured in the same run.
import { createHmac } from 'node:crypto';
import { Agent, request } from 'undici';
import { jsonClient } from './load.ts';
import { backendCpuBetween, backendCpuSeconds, engineCpuSeconds } from './cpu.ts';
import { startSandbay } from './spawn.ts';
import { watchStream, type StreamWatch } from './stream-watch.ts';
import { percentile, type BenchRow, sectionRows } from './table.ts';
import { Receiver } from '../helpers/receiver.ts';
import type { SchemeName } from '../../src/shared/schemes.ts';
import { schemeRows } from './schemes.ts';

const row = sectionRows('webhooks');
const order = {
  customerId: 'cus_0004',
  items: [{ variantId: 'var_0001', quantity: 1 }],
  shippingAddress: { city: 'İzmir', district: 'Bornova' },
};

type Api = ReturnType<typeof jsonClient>;

/** A new sandbox whose bench variant has stock for every order we place; with `watched`, an inspector streams it. */
async function newSandbox(url: string, watched = false): Promise<{ api: Api; stream?: StreamWatch }> {
  const anon = jsonClient(url);
  const created = await anon.request('POST', '/api/v1/sandboxes');
  await anon.close();
  const api = jsonClient(url, { authorization: `Bearer ${created.body.credentials.accessToken}` });
  const restocked = await api.request('PATCH', `/api/v1/variants/${order.items[0].variantId}`, { stock: 100_000 });
  if (restocked.status !== 200) throw new Error(`bench: restock failed ${JSON.stringify(restocked.body)}`);
  return { api, stream: watched ? await watchStream(url, created.body.credentials.accessToken) : undefined };
}

async function until(check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('bench: timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function placeOrders(api: Api, count: number): Promise<void> {
  for (let i = 0; i < count; i += 25) {
    const results = await Promise.all(Array.from({ length: 25 }, () => api.request('POST', '/api/v1/orders', order)));
    const failed = results.find((r) => r.status !== 201);
    if (failed) throw new Error(`bench: order failed ${JSON.stringify(failed.body)}`);
  }
}

const noneLeft = (api: Api, status: string) => async () =>
  (await api.request('GET', `/api/v1/webhooks/deliveries?status=${status}&limit=1`)).body.data.length === 0;

/** Ceiling: sign and POST the same kind of body straight to the receiver, 10 at a time. */
export async function rawUndici(url: string, count: number): Promise<number> {
  const agent = new Agent({ connections: 10 });
  const body = JSON.stringify({
    topic: 'order.placed',
    deliveryId: 'dlv_bench',
    tenantId: 'sbx_bench',
    occurredAt: new Date().toISOString(),
    data: order,
  });
  let sent = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (sent < count) {
        sent++;
        const t = Math.floor(Date.now() / 1000);
        const v1 = createHmac('sha256', 'whsec_bench').update(`${t}.${body}`).digest('hex');
        const res = await request(url, {
          method: 'POST',
          dispatcher: agent,
          body,
          headers: { 'content-type': 'application/json', 'x-service-signature': `t=${t},v1=${v1}` },
        });
        await res.body.dump();
      }
    }),
  );
  await agent.close();
  return count / ((performance.now() - started) / 1000);
}

/**
 * Filled in by throughput(), over the deliveries alone (not the orders placed before): the engine's CPU-seconds
 * per 1,000 deliveries, its database round trips per delivery and, on PostgreSQL, the server's CPU-seconds.
 */
export interface DeliveryCost {
  pid: number;
  /** The engine's admin key, for its GET /api/v1/metrics. */
  adminKey: string;
  /** The engine's PostgreSQL database, whose backends' CPU is counted (on this machine's /proc). */
  databaseUrl?: string;
  cpuPer1000?: number;
  roundTripsPerDelivery?: number;
  databaseCpuPer1000?: number;
}

/** The engine run's database round trips so far, all its workers' together. */
async function roundTrips(url: string, adminKey: string): Promise<number> {
  const api = jsonClient(url, { authorization: `Bearer ${adminKey}` });
  const res = await api.request('GET', '/api/v1/metrics');
  await api.close();
  if (res.status !== 200) throw new Error(`bench: metrics failed ${JSON.stringify(res.body)}`);
  return res.body.databaseRoundTrips;
}

/** The readings throughput() takes before and after the deliveries, for `cost`. */
async function costReading(url: string, cost: DeliveryCost) {
  return {
    cpu: engineCpuSeconds(cost.pid),
    roundTrips: await roundTrips(url, cost.adminKey),
    backends: cost.databaseUrl ? await backendCpuSeconds(cost.databaseUrl) : undefined,
  };
}

/**
 * Sustained throughput: deliveries queued behind a disabled endpoint are released at once (signed with
 * `signature`, default Sandbay's). With `cost`, also what they cost the engine process `cost.pid` in CPU.
 */
export async function throughput(
  url: string,
  receiver: Receiver,
  watched = false,
  signature?: SchemeName[],
  cost?: DeliveryCost,
): Promise<number> {
  const { api, stream } = await newSandbox(url, watched);
  const endpoints = 4;
  const ids: string[] = [];
  for (let i = 0; i < endpoints; i++) {
    ids.push(
      (
        await api.request('POST', '/api/v1/webhooks/endpoints', {
          url: receiver.url,
          topics: ['order.placed'],
          enabled: false,
          signature,
        })
      ).body.id,
    );
  }
  const orders = 1250; // × 4 endpoints = 5,000 deliveries
  await placeOrders(api, orders);
  const received = receiver.received.length;
  const started = performance.now();
  const before = cost && (await costReading(url, cost));
  await Promise.all(ids.map((id) => api.request('PATCH', `/api/v1/webhooks/endpoints/${id}`, { enabled: true })));
  // The receiver's count first: asking the engine every 20 ms whether any is pending would take a fifth of the
  // engine's database time away from the deliveries it measures. Then the engine, for every attempt recorded.
  await until(async () => receiver.received.length - received >= orders * endpoints);
  await until(noneLeft(api, 'pending'));
  const seconds = (performance.now() - started) / 1000;
  if (cost) {
    const after = await costReading(url, cost);
    const deliveries = orders * endpoints;
    cost.cpuPer1000 = (after.cpu - before!.cpu) / (deliveries / 1000);
    cost.roundTripsPerDelivery = (after.roundTrips - before!.roundTrips) / deliveries;
    if (after.backends)
      cost.databaseCpuPer1000 = backendCpuBetween(before!.backends!, after.backends) / (deliveries / 1000);
  }
  if (receiver.received.length - received < orders * endpoints) throw new Error('bench: deliveries went missing');
  await stream?.close();
  await api.close();
  return (orders * endpoints) / seconds;
}

/**
 * Time from the API call returning to the request arriving at the receiver; with `watched`, also
 * to its delivery.created reaching an inspector that streams the sandbox.
 */
export async function firstAttemptLatency(
  url: string,
  receiver: Receiver,
  watched = false,
  signature?: SchemeName[],
): Promise<{ p50: number; p99: number; shown?: number[] }> {
  const { api, stream } = await newSandbox(url, watched);
  await api.request('POST', '/api/v1/webhooks/endpoints', { url: receiver.url, topics: ['order.placed'], signature });
  const samples: number[] = [];
  const shown: number[] = [];
  for (let i = 0; i < 220; i++) {
    const n = receiver.received.length;
    const s = stream?.created.length ?? 0;
    await api.request('POST', '/api/v1/orders', order);
    const returned = performance.now();
    await receiver.waitFor(n + 1);
    if (stream) await until(async () => stream.created.length > s, 10_000);
    if (i < 20) continue;
    samples.push(Math.max(0, receiver.received[n].at - returned)); // it may even beat the response
    if (stream) shown.push(stream.created[s] - returned);
  }
  await stream?.close();
  await api.close();
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), shown: stream ? shown : undefined };
}

/** One 2 h advance over 1,000 deliveries to a failing receiver: 4 retries each, all recorded. */
export async function longAdvance(url: string, failing: Receiver): Promise<{ ms: number; attempts: number }> {
  const { api } = await newSandbox(url);
  await api.request('POST', '/api/v1/webhooks/endpoints', { url: failing.url, topics: ['order.placed'] });
  await placeOrders(api, 1000);
  await until(async () =>
    (await api.request('GET', '/api/v1/webhooks/deliveries?limit=100')).body.data.every(
      (d: any) => d.attemptCount === 1,
    ),
  );
  await new Promise((r) => setTimeout(r, 500)); // let every first attempt finish and be recorded
  const before = failing.received.length;
  const started = performance.now();
  const res = await api.request('POST', '/api/v1/sandbox/clock/advance', { seconds: 7200 });
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`advance failed: ${JSON.stringify(res.body)}`);
  if (!(await noneLeft(api, 'pending')())) throw new Error('bench: deliveries still pending after the advance');
  const sample = (await api.request('GET', '/api/v1/webhooks/deliveries?limit=1')).body.data[0];
  const detail = (await api.request('GET', `/api/v1/webhooks/deliveries/${sample.id}`)).body;
  if (detail.attempts.length !== 5) throw new Error('bench: attempts not all recorded');
  await api.close();
  return { ms, attempts: failing.received.length - before };
}

export async function run(): Promise<BenchRow[]> {
  const receiver = await new Receiver().start();
  const failing = await new Receiver().start();
  failing.behaviour = { kind: 'status', status: 500 };
  const sandbay = await startSandbay();
  try {
    const ceiling = await rawUndici(receiver.url, 20_000);
    receiver.received.length = 0; // 20,000 kept requests would slow the receiver's GC for what follows
    const cost: DeliveryCost = { pid: sandbay.pid, adminKey: sandbay.adminKey! };
    const perSecond = await throughput(sandbay.url, receiver, false, undefined, cost);
    const latency = await firstAttemptLatency(sandbay.url, receiver);
    // The same with an inspector streaming the sandbox: its messages go through the shared stream.
    const watchedPerSecond = await throughput(sandbay.url, receiver, true);
    const watched = await firstAttemptLatency(sandbay.url, receiver, true);
    const shown = watched.shown!;
    const advance = await longAdvance(sandbay.url, failing);
    const schemes = await schemeRows(sandbay.url, receiver, { throughput, firstAttemptLatency });
    return [
      row('deliveries/s, 5,000 to a 200 receiver, all recorded', perSecond, '/s', '≥ 2,000 /s', perSecond >= 2000),
      row('ceiling: raw undici signed POSTs, 10 at a time', ceiling, '/s'),
      row('deliveries / that ceiling', (100 * perSecond) / ceiling, '%', '≥ 10 %', perSecond / ceiling >= 0.1),
      row('engine CPU per 1,000 deliveries', cost.cpuPer1000!, 's'),
      row('database round trips per delivery', cost.roundTripsPerDelivery!, ''),
      row('first attempt after the API returns, p50', latency.p50, 'ms', '≤ 5 ms', latency.p50 <= 5),
      row('first attempt after the API returns, p99', latency.p99, 'ms', '≤ 25 ms', latency.p99 <= 25),
      row('deliveries/s with an inspector streaming the sandbox', watchedPerSecond, '/s'),
      row('first attempt p50, sandbox streamed', watched.p50, 'ms', '≤ 5 ms', watched.p50 <= 5),
      row('first attempt p99, sandbox streamed', watched.p99, 'ms', '≤ 25 ms', watched.p99 <= 25),
      row(
        'new delivery on the stream after the API returns, p50',
        percentile(shown, 50),
        'ms',
        '≤ 250 ms',
        percentile(shown, 50) <= 250,
      ),
      row('new delivery on the stream after the API returns, p99', percentile(shown, 99), 'ms'),
      row(
        `2 h advance, 1,000 failing deliveries (${advance.attempts} attempts)`,
        advance.ms / 1000,
        's',
        '≤ 3 s',
        advance.ms <= 3000,
      ),
      ...schemes,
    ];
  } finally {
    await sandbay.stop();
    await receiver.close();
    await failing.close();
  }
}
