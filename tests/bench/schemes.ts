// The signing schemes side by side (SPEC §11), in one run: what signing one attempt costs in each,
// and deliveries/s and first-attempt latency through the whole engine, so that ed25519's price
// shows both alone and where it counts.
import { newEd25519KeyPair } from '../../src/receiver/ed25519-keys.ts';
import { signRequest } from '../../src/receiver/schemes.ts';
import { newWebhookSecret } from '../../src/webhooks/endpoint-keys.ts';
import type { SchemeName } from '../../src/shared/schemes.ts';
import type { Receiver } from '../helpers/receiver.ts';
import type { BenchRow } from './table.ts';

const section = 'webhooks';
const variants: SchemeName[][] = [
  ['sandbay'],
  ['standard-webhooks'],
  ['standard-webhooks-ed25519'],
  ['sandbay', 'standard-webhooks', 'standard-webhooks-ed25519'],
];
const label = (s: SchemeName[]) => s.join(' + ');

interface Measures {
  throughput(url: string, receiver: Receiver, watched: boolean, signature: SchemeName[]): Promise<number>;
  firstAttemptLatency(
    url: string,
    receiver: Receiver,
    watched: boolean,
    signature: SchemeName[],
  ): Promise<{ p50: number; p99: number }>;
}

/** Microseconds to sign one attempt (every header of the schemes), over many signatures of a typical body. */
function signingMicros(schemes: SchemeName[]): number {
  const keys = { secrets: [newWebhookSecret(schemes)], signingKeys: [newEd25519KeyPair().signingKey] };
  const sign = (timestamp: number) => signRequest(schemes, { id: 'dlv_bench', timestamp, payload: body, ...keys });
  const body = JSON.stringify({
    type: 'order.placed',
    timestamp: new Date().toISOString(),
    data: { orderId: 'ord_bench', total: 449.9, currency: 'TRY', customerId: 'cus_0004' },
  });
  const count = 20_000;
  for (let i = 0; i < 2_000; i++) sign(1_800_000_000 + i);
  const started = performance.now();
  for (let i = 0; i < count; i++) sign(1_800_000_000 + i);
  return ((performance.now() - started) * 1000) / count;
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
const rounds = 3;

/**
 * Each variant's throughput in alternating rounds (every variant once per round, so a busy minute on a
 * shared box hits them all alike), reported as the median round with the range; then its latency.
 */
export async function schemeRows(url: string, receiver: Receiver, measure: Measures): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const signing = variants.map(signingMicros);
  const perSecond: number[][] = variants.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, schemes] of variants.entries()) {
      perSecond[i].push(await measure.throughput(url, receiver, false, schemes));
      receiver.received.length = 0;
    }
  }
  for (const [i, schemes] of variants.entries()) {
    const latency = await measure.firstAttemptLatency(url, receiver, false, schemes);
    receiver.received.length = 0;
    const spread = `${Math.round(Math.min(...perSecond[i]))}–${Math.round(Math.max(...perSecond[i]))}`;
    rows.push(
      { section, metric: `signature ${label(schemes)}: signing one attempt`, value: signing[i], unit: 'µs' },
      {
        section,
        metric: `signature ${label(schemes)}: deliveries/s (5,000; median of ${rounds} alternating rounds, ${spread})`,
        value: median(perSecond[i]),
        unit: '/s',
        target: '≥ 2,000 /s',
        ok: median(perSecond[i]) >= 2000,
      },
      {
        section,
        metric: `signature ${label(schemes)}: first attempt p50`,
        value: latency.p50,
        unit: 'ms',
        target: '≤ 5 ms',
        ok: latency.p50 <= 5,
      },
      {
        section,
        metric: `signature ${label(schemes)}: first attempt p99`,
        value: latency.p99,
        unit: 'ms',
        target: '≤ 25 ms',
        ok: latency.p99 <= 25,
      },
    );
  }
  rows.push({
    section,
    metric: 'ed25519 signing / HMAC signing (standard-webhooks)',
    value: signing[2] / signing[1],
    unit: '×',
  });
  rows.push({
    section,
    metric: 'deliveries/s, ed25519 / HMAC (standard-webhooks), median rounds',
    value: (100 * median(perSecond[2])) / median(perSecond[1]),
    unit: '%',
  });
  return rows;
}
