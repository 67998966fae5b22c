// What live-stream clients that stop reading cost the engine (`npm run bench -- slow-readers`): the engine's
// resident memory under the same steady load (orders at a fixed rate, each delivered to four endpoints on a
// loopback receiver: twelve stream messages an order; the sandbox streamed by one client that reads),
// once without and once with 30 more clients
// of that sandbox that never read their socket. A client cut off comes back after a second, asking with
// Last-Event-ID for the 9,000 messages before the newest (nearly the most a client can make the engine
// send it: further behind, it gets `reset`). Each run is a fresh engine.
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { Receiver } from '../helpers/receiver.ts';
import { jsonClient } from './load.ts';
import { startSandbay } from './spawn.ts';
import type { BenchRow } from './table.ts';

const section = 'slow-readers';
const clients = 30;
const ordersPerSecond = Number(process.env.BENCH_SLOW_READERS_RATE ?? 100);
const seconds = Number(process.env.BENCH_SLOW_READERS_SECONDS ?? 60);
const endpoints = 4;
const order = { customerId: 'cus_0004', items: [{ variantId: 'var_0001', quantity: 1 }], shippingAddress: { city: 'İzmir', district: 'Bornova' } };

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

interface Run {
  stopped: boolean;
  /** Times the engine closed a non-reading client. */
  cut: number;
}

/** A client that reads the response head and then nothing; it reconnects a second after being cut off. */
function nonReader(url: string, token: string, resumeFrom: () => string, run: Run): void {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  socket.on('error', () => {});
  socket.once('data', () => socket.pause());
  socket.on('close', () => {
    if (run.stopped) return;
    run.cut++;
    setTimeout(() => nonReader(url, token, resumeFrom, run), 1000);
  });
  socket.write(`GET /api/v1/events/stream HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\nLast-Event-ID: ${resumeFrom()}\r\n\r\n`);
}

/** A client that reads everything: the ids of the messages it got, the newest last. */
async function reader(url: string, token: string): Promise<{ ids: string[]; close(): void }> {
  const controller = new AbortController();
  const res = await fetch(`${url}/api/v1/events/stream`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
  const ids: string[] = [];
  void (async () => {
    let text = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      text += Buffer.from(chunk).toString();
      const blocks = text.split('\n\n');
      text = blocks.pop()!;
      for (const block of blocks) {
        const id = /^id: ?(\S+)$/m.exec(block)?.[1];
        if (id) ids.push(id);
      }
      if (ids.length > 20_000) ids.splice(0, 10_000);
    }
  })().catch(() => {});
  return { ids, close: () => controller.abort() };
}

/** One run on a fresh engine: peak and final RSS (MB) under the steady load, with `readers` non-reading clients. */
async function measure(readers: number, receiver: Receiver): Promise<{ peak: number; end: number; cut: number; placed: number }> {
  const sandbay = await startSandbay();
  const run: Run = { stopped: false, cut: 0 };
  try {
    const anon = jsonClient(sandbay.url);
    const created = await anon.request('POST', '/api/v1/sandboxes');
    await anon.close();
    const token = created.body.credentials.accessToken as string;
    const api = jsonClient(sandbay.url, { authorization: `Bearer ${token}` });
    await api.request('PATCH', `/api/v1/variants/${order.items[0].variantId}`, { stock: 1_000_000 });
    for (let i = 0; i < endpoints; i++) await api.request('POST', '/api/v1/webhooks/endpoints', { url: receiver.url, topics: ['order.placed'] });
    const watcher = await reader(sandbay.url, token);
    await api.request('POST', '/api/v1/orders', order);
    while (watcher.ids.length === 0) await new Promise((r) => setTimeout(r, 10));
    const resumeFrom = () => watcher.ids[Math.max(0, watcher.ids.length - 9_000)];
    for (let i = 0; i < readers; i++) nonReader(sandbay.url, token, resumeFrom, run);
    let peak = 0;
    let placed = 0;
    const samples: number[] = [];
    const started = performance.now();
    for (let n = 0; performance.now() - started < seconds * 1000; n++) {
      const wait = started + (n * 1000) / ordersPerSecond - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      void api.request('POST', '/api/v1/orders', order).then((res) => void (res.status === 201 && placed++));
      if (n % 25 === 0) {
        samples.push(rssMb(sandbay.pid));
        peak = Math.max(peak, samples.at(-1)!);
      }
    }
    const placedInTime = placed;
    run.stopped = true;
    watcher.close();
    await api.close();
    const end = samples.slice(-20).sort((x, y) => x - y)[10] ?? 0;
    return { peak, end, cut: run.cut, placed: placedInTime / seconds };
  } finally {
    run.stopped = true;
    await sandbay.stop();
  }
}

export async function run(): Promise<BenchRow[]> {
  const receiver = await new Receiver().start();
  try {
    const without = await measure(0, receiver);
    receiver.received.length = 0;
    const withReaders = await measure(clients, receiver);
    const delta = withReaders.peak - without.peak;
    return [
      { section, metric: `engine RSS peak, ${ordersPerSecond} orders/s asked (${without.placed.toFixed(0)} placed) for ${seconds} s, one stream reader`, value: without.peak, unit: 'MB' },
      { section, metric: `the same (${withReaders.placed.toFixed(0)}/s) with ${clients} more clients that never read (cut off ${withReaders.cut} times)`, value: withReaders.peak, unit: 'MB' },
      { section, metric: `what those ${clients} clients cost (peak against peak)`, value: delta, unit: 'MB', target: '≤ 60 MB', ok: delta <= 60 },
      { section, metric: 'the same at the end of the run (median of the last samples)', value: withReaders.end - without.end, unit: 'MB' },
    ];
  } finally {
    await receiver.close();
  }
}
