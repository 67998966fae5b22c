import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';
import { advance, ok, sendExpiringQuote } from './helpers.ts';

const engine = useEngine();
const rx = new Receiver();
before(() => rx.start());
after(() => rx.close());

const hour = 3600_000;

// SPEC §5.5: an advance runs what falls due, of every kind, in due-time order as a
// discrete-event simulation. The jobs are queued here in the reverse of their due order, so
// only an advance that orders them by due time runs them right.
test('one advance runs a quote expiry, a report, a payout retry and a webhook retry in due-time order', async () => {
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, rx.url, ['quote.expired', 'saved_report.due', 'payout.paid']);

  const { expiresAt } = await sendExpiringQuote(sb); // in 24 h

  const now = Date.parse(ok(await sb.api('/api/v1/sandbox/clock')).now);
  const firstRunAt = new Date(now + 3 * hour).toISOString();
  ok(
    await sb.api('/api/v1/reports', { body: { name: 'Günlük', kind: 'sales_summary', schedule: 'daily', firstRunAt } }),
    201,
  );

  // This test IBAN's bank fails the first transfer only: the retry 1 h later pays.
  ok(await sb.api('/api/v1/vendors/ven_0002', { method: 'PATCH', body: { iban: 'TR729999000000000000000002' } }));
  const payout = ok(await sb.api('/api/v1/payouts/po_0002/pay', { method: 'POST' }));
  assert.equal(payout.status, 'retry_scheduled');

  rx.behaviour = { kind: 'status', status: 500 };
  const test = ok(
    await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: endpoint.id } }),
    202,
  );
  const failed = await waitForDelivery(sb, test.deliveryId, (d) => d.attemptCount === 1);
  rx.behaviour = { kind: 'status', status: 200 };

  await advance(sb, 25 * 3600);

  const topics = rx.received.map((r) => r.headers['x-service-topic']);
  assert.deepEqual(topics, ['order.placed', 'order.placed', 'payout.paid', 'saved_report.due', 'quote.expired']);
  const retried = await waitForDelivery(sb, test.deliveryId, (d) => d.status === 'succeeded');
  const [first, second] = retried.attempts;
  assert.equal(Date.parse(second.startedAt), Date.parse(first.startedAt) + first.durationMs + 30_000);
  assert.equal(failed.attempts[0].startedAt, first.startedAt);

  // Events are listed newest first, in the order they were written.
  const events = ok(await sb.api('/api/v1/events?limit=100'))
    .data.reverse()
    .filter((e: any) => ['payout.paid', 'saved_report.due', 'quote.expired'].includes(e.topic));
  assert.deepEqual(
    events.map((e: any) => [e.topic, e.occurredAt]),
    [
      ['payout.paid', payout.nextAttemptAt],
      ['saved_report.due', firstRunAt],
      ['quote.expired', expiresAt],
    ],
    'each job ran as of its own due time, earliest first',
  );
});
