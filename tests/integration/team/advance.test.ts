// The sandbox clock is shared (SPEC §5.5, §9): an advance on one engine first waits for the sandbox's
// attempts in flight on the other engines, so their follow-ups fall within the advance.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { registerEndpoint } from '../../helpers/webhooks.ts';
import { eventually, LedgerReceiver, placeOrders, sandboxOnAll, team } from './engines.ts';

const closing: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closing.reverse()) await close();
});

test('an advance on A waits for an attempt in flight on B, then runs the retries it scheduled', async () => {
  const receiver = await new LedgerReceiver(() => 500).start();
  closing.push(() => receiver.close());
  const {
    engines: [a, b],
    close,
  } = await team(2);
  closing.push(close);
  const [onA, onB] = await sandboxOnAll([a, b]);
  await registerEndpoint(onA, receiver.url, ['order.placed']);
  receiver.holdMs = 1_500; // B's first attempt hangs for a while ...
  await placeOrders([onB], 1, 1);
  await eventually('B attempting', 10_000, async () => (receiver.total === 1 ? true : undefined));
  receiver.holdMs = 0; // ... and every later one fails at once.

  const advanced = await onA.api('/api/v1/sandbox/clock/advance', { body: { seconds: 7_200 } });
  assert.equal(advanced.status, 200);
  // The whole cycle ran within the advance: B's attempt 1, then 2–5 at 30 s, 2 min, 10 min and 1 h after it.
  const [summary] = (await onA.api('/api/v1/webhooks/deliveries')).body.data;
  const done = (await onA.api(`/api/v1/webhooks/deliveries/${summary.id}`)).body;
  assert.equal(done.status, 'dead');
  assert.deepEqual(
    done.attempts.map((x: any) => [x.number, x.trigger]),
    [
      [1, 'initial'],
      [2, 'retry'],
      [3, 'retry'],
      [4, 'retry'],
      [5, 'retry'],
    ],
  );
  assert.equal(receiver.seen.get(summary.id), 5, 'each slot sent once');
  assert.equal(advanced.body.jobsRun, 4);
});
