import type { TestSandbox } from './engine.ts';
import { until } from './until.ts';

/** Places a small order as the sandbox (emits order.placed); returns the order. */
export async function placeOrder(sb: TestSandbox, variantId = 'var_0001'): Promise<any> {
  const res = await sb.api('/api/v1/orders', {
    body: {
      customerId: 'cus_0001',
      items: [{ variantId, quantity: 1 }],
      shippingAddress: { city: 'İzmir', district: 'Konak' },
    },
  });
  if (res.status !== 201) throw new Error(`order failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Registers an endpoint and returns it (with its secret in full). */
export async function registerEndpoint(
  sb: TestSandbox,
  url: string,
  topics: string[] = ['*'],
  extra: Record<string, unknown> = {},
): Promise<any> {
  const res = await sb.api('/api/v1/webhooks/endpoints', { body: { url, topics, ...extra } });
  if (res.status !== 201) throw new Error(`endpoint failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function advance(sb: TestSandbox, seconds: number): Promise<any> {
  const res = await sb.api('/api/v1/sandbox/clock/advance', { body: { seconds } });
  if (res.status !== 200) throw new Error(`advance failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function delivery(sb: TestSandbox, id: string): Promise<any> {
  const res = await sb.api(`/api/v1/webhooks/deliveries/${id}`);
  if (res.status !== 200) throw new Error(`delivery failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Polls until the delivery satisfies `done` (attempts are recorded a moment after they finish). */
export async function waitForDelivery(
  sb: TestSandbox,
  id: string,
  done: (d: any) => boolean,
  timeoutMs = 10_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await delivery(sb, id);
    if (done(d)) return d;
    if (Date.now() > deadline) throw new Error(`delivery ${id} never reached the expected state: ${JSON.stringify(d)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Polls a DLQ replay job (GET …/dlq-replays/{id}) until `done` holds of it: by default, until it stops running. */
export const waitForReplayJob = (
  sb: TestSandbox,
  id: string,
  done: (job: any) => boolean = (job) => job.state !== 'running',
  timeoutMs = 15_000,
): Promise<any> =>
  until(
    async () => {
      const res = await sb.api(`/api/v1/webhooks/dlq-replays/${id}`);
      if (res.status !== 200) throw new Error(`replay job ${id}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    done,
    `replay job ${id} getting there`,
    timeoutMs,
  );
