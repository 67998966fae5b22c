// Issue 30's memory figures: `sandbay serve --memory` at start-up, idle after it, and under load (orders
// delivered to a receiver), each split by owner (memory-attribution.ts).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { packageRoot } from '../../src/shared/node/package-root.ts';
import { Receiver } from '../helpers/receiver.ts';
import { engineCpuSeconds } from './cpu.ts';
import { jsonClient } from './load.ts';
import { probeAnswer, type MemoryAttribution } from './memory-attribution.ts';
import type { BenchRow } from './table.ts';

const section = process.env.BENCH_MEMORY_DATABASE_URL ? 'memory on PostgreSQL' : 'memory';
const idleMs = 15_000;
const loadMs = 30_000;

interface ProbedEngine {
  url: string;
  token?: string;
  pid: number;
  sample(): Promise<MemoryAttribution>;
  stop(): Promise<void>;
}

/**
 * `sandbay serve --memory` with the probe loaded, as a user's command runs it otherwise; BENCH_CHILD_NODE_ARGS
 * adds node flags (e.g. --max-semi-space-size=8, to measure a V8 setting against the one the launcher adds),
 * BENCH_MEMORY_DATABASE_URL runs it on that PostgreSQL database instead of PGlite.
 */
function startProbed(): Promise<ProbedEngine> {
  const probe = join('tests', 'bench', 'servers', 'memory-probe.ts');
  const extra = process.env.BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const databaseUrl = process.env.BENCH_MEMORY_DATABASE_URL;
  const database = databaseUrl ? ['--database-url', databaseUrl] : ['--memory'];
  const child = spawn(
    process.execPath,
    [...extra, '--import', `./${probe}`, join('bin', 'sandbay.mjs'), 'serve', ...database, '--port', '0', '--quiet'],
    { cwd: packageRoot(), stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const answers: ((m: MemoryAttribution) => void)[] = [];
  let out = '';
  const ready = new Promise<string>((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`sandbay serve exited with ${code}: ${out}`));
    child.once('exit', exited);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith(probeAnswer)) return answers.shift()!(JSON.parse(line.slice(probeAnswer.length)));
      out += `${line}\n`;
      const m = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(line);
      if (!m) return;
      child.removeListener('exit', exited);
      resolve(m[1]);
    });
  });
  const sample = () =>
    new Promise<MemoryAttribution>((resolve) => {
      answers.push(resolve);
      child.stdin!.write('sample\n');
    });
  return ready.then((url) => ({
    url,
    pid: child.pid!,
    sample,
    stop: () =>
      new Promise((done) => {
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  }));
}

/** Orders placed 10 at a time for `ms`, each delivered to two endpoints. */
async function load(url: string, receiver: Receiver, ms: number, onTick: () => Promise<void>): Promise<number> {
  const anon = jsonClient(url);
  const token = (await anon.request('POST', '/api/v1/sandboxes')).body.credentials.accessToken;
  await anon.close();
  const api = jsonClient(url, { authorization: `Bearer ${token}` });
  await api.request('PATCH', '/api/v1/variants/var_0001', { stock: 1_000_000 });
  for (let i = 0; i < 2; i++)
    await api.request('POST', '/api/v1/webhooks/endpoints', { url: receiver.url, topics: ['order.placed'] });
  const order = {
    customerId: 'cus_0004',
    items: [{ variantId: 'var_0001', quantity: 1 }],
    shippingAddress: { city: 'İzmir', district: 'Bornova' },
  };
  const end = Date.now() + ms;
  let orders = 0;
  let nextTick = Date.now();
  while (Date.now() < end) {
    await Promise.all(Array.from({ length: 10 }, () => api.request('POST', '/api/v1/orders', order)));
    orders += 10;
    if (Date.now() >= nextTick) {
      nextTick = Date.now() + 1000;
      await onTick();
    }
  }
  await api.close();
  return orders;
}

function rowsOf(phase: string, m: MemoryAttribution, target?: { peak?: number; rss?: number }): BenchRow[] {
  const row = (metric: string, value: number, limit?: number): BenchRow => ({
    section,
    metric: `${phase}: ${metric}`,
    value,
    unit: 'MB',
    target: limit === undefined ? undefined : `≤ ${limit} MB`,
    ok: limit === undefined ? undefined : value <= limit,
  });
  return [
    row('RSS peak (VmHWM)', m.peakMb, target?.peak),
    row('RSS', m.rssMb, target?.rss),
    row('V8 heap used', m.heapUsedMb),
    row('V8 heap total', m.heapTotalMb),
    row('external (with the WebAssembly memory)', m.externalMb),
    row('array buffers', m.arrayBuffersMb),
    row('PGlite WebAssembly memory, size', m.wasmSizeMb),
    ...m.owners.map((o) => row(`RSS owned by ${o.owner}`, o.mb)),
  ];
}

export async function run(): Promise<BenchRow[]> {
  const receiver = await new Receiver().start();
  const engine = await startProbed();
  try {
    const startup = await engine.sample();
    await new Promise((r) => setTimeout(r, idleMs));
    const idle = await engine.sample(); // its peak covers what start-up does after the ready line
    writeFileSync(`/proc/${engine.pid}/clear_refs`, '5'); // resets VmHWM: the load's peak is its own
    let fullest = idle;
    const cpuBefore = engineCpuSeconds(engine.pid);
    const orders = await load(engine.url, receiver, loadMs, async () => {
      const now = await engine.sample();
      if (now.rssMb > fullest.rssMb || fullest === idle) fullest = now;
      receiver.received.length = 0;
    });
    const cpuPer1000 = (engineCpuSeconds(engine.pid) - cpuBefore) / (orders / 1000);
    const loaded = { ...fullest, peakMb: (await engine.sample()).peakMb };
    return [
      ...rowsOf('ready', startup),
      ...rowsOf(`idle ${idleMs / 1000} s`, idle, { peak: 350, rss: 250 }),
      ...rowsOf(`load, ${orders} orders × 2 endpoints (fullest sample)`, loaded),
      // What a V8 setting costs in CPU (more young-generation collections, say) beside what it saves.
      {
        section,
        metric: 'load: engine CPU per 1,000 orders (their deliveries under way)',
        value: cpuPer1000,
        unit: 's',
      },
    ];
  } finally {
    await engine.stop();
    await receiver.close();
  }
}
