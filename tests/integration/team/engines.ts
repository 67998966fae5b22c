// Shared by the team tests: engine processes on one PostgreSQL database, and a receiver that keeps a
// ledger of what it was sent (per delivery, and how many requests were open at once).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from '../../../src/shared/node/package-root.ts';
import { createSandbox, type TestSandbox } from '../../helpers/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/postgres.ts';
import { spawnCollecting, waitForReady, type ServeProcess } from '../../helpers/process.ts';
import { through } from '../../helpers/team.ts';

const order = {
  customerId: 'cus_0001',
  items: [{ variantId: 'var_0001', quantity: 1 }],
  shippingAddress: { city: 'İzmir', district: 'Konak' },
};

export type Engine = ServeProcess & { url: string; adminKey?: string };

/** Starts `count` engines (`sandbay serve --database-url`) on one database; `env` tunes their leases and poll. */
export async function startEngines(url: string, count: number, env: Record<string, string> = {}): Promise<Engine[]> {
  const started = Array.from({ length: count }, () =>
    spawnCollecting(
      process.execPath,
      [join(packageRoot(), 'bin', 'sandbay.mjs'), 'serve', '--quiet', '--memory', '--port', '0', '--database-url', url],
      { env: { ...process.env, NO_COLOR: '1', SANDBAY_DATABASE_URL: undefined, ...env } },
    ),
  );
  return Promise.all(started.map(async (proc) => Object.assign(proc, await waitForReady(proc, 120_000))));
}

/** A database and the engines on it, stopped and dropped by `close()`. */
export async function team(
  count: number,
  env: Record<string, string> = {},
): Promise<{ engines: Engine[]; database: TestDatabase; close(): Promise<void> }> {
  const database = await createTestDatabase();
  const engines = await startEngines(database.url, count, env).catch(async (err) => {
    await database.drop();
    throw err;
  });
  return {
    engines,
    database,
    async close() {
      for (const e of engines) if (e.child.exitCode === null && e.child.signalCode === null) e.child.kill('SIGKILL');
      await Promise.all(engines.map((e) => e.exited));
      await database.drop();
    },
  };
}

/**
 * The same sandbox seen through each engine (its token works on all of them: they share the database),
 * with stock for every order a test places.
 */
export async function sandboxOnAll(engines: Engine[]): Promise<TestSandbox[]> {
  const sb = await createSandbox(engines[0].url);
  const restocked = await sb.api(`/api/v1/variants/${order.items[0].variantId}`, {
    method: 'PATCH',
    body: { stock: 1_000_000 },
  });
  if (restocked.status !== 200) throw new Error(`restock failed: ${JSON.stringify(restocked.body)}`);
  return engines.map((e) => through(e, sb));
}

/** Places `count` orders spread over the given views of one sandbox, a few at a time on each. */
export async function placeOrders(views: TestSandbox[], count: number, perEngine = 4): Promise<void> {
  let next = 0;
  await Promise.all(
    views.flatMap((view) =>
      Array.from({ length: perEngine }, async () => {
        while (next < count) {
          next++;
          const res = await view.api('/api/v1/orders', { body: order });
          if (res.status !== 201) throw new Error(`order failed: ${res.status} ${JSON.stringify(res.body)}`);
        }
      }),
    ),
  );
}

/** Answers each request as `answer(deliveryId, nth request for it)` says, after `holdMs`. */
export class LedgerReceiver {
  /** Requests received per delivery id. */
  readonly seen = new Map<string, number>();
  /** Date.now() of each request's arrival, in order. */
  readonly arrivals: number[] = [];
  open = 0;
  maxOpen = 0;
  holdMs = 0;
  private server?: Server;

  constructor(private readonly answer: (deliveryId: string, nth: number) => number = () => 200) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.open++;
      this.maxOpen = Math.max(this.maxOpen, this.open);
      req.resume();
      req.on('end', () => {
        this.arrivals.push(Date.now());
        const id = String(req.headers['x-service-delivery-id']);
        const nth = (this.seen.get(id) ?? 0) + 1;
        this.seen.set(id, nth);
        setTimeout(() => {
          this.open--;
          res.writeHead(this.answer(id, nth)).end();
        }, this.holdMs);
      });
    });
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/hook`;
  }

  get total(): number {
    let n = 0;
    for (const v of this.seen.values()) n += v;
    return n;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
  }
}

/** Polls `check` until it returns a value (not undefined), or fails after `timeoutMs` with `what`. */
export async function eventually<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
