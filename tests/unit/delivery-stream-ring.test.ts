import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeliveryStream } from '../../src/webhooks/delivery-stream.ts';

// SPEC §5.7: a client reconnecting with Last-Event-ID gets what it missed, or `reset` when that
// is no longer possible. The stream keeps the newest 20,000 messages (of all sandboxes).
test('a client too far behind gets reset; one whose next message is still kept gets everything it missed', () => {
  const stream = new DeliveryStream();
  const total = 20_002;
  const mine: string[] = [];
  for (let seq = 1; seq <= total; seq++) {
    const tenantId = seq % 2 === 0 ? 'sbx_mine' : 'sbx_other';
    stream.publish(tenantId, 'delivery.created', { id: `dlv_${seq}` });
    if (tenantId === 'sbx_mine') mine.push(`dlv_${seq}`);
  }
  const since = (seq: number) => {
    const sub = stream.subscribe('sbx_mine', `${stream.bootId}-${seq}`, { send: () => {}, unsentBytes: () => 0, drop: () => {} });
    sub.close();
    return sub.backlog;
  };
  // Messages 1 and 2 fell out of the ring: a client that saw only message 1 missed message 2.
  assert.equal(since(1), 'reset');
  assert.equal(since(0), 'reset');
  const backlog = since(2);
  assert.notEqual(backlog, 'reset');
  assert.deepEqual((backlog as { data: { id?: string } }[]).map((m) => m.data.id), mine.slice(1), 'every missed message of this sandbox, in order');
  assert.deepEqual(since(total), [], 'nothing missed');
  stream.close();
});
