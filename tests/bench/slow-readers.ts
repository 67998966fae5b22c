// What live-stream clients that stop reading cost the engine (`npm run bench -- slow-readers`): one engine
// process under a steady load (orders at a fixed rate, each delivered to four endpoints on a loopback
// receiver: twelve stream messages an order; the sandbox streamed by one client that reads), its resident
// memory sampled through a warm-up, then a phase with only that reader, then a phase with 30 more clients
// of the sandbox that never read their socket. A client cut off comes back after a second, asking with
// Last-Event-ID for the 9,000 messages before the newest (nearly the most a client can make the engine send
// it: further behind, it gets `reset`). Memory is compared within one process, since two engines' RSS
// differs by tens of MB run to run; as RSS seldom shrinks, the second phase's figure is an upper bound.
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { Receiver } from '../helpers/receiver.ts';
import { jsonClient } from './load.ts';
import { startSandbay } from './spawn.ts';
import type { BenchRow } from './table.ts';

const section = 'slow-readers';
const clients = 30;
const ordersPerSecond = Number(process.env.BENCH_SLOW_READERS_RATE ?? 100);
const phaseSeconds = Number(process.env.BENCH_SLOW_READERS_SECONDS ?? 90);
const warmUpSeconds = 20;
const endpoints = 4;
const order = {
  customerId: 'cus_0004',
  items: [{ variantId: 'var_0001', quantity: 1 }],
  shippingAddress: { city: 'İzmir', district: 'Bornova' },
};

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
  socket.write(
    `GET /api/v1/events/stream HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\nLast-Event-ID: ${resumeFrom()}\r\n\r\n`,
  );
}

/** A client that reads everything: the ids of the messages it got, the newest last. */
async function reader(url: string, token: string): Promise<{ ids: string[]; close(): void }> {
  const controller = new AbortController();
  const res = await fetch(`${url}/api/v1/events/stream`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
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

interface Phase {
  /** Highest RSS sampled, MB. */
  peak: number;
  /** Median RSS of the phase's last third, MB. */
  settled: number;
  /** Orders placed per second. */
  placed: number;
}

/** Places orders at the fixed rate for `seconds`, sampling the engine's RSS. */
async function steadyLoad(api: ReturnType<typeof jsonClient>, pid: number, seconds: number): Promise<Phase> {
  const samples: number[] = [];
  let placed = 0;
  let open = 0;
  const started = performance.now();
  for (let n = 0; performance.now() - started < seconds * 1000; n++) {
    const wait = started + (n * 1000) / ordersPerSecond - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    if (n % 25 === 0) samples.push(rssMb(pid));
    // An engine slower than the rate (a busy box) skips orders rather than queue them without end.
    if (open >= 16) continue;
    open++;
    void api.request('POST', '/api/v1/orders', order).then((res) => {
      open--;
      if (res.status !== 201) throw new Error(`bench: order failed ${res.status} ${JSON.stringify(res.body)}`);
      placed++;
    });
  }
  const last = samples.slice(-Math.ceil(samples.length / 3)).sort((x, y) => x - y);
  return { peak: Math.max(...samples), settled: last[Math.floor(last.length / 2)], placed: placed / seconds };
}

export async function run(): Promise<BenchRow[]> {
  const receiver = await new Receiver().start();
  const sandbay = await startSandbay();
  const runState: Run = { stopped: false, cut: 0 };
  try {
    const anon = jsonClient(sandbay.url);
    const created = await anon.request('POST', '/api/v1/sandboxes');
    await anon.close();
    const token = created.body.credentials.accessToken as string;
    const api = jsonClient(sandbay.url, { authorization: `Bearer ${token}` });
    const restocked = await api.request('PATCH', `/api/v1/variants/${order.items[0].variantId}`, { stock: 1_000_000 });
    if (restocked.status !== 200) throw new Error(`bench: restock failed ${JSON.stringify(restocked.body)}`);
    for (let i = 0; i < endpoints; i++)
      await api.request('POST', '/api/v1/webhooks/endpoints', { url: receiver.url, topics: ['order.placed'] });
    const watcher = await reader(sandbay.url, token);
    await api.request('POST', '/api/v1/orders', order);
    while (watcher.ids.length === 0) await new Promise((r) => setTimeout(r, 10));
    await steadyLoad(api, sandbay.pid, warmUpSeconds);
    receiver.received.length = 0;
    const alone = await steadyLoad(api, sandbay.pid, phaseSeconds);
    receiver.received.length = 0;
    const resumeFrom = () => watcher.ids[Math.max(0, watcher.ids.length - 9_000)];
    for (let i = 0; i < clients; i++) nonReader(sandbay.url, token, resumeFrom, runState);
    const crowded = await steadyLoad(api, sandbay.pid, phaseSeconds);
    runState.stopped = true;
    watcher.close();
    await api.close();
    const rate = (p: Phase) => `${p.placed.toFixed(0)} orders/s`;
    return [
      {
        section,
        metric: `engine RSS, ${phaseSeconds} s at ${rate(alone)} with one stream reader: peak`,
        value: alone.peak,
        unit: 'MB',
      },
      {
        section,
        metric: `then ${phaseSeconds} s at ${rate(crowded)} with ${clients} more clients that never read (cut off ${runState.cut} times): peak`,
        value: crowded.peak,
        unit: 'MB',
      },
      {
        section,
        metric: `what those ${clients} clients cost: peak against peak`,
        value: crowded.peak - alone.peak,
        unit: 'MB',
        target: '≤ 60 MB',
        ok: crowded.peak - alone.peak <= 60,
      },
      {
        section,
        metric: `the same, settled (median of each phase's last third)`,
        value: crowded.settled - alone.settled,
        unit: 'MB',
      },
    ];
  } finally {
    runState.stopped = true;
    await sandbay.stop();
    await receiver.close();
  }
}
