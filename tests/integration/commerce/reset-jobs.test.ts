import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSandbox, useEngine, type TestSandbox } from '../../helpers/engine.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';
import { advance, ok, sendExpiringQuote } from './helpers.ts';

// A reset reseeds and the seed owes no jobs (docs/decisions/the-seed-owes-no-jobs.md), so a reset drops the sandbox's
// due jobs of every kind; a delete drops them all. Another sandbox's jobs are never touched.
const engine = useEngine();
const rx = new Receiver();
before(() => rx.start());
after(() => rx.close());

/** Sends a new quote that expires in a day; returns its id. */
const expiringQuote = async (sb: TestSandbox): Promise<string> => (await sendExpiringQuote(sb)).id;

const quoteStatus = async (sb: TestSandbox, id: string) => ok(await sb.api(`/api/v1/quotes/${id}`)).status;

test('a reset drops the due jobs of every kind; the endpoints and what is made afterwards still run', async () => {
  const sb = await createSandbox(engine.url);
  const other = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, rx.url, [
    'quote.expired',
    'saved_report.due',
    'payout.paid',
    'order.placed',
  ]);
  await expiringQuote(sb);
  ok(await sb.api('/api/v1/reports', { body: { name: 'Saatlik', kind: 'sales_summary', schedule: 'hourly' } }), 201);
  ok(await sb.api('/api/v1/vendors/ven_0002', { method: 'PATCH', body: { iban: 'TR729999000000000000000002' } }));
  assert.equal(ok(await sb.api('/api/v1/payouts/po_0002/pay', { method: 'POST' })).status, 'retry_scheduled');
  rx.behaviour = { kind: 'status', status: 500 };
  const failing = ok(
    await sb.api('/api/v1/webhooks/test', { body: { topic: 'order.placed', endpoint: endpoint.id } }),
    202,
  );
  await waitForDelivery(sb, failing.deliveryId, (d) => d.attemptCount === 1);
  rx.behaviour = { kind: 'status', status: 200 };
  const othersQuote = await expiringQuote(other);

  ok(await sb.api('/api/v1/sandbox/reset', { method: 'POST' }));
  const heard = rx.received.length;
  const result = await advance(sb, 2 * 86_400);
  assert.equal(result.jobsRun, 0, 'the fresh sandbox owes no jobs');
  assert.deepEqual(ok(await sb.api('/api/v1/events')).data, []);
  assert.equal(rx.received.length, heard, 'nothing sent for the data the reset removed');
  assert.equal(ok(await sb.api('/api/v1/payouts/po_0002')).status, 'calculated', 'the reseeded payout owes no retry');

  // The endpoint survived the reset, and jobs made afterwards run.
  const fresh = await expiringQuote(sb);
  await advance(sb, 2 * 86_400);
  assert.equal(await quoteStatus(sb, fresh), 'expired');
  await rx.waitFor(heard + 1);
  assert.equal(rx.received[heard].headers['x-service-topic'], 'quote.expired');

  await advance(other, 2 * 86_400);
  assert.equal(await quoteStatus(other, othersQuote), 'expired', "another sandbox's jobs survive the reset");
});

test("deleting a sandbox leaves another sandbox's jobs in place", async () => {
  const [gone, kept] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  await expiringQuote(gone);
  const quote = await expiringQuote(kept);
  assert.equal((await gone.api('/api/v1/sandbox', { method: 'DELETE' })).status, 204);
  const result = await advance(kept, 2 * 86_400);
  assert.equal(result.jobsRun, 1);
  assert.equal(await quoteStatus(kept, quote), 'expired');
});
