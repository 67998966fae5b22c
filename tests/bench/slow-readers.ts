// What live-stream clients that stop reading cost the engine (`npm run bench -- slow-readers`): the engine's
// resident memory under the same steady load (orders at a fixed rate, each delivered to a loopback
// receiver), once with no stream client and once with 30 clients of the loaded sandbox that never read
// their socket. A dropped client comes back after a second, asking with Last-Event-ID for everything
// since the run began (the most a client can make the engine send it). Each run is a fresh engine.
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { Receiver } from '../helpers/receiver.ts';
import { jsonClient } from './load.ts';
import { startSandbay } from './spawn.ts';
import type { BenchRow } from './table.ts';

const section = 'slow-readers';
const clients = 30;
const ordersPerSecond = Number(process.env.BENCH_SLOW_READERS_RATE ?? 150);
const seconds = Number(process.env.BENCH_SLOW_READERS_SECONDS ?? 40);
const order = { customerId: 'cus_0004', items: [{ variantId: 'var_0001', quantity: 1 }], shippingAddress: { city: 'İzmir', district: 'Bornova' } };

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** A client that reads the response head and then nothing; it reconnects a second after being cut off. */
function nonReader(url: string, token: string, lastEventId: string, stopped: () => boolean): void {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  socket.on('error', () => {});
  socket.once('data', () => socket.pause());
  socket.on('close', () => {
    if (!stopped()) setTimeout(() => nonReader(url, token, lastEventId, stopped), 1000);
  });
  socket.write(`GET /api/v1/events/stream HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\nLast-Event-ID: ${lastEventId}\r\n\r\n`);
}

/** One run on a fresh engine: peak and final RSS (MB) under the steady load, with `readers` non-reading clients. */
async function measure(readers: number, receiver: Receiver): Promise<{ peak: number; end: number }> {
  const sandbay = await startSandbay();
  let stop = false;
  try {
    const anon = jsonClient(sandbay.url);
    const created = await anon.request('POST', '/api/v1/sandboxes');
    await anon.close();
    const token = created.body.credentials.accessToken as string;
    const api = jsonClient(sandbay.url, { authorization: `Bearer ${token}` });
    await api.request('PATCH', `/api/v1/variants/${order.items[0].variantId}`, { stock: 1_000_000 });
    await api.request('POST', '/api/v1/webhooks/endpoints', { url: receiver.url, topics: ['order.placed'] });
    // The stream's number at the start: every reconnect asks for everything since.
    await api.request('POST', '/api/v1/orders', order);
    const first = await firstId(sandbay.url, token);
    for (let i = 0; i < readers; i++) nonReader(sandbay.url, token, first, () => stop);
    let peak = 0;
    const samples: number[] = [];
    const started = performance.now();
    for (let n = 0; performance.now() - started < seconds * 1000; n++) {
      const due = started + (n * 1000) / ordersPerSecond;
      if (due > performance.now()) await new Promise((r) => setTimeout(r, due - performance.now()));
      void api.request('POST', '/api/v1/orders', order);
      if (n % 25 === 0) {
        samples.push(rssMb(sandbay.pid));
        peak = Math.max(peak, samples.at(-1)!);
      }
    }
    stop = true;
    await api.close();
    const end = samples.slice(-20).sort((x, y) => x - y)[10] ?? 0;
    return { peak, end };
  } finally {
    stop = true;
    await sandbay.stop();
  }
}

/** The id of the newest message the sandbox's stream holds now (a client opens it and reads one message). */
async function firstId(url: string, token: string): Promise<string> {
  const controller = new AbortController();
  const res = await fetch(`${url}/api/v1/events/stream`, { headers: { authorization: `Bearer ${token}`, 'last-event-id': '0' }, signal: controller.signal });
  const reader = res.body!.getReader();
  let text = '';
  while (!/^id: ?(\S+)$/m.test(text)) text += new TextDecoder().decode((await reader.read()).value);
  controller.abort();
  return /^id: ?(\S+)$/m.exec(text)![1];
}

export async function run(): Promise<BenchRow[]> {
  const receiver = await new Receiver().start();
  try {
    const without = await measure(0, receiver);
    receiver.received.length = 0;
    const withReaders = await measure(clients, receiver);
    const delta = withReaders.peak - without.peak;
    return [
      { section, metric: `engine RSS peak, ${ordersPerSecond} orders/s for ${seconds} s, no stream client`, value: without.peak, unit: 'MB' },
      { section, metric: `engine RSS peak, the same with ${clients} stream clients that never read`, value: withReaders.peak, unit: 'MB' },
      { section, metric: `what those ${clients} clients cost (peak against peak)`, value: delta, unit: 'MB', target: '≤ 60 MB', ok: delta <= 60 },
      { section, metric: `the same at the end of the run (median of the last samples)`, value: withReaders.end - without.end, unit: 'MB' },
    ];
  } finally {
    await receiver.close();
  }
}
