// The fault-injection suite's harness (tests/faults): engines on a PostgreSQL server of the file's own,
// steady traffic that records every answer, and the checks every fault case ends with — the engines
// are alive, every answer was 2xx, 4xx or 503 (never a 500, never a hang), how long until every engine
// answered normally again, and the delivery ledger (each delivery succeeded or dead, and the receiver
// got each (delivery, attempt slot) once). Reusable for new cases: start a server, a team, a probe.
import assert from 'node:assert/strict';
import { after } from 'node:test';
import pg from 'pg';
import { assertDocumented, bodyOf } from '../helpers/openapi-contract.ts';
import { startFaultServer, type FaultServer } from '../helpers/fault-postgres.ts';
import { createSandbox, type TestSandbox } from '../helpers/engine.ts';
import type { ServeProcess } from '../helpers/process.ts';
import { registerEndpoint } from '../helpers/webhooks.ts';
import { eventually, LedgerReceiver, startEngines, type Engine } from '../integration/team/engines.ts';

export { eventually, LedgerReceiver, type Engine };

/** How long a request may take before it counts as a hang (the request timeout is statement timeout + 2 s = 12 s). */
const hangMs = 20_000;

const order = {
  customerId: 'cus_0001',
  items: [{ variantId: 'var_0001', quantity: 1 }],
  shippingAddress: { city: 'İzmir', district: 'Konak' },
};

/** One answer (or failure to answer) seen by the probe. */
export interface Seen {
  engine: number;
  sentAt: number;
  doneAt: number;
  status: number;
  what: string;
}

/** A fault server, a database on it and `count` engines (`sandbay serve` processes), stopped after the file. */
export function useFaultTeam(count: number, env: Record<string, string> = {}) {
  const state: { server?: FaultServer; url?: string; engines: Engine[]; receiver?: LedgerReceiver } = { engines: [] };
  after(async () => {
    for (const e of state.engines)
      if (e.child.exitCode === null && e.child.signalCode === null) e.child.kill('SIGKILL');
    await Promise.all(state.engines.map((e) => e.exited));
    await state.receiver?.close();
    await state.server?.close();
  });
  return {
    get server() {
      return state.server!;
    },
    get url() {
      return state.url!;
    },
    get engines() {
      return state.engines;
    },
    get receiver() {
      return state.receiver!;
    },
    /** Starts the server, the engines and a receiver answering `answer` (default 200) after `holdMs`. */
    async start(holdMs = 0, answer?: (deliveryId: string, nth: number) => number): Promise<void> {
      state.server = await startFaultServer();
      state.url = await state.server.createDatabase();
      state.receiver = await new LedgerReceiver(answer).start();
      state.receiver.holdMs = holdMs;
      state.engines.push(...(await startEngines(state.url, count, env)));
    },
  };
}

/** One sandbox with an endpoint on the receiver, stocked for many orders (its token works on every engine). */
export async function sandboxEverywhere(engines: Engine[], receiverUrl: string): Promise<TestSandbox[]> {
  const sb = await createSandbox(engines[0].url);
  await sb.api(`/api/v1/variants/${order.items[0].variantId}`, { method: 'PATCH', body: { stock: 1_000_000 } });
  await registerEndpoint(sb, receiverUrl, ['order.placed']);
  return engines.map(() => sb);
}

/** One request with the hang bound, checked against the engine's OpenAPI document; status 0 = no answer. */
export async function timedCall(
  url: string,
  path: string,
  token: string,
  method = 'GET',
  body?: unknown,
): Promise<{ status: number; body: any }> {
  try {
    const res = await fetch(url + path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(hangMs),
    });
    const parsed = bodyOf(res.headers.get('content-type'), await res.text());
    await assertDocumented(url, {
      method,
      path,
      status: res.status,
      contentType: res.headers.get('content-type'),
      body: parsed,
    });
    if ((res.status === 503 || res.status === 507) && !res.headers.get('retry-after'))
      throw new Error(`${res.status} without Retry-After`);
    return { status: res.status, body: parsed };
  } catch (err) {
    if ((err as Error).name === 'TimeoutError' || (err as Error).name === 'TypeError')
      return { status: 0, body: String(err) };
    throw err;
  }
}

/**
 * Steady traffic on every engine until stop(): each engine gets a list request and an order in turn,
 * `perEngine` at a time. Orders make deliveries, so the ledger covers what happened during the fault.
 */
