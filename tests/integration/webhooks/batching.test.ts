// Attempt outcomes are written in batches (src/webhooks/attempt-recorder.ts), but a lone attempt is never held back
// to fill one: with nothing being written when it finishes, its outcome goes at once (flush reason `idle`), without
// any other delivery arriving and without a timer.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

const engine = useEngine();
const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.close());

test('a lone delivery is recorded at once: its batch goes because the recorder was idle, not to fill up', async () => {
  const { recorder } = engine.running.services.webhooks;
  const sb = await createSandbox(engine.url);
  await registerEndpoint(sb, receiver.url, ['order.placed']);
  const flushesBefore = { ...recorder.flushes };
  await placeOrder(sb);
  const [d] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
  const delivered = await waitForDelivery(sb, d.id, (x) => x.status === 'succeeded');
  assert.equal(delivered.attempts.length, 1, 'its one attempt is recorded');
  assert.equal(receiver.received.length, 1, 'no other delivery was sent meanwhile');
  assert.deepEqual(
    {
      idle: recorder.flushes.idle - flushesBefore.idle,
      timer: recorder.flushes.timer - flushesBefore.timer,
      count: recorder.flushes.count - flushesBefore.count,
    },
    { idle: 1, timer: 0, count: 0 },
  );
});
