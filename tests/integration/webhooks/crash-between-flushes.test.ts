// Attempt outcomes are written in batches (src/webhooks/attempt-recorder.ts); a batch is acknowledged once it
// commits. kill -9 the engine between two flushes, in the middle of a burst, and start another on the same
// database: every attempt acknowledged before the kill is still there, none of those deliveries is sent again,
// and the ones cut off (sent, not yet recorded) are sent again and recorded once. Runs on the driver under test:
// a PGlite data dir, or a PostgreSQL database.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { call } from '../../helpers/engine.ts';
import { createTestDatabase, testDriver } from '../../helpers/postgres.ts';
import { runCli, waitForReady } from '../../helpers/process.ts';
import { eventually, LedgerReceiver } from '../team/engines.ts';

const closing: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closing.reverse()) await close();
});

// Short leases and a quick poll: after the kill, the dead engine's leases are taken in seconds, not 30 s.
const tuning = { SANDBAY_DELIVERY_LEASE_MS: '3000', SANDBAY_DELIVERY_POLL_MS: '300' };
const orders = 90;

async function store(): Promise<string[]> {
  if (testDriver() === 'pg') {
    const database = await createTestDatabase();
    closing.push(() => database.drop());
    return ['--memory', '--database-url', database.url];
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbay-flushes-'));
  closing.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  return ['--data-dir', dataDir];
}

async function engine(flags: string[]) {
  const proc = runCli(['serve', '--quiet', '--port', '0', ...flags], tuning);
  closing.push(async () => {
    if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
    await proc.exited;
  });
  return Object.assign(proc, await waitForReady(proc));
}

test('kill -9 between two flushes mid-burst: 0 acknowledged attempts lost, 0 of their slots sent again', async () => {
  const receiver = await new LedgerReceiver().start();
  receiver.holdMs = 100; // the burst lasts long enough for the kill to cut it, some attempts in flight
  closing.push(() => receiver.close());
  const flags = await store();
  const first = await engine(flags);
  const created = await call(first.url, '/api/v1/sandboxes', { method: 'POST' });
  const token = created.body.credentials.accessToken;
  const api = (url: string, path: string, body?: unknown) =>
    call(url, path, { token, body, method: body ? 'POST' : 'GET' });
  // The burst: deliveries queued behind a disabled endpoint, released at once, ten in flight at a time.
  const endpoint = (
    await api(first.url, '/api/v1/webhooks/endpoints', { url: receiver.url, topics: ['order.placed'], enabled: false })
  ).body;
  const order = {
    customerId: 'cus_0002',
    items: [{ variantId: 'var_0001', quantity: 1 }],
    shippingAddress: { city: 'Bursa', district: 'Nilüfer' },
  };
  const restocked = await call(first.url, '/api/v1/variants/var_0001', {
    token,
    method: 'PATCH',
    body: { stock: 1000 },
  });
  assert.equal(restocked.status, 200);
  for (let i = 0; i < orders; i++) assert.equal((await api(first.url, '/api/v1/orders', order)).status, 201);
  const enabled = await call(first.url, `/api/v1/webhooks/endpoints/${endpoint.id}`, {
    token,
    method: 'PATCH',
    body: { enabled: true },
  });
  assert.equal(enabled.status, 200);
  const succeeded = async (url: string) =>
    (await api(url, '/api/v1/webhooks/deliveries?status=succeeded&limit=100')).body.data.map((d: any) => d.id);
  // Several batches acknowledged, more on the way: what the list shows succeeded was recorded (committed).
  const acknowledged: string[] = await eventually('some attempts recorded', 60_000, async () => {
    const ids = await succeeded(first.url);
    return ids.length >= 15 ? ids : undefined;
  });
  const sentBefore = new Map(acknowledged.map((id) => [id, receiver.seen.get(id)]));
  first.child.kill('SIGKILL');
  await first.exited;

  const second = await engine(flags);
  const all = (await api(second.url, '/api/v1/webhooks/deliveries?limit=100')).body.data;
  await eventually('every delivery succeeded', 60_000, async () =>
    (await succeeded(second.url)).length === all.length ? true : undefined,
  );
  for (const id of acknowledged) {
    assert.equal(sentBefore.get(id), 1, `${id} was sent once before it was recorded`);
    assert.equal(receiver.seen.get(id), 1, `${id}: recorded before the kill, never sent again`);
  }
  for (const d of all) {
    const { attempts } = (await api(second.url, `/api/v1/webhooks/deliveries/${d.id}`)).body;
    assert.deepEqual(
      attempts.map((a: any) => a.number),
      [1],
      `${d.id}: one recorded attempt (slot 1), whether acknowledged before the kill or sent again after it`,
    );
    assert.ok((receiver.seen.get(d.id) ?? 0) >= 1, `${d.id} reached the receiver`);
  }
  assert.equal(all.length, orders);
  assert.ok(all.length > acknowledged.length, 'the kill came mid-burst, with deliveries still to go');
});
