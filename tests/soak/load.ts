import type { SoakMetrics } from './metrics.ts';

/** One sandbox the soak drives, with the bearer token of its API client. */
export interface SoakSandbox {
  id: string;
  token: string;
  clientId: string;
  clientSecret: string;
  /** Counted in the ledger (never reset); the others are reset now and then. */
  ledger: boolean;
  /** Orders the API acknowledged as placed: each emitted one order.placed to two endpoints. */
  placed: number;
}

/** Fires `fn` at a steady rate, never more than `maxOutstanding` at once (a slow engine shows as skips). */
export class SteadyLoad {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly outstanding = new Map<Promise<void>, string>();

  constructor(private readonly metrics: SoakMetrics) {}

  every(name: string, perSecond: number, maxOutstanding: number, fn: (i: number) => Promise<void>): void {
    if (perSecond <= 0) return;
    const tickMs = 100;
    let credit = 0;
    let i = 0;
    this.timers.push(
      setInterval(() => {
        for (credit += (perSecond * tickMs) / 1000; credit >= 1; credit--) {
          if (this.outstanding.size >= maxOutstanding) {
            this.metrics.error(`${name}: skipped, engine behind`);
            continue;
          }
          this.track(name, fn(i++));
        }
      }, tickMs),
    );
  }

  /** Runs `fn` every `ms`, skipping a turn while the previous one still runs (clock advances, resets). */
  periodically(name: string, ms: number, fn: () => Promise<void>): void {
    let running = false;
    this.timers.push(
      setInterval(() => {
        if (running) return;
        running = true;
        this.track(
          name,
          fn().finally(() => (running = false)),
        );
      }, ms),
    );
  }

  /** What is under way, by name (e.g. "orders ×3, clock advances ×1"). */
  get busy(): string {
    const counts = new Map<string, number>();
    for (const name of this.outstanding.values()) counts.set(name, (counts.get(name) ?? 0) + 1);
    return [...counts].map(([name, n]) => `${name} ×${n}`).join(', ') || 'nothing';
  }

  /** Stops starting work and waits for what is under way. */
  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await Promise.allSettled([...this.outstanding.keys()]);
  }

  private track(name: string, p: Promise<void>): void {
    const tracked = p
      .catch((err) => this.metrics.error(`${name}: ${(err as Error).message.slice(0, 80)}`))
      .finally(() => this.outstanding.delete(tracked));
    this.outstanding.set(tracked, name);
  }
}

const json = (
  token: string | undefined,
  body?: unknown,
  method = body === undefined ? 'GET' : 'POST',
): RequestInit => ({
  method,
  headers: {
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
  },
  body: body === undefined ? undefined : JSON.stringify(body),
});

/** Errors in sandboxes being reset are told apart: a 404 for an order a reset just removed is expected there. */
const kind = (sb: SoakSandbox, what: string) => (sb.ledger ? what : `${what} (reset sandbox)`);

/** An API client's round: create an order, read it back, cancel it (which returns its stock). */
export async function orderRound(url: string, sb: SoakSandbox, metrics: SoakMetrics): Promise<void> {
  const order = {
    customerId: 'cus_0001',
    items: [{ variantId: 'var_0001', quantity: 1 }],
    shippingAddress: { city: 'İzmir', district: 'Konak' },
  };
  const created = await metrics.call(
    kind(sb, 'create order'),
    () => fetch(`${url}/api/v1/orders`, json(sb.token, order)),
    (s) => s === 201,
  );
  if (!created) return;
  const body = (await created.json()) as { id: string; status: string };
  if (body.status === 'placed') sb.placed++;
  else metrics.error(kind(sb, `create order: status ${body.status}`));
  const read = await metrics.call(kind(sb, 'read order'), () =>
    fetch(`${url}/api/v1/orders/${body.id}`, json(sb.token)),
  );
  await read?.body?.cancel();
  const cancelled = await metrics.call(kind(sb, 'cancel order'), () =>
    fetch(`${url}/api/v1/orders/${body.id}/cancel`, json(sb.token, {})),
  );
  await cancelled?.body?.cancel();
}

/** A request to the sandbox's catcher, as any HTTP client might send one. */
export async function catcherHit(url: string, sb: SoakSandbox, i: number, metrics: SoakMetrics): Promise<void> {
  const res = await metrics.call('catcher hit', () =>
    fetch(`${url}/catch/${sb.id}/soak`, json(undefined, { hit: i, note: 'soak' })),
  );
  await res?.body?.cancel();
}

/** A new client_credentials token, used once: thousands of these must not grow the token cache forever. */
export async function freshToken(url: string, sb: SoakSandbox, metrics: SoakMetrics): Promise<void> {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: sb.clientId,
    client_secret: sb.clientSecret,
  });
  const res = await metrics.call('token', () => fetch(`${url}/oauth/token`, { method: 'POST', body: form }));
  if (!res) return;
  const { access_token: token } = (await res.json()) as { access_token: string };
  const me = await metrics.call('read sandbox', () => fetch(`${url}/api/v1/sandbox`, json(token)));
  await me?.body?.cancel();
}

/** Advances the sandbox clock so due retries run (and five failures dead-letter a delivery). */
export async function advanceClock(url: string, sb: SoakSandbox, seconds: number, metrics: SoakMetrics): Promise<void> {
  const res = await metrics.call('clock advance', () =>
    fetch(`${url}/api/v1/sandbox/clock/advance`, json(sb.token, { seconds })),
  );
  await res?.body?.cancel();
}

export async function resetSandbox(url: string, sb: SoakSandbox, metrics: SoakMetrics): Promise<void> {
  const res = await metrics.call('reset', () => fetch(`${url}/api/v1/sandbox/reset`, json(sb.token, {})));
  await res?.body?.cancel();
}

/** Creates a sandbox with two endpoints for order.placed: the flaky receiver and its own catcher. */
export async function setUpSandbox(url: string, receiverUrl: string, ledger: boolean): Promise<SoakSandbox> {
  const must = async (res: Response, what: string) => {
    if (!res.ok) throw new Error(`${what}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as any;
  };
  const created = await must(
    await fetch(`${url}/api/v1/sandboxes`, json(undefined, { name: ledger ? 'soak ledger' : 'soak churn' })),
    'sandbox',
  );
  const { accessToken: token, clientId, clientSecret } = created.credentials;
  const catcher = await must(await fetch(`${url}/api/v1/catchers/soak`, json(token, {}, 'PUT')), 'catcher');
  for (const target of [receiverUrl, catcher.url]) {
    await must(
      await fetch(`${url}/api/v1/webhooks/endpoints`, json(token, { url: target, topics: ['order.placed'] })),
      'endpoint',
    );
  }
  return { id: created.sandbox.id, token, clientId, clientSecret, ledger, placed: 0 };
}