export class Probe {
  readonly seen: Seen[] = [];
  private running = true;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly views: TestSandbox[],
    private readonly engines: Engine[],
    perEngine = 2,
  ) {
    for (const [i] of engines.entries()) for (let k = 0; k < perEngine; k++) this.loops.push(this.loop(i, k));
  }

  private async loop(engine: number, k: number): Promise<void> {
    for (let n = k; this.running; n++) {
      const write = n % 2 === 1;
      const sentAt = Date.now();
      const { status } = write
        ? await timedCall(this.engines[engine].url, '/api/v1/orders', this.views[engine].token, 'POST', order)
        : await timedCall(this.engines[engine].url, '/api/v1/webhooks/deliveries?limit=5', this.views[engine].token);
      this.seen.push({
        engine,
        sentAt,
        doneAt: Date.now(),
        status,
        what: write ? 'POST /orders' : 'GET /webhooks/deliveries',
      });
      await new Promise((r) => setTimeout(r, status === 200 || status === 201 ? 20 : 100));
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** Counts by status ("0" = no answer within the hang bound). */
  statuses(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const s of this.seen) out[s.status] = (out[s.status] ?? 0) + 1;
    return out;
  }

  /**
   * Per engine, from `faultEnd`: the time until every request sent from then on answered normally
   * (2xx); the largest of them. Undefined while some engine has not answered normally since.
   */
  recoveryMs(faultEnd: number): number | undefined {
    let worst = 0;
    for (const [i] of this.engines.entries()) {
      const mine = this.seen.filter((s) => s.engine === i && s.doneAt >= faultEnd).sort((a, b) => a.sentAt - b.sentAt);
      const lastBad = mine
        .map((s, n) => (s.status >= 200 && s.status < 300 ? -1 : n))
        .reduce((a, b) => Math.max(a, b), -1);
      const firstGood = mine[lastBad + 1];
      if (!firstGood) return undefined;
      worst = Math.max(worst, lastBad < 0 ? 0 : Math.max(0, firstGood.sentAt - faultEnd));
    }
    return worst;
  }

  /** Waits until every engine has answered normally for `settledMs` after the fault; returns the recovery time. */
  async recovered(faultEnd: number, timeoutMs = 60_000, settledMs = 3_000): Promise<number> {
    return eventually('every engine answering normally again', timeoutMs, async () => {
      const ms = this.recoveryMs(faultEnd);
      return ms !== undefined && Date.now() - faultEnd >= ms + settledMs ? ms : undefined;
    });
  }
}

/** The answers a fault may produce: 2xx, 4xx or 503 — never a 500, never a hang (status 0). */
export function assertOnlyAllowedAnswers(
  probe: Probe,
  allowed = (s: number) => (s >= 200 && s < 500) || s === 503,
): void {
  const bad = probe.seen.filter((s) => !allowed(s.status));
  assert.deepEqual(bad.slice(0, 5), [], `answers outside 2xx/4xx/503: ${JSON.stringify(probe.statuses())}`);
}

/** Every engine process still runs, and none reported an unhandled error. */
export function assertAlive(engines: ServeProcess[]): void {
  for (const [i, e] of engines.entries()) {
    assert.equal(e.child.exitCode, null, `engine ${i} exited: ${e.stderr.slice(-2000)}`);
    assert.equal(e.child.signalCode, null, `engine ${i} was killed`);
    assert.doesNotMatch(e.stderr, /Unhandled|uncaught/i, `engine ${i} reported an unhandled error`);
  }
}

/**
 * The ledger, read from the database once nothing is pending: every delivery succeeded or dead, and the
 * receiver got each delivery exactly as many times as attempts were recorded — a slot sent twice (or
 * sent and never recorded) shows as more requests than attempts.
 */
export async function assertLedger(
  url: string,
  receiver: LedgerReceiver,
  timeoutMs = 90_000,
): Promise<{ deliveries: number }> {
  const db = new pg.Client({ connectionString: url, application_name: 'fault-ledger' });
  db.on('error', () => undefined);
  await db.connect();
  try {
    await eventually('every delivery succeeded or dead', timeoutMs, async () =>
      (await db.query(`select 1 from deliveries where status = 'pending' limit 1`)).rowCount === 0 ? true : undefined,
    );
    // An attempt is recorded a moment after the receiver answers: let the last ones land.
    await new Promise((r) => setTimeout(r, 500));
    const rows = (
      await db.query<{ id: string; status: string; attempts: number }>(
        `select d.id, d.status, (select count(*)::int from attempts a where a.tenant_id = d.tenant_id and a.delivery_id = d.id) as attempts from deliveries d`,
      )
    ).rows;
    const wrong = rows.filter((r) => r.status !== 'succeeded' && r.status !== 'dead');
    assert.deepEqual(wrong, [], 'every delivery ends succeeded or dead');
    const mismatched = rows
      .filter((r) => (receiver.seen.get(r.id) ?? 0) !== r.attempts)
      .map((r) => ({ id: r.id, received: receiver.seen.get(r.id) ?? 0, attempts: r.attempts }));
    assert.deepEqual(
      mismatched.slice(0, 5),
      [],
      `${mismatched.length} deliveries whose requests at the receiver differ from their recorded attempts`,
    );
    const known = new Set(rows.map((r) => r.id));
    assert.deepEqual(
      [...receiver.seen.keys()].filter((id) => !known.has(id)),
      [],
      'the receiver got nothing the ledger does not know',
    );
    return { deliveries: rows.length };
  } finally {
    await db.end();
  }
}
