// The fault figures (`npm run bench -- faults`): for each fault a shared server meets, on a PostgreSQL
// server of the bench's own with two engines under steady traffic, the time from the end of the fault
// until every engine answers normally again (p50 of 5 runs; target ≤ 5 s) and the requests that got a
// 5xx other than 503 or no answer at all (target 0). The same harness as tests/faults.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFaultServer, type FaultServer } from '../helpers/fault-postgres.ts';
import { createSandbox } from '../helpers/engine.ts';
import { serveReady } from '../helpers/process.ts';
import { registerEndpoint } from '../helpers/webhooks.ts';
import { Probe, sandboxEverywhere, timedCall } from '../faults/harness.ts';
import { LedgerReceiver, startEngines } from '../integration/team/engines.ts';
import { percentile, type BenchRow } from './table.ts';

const section = 'faults';
const runs = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const order = {
  customerId: 'cus_0001',
  items: [{ variantId: 'var_0001', quantity: 1 }],
  shippingAddress: { city: 'İzmir', district: 'Konak' },
};

/** A fault: does its harm and resolves when it is over (the server back, or running again). */
type Fault = (server: FaultServer) => Promise<void>;

const faults: [string, Fault][] = [
  [
    'pg_terminate_backend ×2, 2 s apart',
    async (s) => {
      await s.terminate('sandbay');
      await sleep(2_000);
      await s.terminate('sandbay');
    },
  ],
  ['pg_ctl restart -m fast', (s) => s.restart()],
  [
    'server stopped 5 s',
    async (s) => {
      await s.stop();
      await sleep(5_000);
      await s.start();
    },
  ],
  [
    'SIGSTOP 8 s, SIGCONT',
    async (s) => {
      s.pause();
      await sleep(8_000);
      s.resume();
    },
  ],
];

const badAnswers = (probe: Probe, from: number) =>
  probe.seen.filter((x) => x.sentAt >= from && (x.status === 0 || (x.status >= 500 && x.status !== 503))).length;

async function measure(name: string, fault: Fault): Promise<BenchRow[]> {
  const server = await startFaultServer();
  const receiver = await new LedgerReceiver().start();
  const engines = await startEngines(await server.createDatabase(), 2);
  try {
    const probe = new Probe(await sandboxEverywhere(engines, receiver.url), engines);
    const recoveries: number[] = [];
    const deliveries: number[] = [];
    for (let i = 0; i < runs; i++) {
      await sleep(1_500);
      await fault(server);
      const over = Date.now();
      recoveries.push(await probe.recovered(over, 60_000, 1_000));
      deliveries.push(receiver.arrivals.find((t) => t >= over)! - over);
    }
    await probe.stop();
    const dead = engines.filter((e) => e.child.exitCode !== null).length;
    return [
      {
        section,
        metric: `${name}: every engine normal again, p50 of ${runs}`,
        value: percentile(recoveries, 50) / 1000,
        unit: 's',
        target: '≤ 5 s',
        ok: percentile(recoveries, 50) <= 5_000,
      },
      {
        section,
        metric: `${name}: first delivery received after it, p50`,
        value: percentile(deliveries, 50) / 1000,
        unit: 's',
        target: '≤ 5 s',
        ok: percentile(deliveries, 50) <= 5_000,
      },
      {
        section,
        metric: `${name}: 5xx other than 503, or no answer`,
        value: badAnswers(probe, 0) + dead,
        unit: 'requests',
        target: '0',
        ok: badAnswers(probe, 0) + dead === 0,
      },
    ];
  } finally {
    for (const e of engines) e.child.kill('SIGKILL');
    await Promise.all(engines.map((e) => e.exited));
    await receiver.close();
    await server.close();
  }
}

/**
 * PGlite under a full disk (a 160 MB tmpfs, as root): 5xx other than 503/507, and writes working again once space
 * returns.
 */
async function fullDisk(): Promise<BenchRow[]> {
  if (process.getuid?.() !== 0) return [];
  const mount = mkdtempSync(join(tmpdir(), 'sandbay-bench-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=160m', 'tmpfs', mount]);
  const engine = await serveReady(['--data-dir', join(mount, 'data'), '--port', '0']);
  try {
    const sb = await createSandbox(engine.url);
    const bad: number[] = [];
    const recoveries: number[] = [];
    for (let i = 0; i < runs; i++) {
      const filler = join(mount, 'filler');
      const fd = openSync(filler, 'w');
      try {
        for (;;) writeSync(fd, Buffer.alloc(1 << 20, 1));
      } catch {
        // full
      } finally {
        closeSync(fd);
      }
      for (let n = 0; n < 30; n++) {
        const { status } = await timedCall(engine.url, '/api/v1/orders', sb.token, 'POST', order);
        if (status === 0 || (status >= 500 && status !== 503 && status !== 507)) bad.push(status);
      }
      rmSync(filler);
      const freed = Date.now();
      while ((await timedCall(engine.url, '/api/v1/orders', sb.token, 'POST', order)).status !== 201) await sleep(50);
      recoveries.push(Date.now() - freed);
    }
    return [
      {
        section,
        metric: `PGlite full disk: writes again once space returns, p50 of ${runs}`,
        value: percentile(recoveries, 50) / 1000,
        unit: 's',
        target: '≤ 5 s',
        ok: percentile(recoveries, 50) <= 5_000,
      },
      {
        section,
        metric: 'PGlite full disk: 5xx other than 503/507, or no answer',
        value: bad.length,
        unit: 'requests',
        target: '0',
        ok: bad.length === 0,
      },
    ];
  } finally {
    engine.child.kill('SIGTERM');
    await engine.exited;
    execFileSync('umount', ['-l', mount]);
    rmSync(mount, { recursive: true, force: true });
  }
}

/** Ten advances on ten sandboxes, two on one, and a rush of lists on one engine: 5xx (target 0). */
async function rush(): Promise<BenchRow[]> {
  const server = await startFaultServer();
  const receiver = await new LedgerReceiver(() => 500).start();
  receiver.holdMs = 300;
  const [engine] = await startEngines(await server.createDatabase(), 1);
  try {
    const sandboxes = await Promise.all(
      Array.from({ length: 11 }, async () => {
        const sb = await createSandbox(engine.url);
        await registerEndpoint(sb, receiver.url, ['order.placed']);
        await timedCall(engine.url, '/api/v1/orders', sb.token, 'POST', order);
        return sb;
      }),
    );
    await sleep(1_000);
    const answers = await Promise.all([
      ...[...sandboxes, sandboxes[10]].map((sb) =>
        timedCall(engine.url, '/api/v1/sandbox/clock/advance', sb.token, 'POST', { seconds: 7_200 }),
      ),
      ...Array.from({ length: 60 }, (_, i) =>
        timedCall(engine.url, '/api/v1/webhooks/deliveries', sandboxes[i % 11].token),
      ),
    ]);
    const bad = answers.filter((a) => a.status === 0 || a.status >= 500).length;
    return [
      {
        section,
        metric: '12 advances + 60 lists on one engine (pool of 10): 5xx',
        value: bad,
        unit: 'requests',
        target: '0',
        ok: bad === 0,
      },
    ];
  } finally {
    engine.child.kill('SIGKILL');
    await engine.exited;
    await receiver.close();
    await server.close();
  }
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const [name, fault] of faults) {
    process.stderr.write(`bench: faults: ${name}…\n`);
    rows.push(...(await measure(name, fault)));
  }
  rows.push(...(await rush()));
  rows.push(...(await fullDisk()));
  return rows;
}
