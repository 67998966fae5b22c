import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { call } from '../../helpers/engine.ts';
import { serveReady } from '../../helpers/process.ts';
import { Receiver } from '../../helpers/receiver.ts';

// SPEC §5.3: deliveries are stored before the API call returns and survive a crash.
test('PGlite data dir: kill -9 with attempts pending and in flight: after a restart every delivery is attempted', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbay-crash-'));
  const hanging = await new Receiver().start();
  const failing = await new Receiver().start();
  hanging.behaviour = { kind: 'hang' };
  failing.behaviour = { kind: 'status', status: 500 };
  try {
    let server = await serveReady(['--data-dir', dataDir, '--port', '0']);
    const created = await call(server.url, '/api/v1/sandboxes', { method: 'POST' });
    const token = created.body.credentials.accessToken;
    const api = (url: string, path: string, body?: unknown) =>
      call(url, path, { token, body, method: body ? 'POST' : 'GET' });
    await api(server.url, '/api/v1/webhooks/endpoints', { url: hanging.url, topics: ['order.placed'] });
    await api(server.url, '/api/v1/webhooks/endpoints', { url: failing.url, topics: ['order.placed'] });
    for (let i = 0; i < 3; i++) {
      const order = await api(server.url, '/api/v1/orders', {
        customerId: 'cus_0002',
        items: [{ variantId: 'var_0001', quantity: 1 }],
        shippingAddress: { city: 'Bursa', district: 'Nilüfer' },
      });
      assert.equal(order.status, 201);
    }
    await hanging.waitFor(3); // three attempts in flight, unanswered
    await failing.waitFor(3); // three failed, their retries pending once recorded
    let before: any[] = [];
    for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
      before = (await api(server.url, '/api/v1/webhooks/deliveries')).body.data;
      if (before.filter((d: any) => d.attemptCount === 1).length === 3) break;
    }
    assert.equal(before.length, 6);
    assert.equal(before.filter((d: any) => d.attemptCount === 1 && d.status === 'pending').length, 3);

    server.child.kill('SIGKILL');
    await server.exited;

    hanging.behaviour = { kind: 'status', status: 200 };
    failing.behaviour = { kind: 'status', status: 200 };
    server = await serveReady(['--data-dir', dataDir, '--port', '0']);
    try {
      const after = (await api(server.url, '/api/v1/webhooks/deliveries')).body.data;
      assert.deepEqual(
        after.map((d: any) => d.id).sort(),
        before.map((d: any) => d.id).sort(),
        'every delivery survived',
      );
      // The in-flight attempts were never recorded, so they are due again at once.
      await hanging.waitFor(6);
      const resent = hanging.received
        .slice(3)
        .map((r) => r.headers['x-service-delivery-id'])
        .sort();
      const sentBefore = hanging.received
        .slice(0, 3)
        .map((r) => r.headers['x-service-delivery-id'])
        .sort();
      assert.deepEqual(resent, sentBefore, 'at-least-once: the same deliveryIds again, for the receiver to dedupe');
      await api(server.url, '/api/v1/sandbox/clock/advance', { seconds: 31 });
      await failing.waitFor(6);
      // The failed ones kept their schedule: attempt 2 came 30 s (sandbox time) after the failure, not at
      // the restart. (Asserted on the attempts' own times: a slow restart may already pass 30 s of real time.)
      for (const failed of before.filter((d: any) => d.attemptCount === 1)) {
        const { attempts } = (await api(server.url, `/api/v1/webhooks/deliveries/${failed.id}`)).body;
        assert.ok(
          Date.parse(attempts[1].startedAt) - Date.parse(attempts[0].startedAt) >= 30_000,
          JSON.stringify(attempts),
        );
      }
      const deadline = Date.now() + 5000;
      let statuses: string[] = [];
      while (Date.now() < deadline) {
        statuses = (await api(server.url, '/api/v1/webhooks/deliveries')).body.data.map((d: any) => d.status);
        if (statuses.every((s) => s === 'succeeded')) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.deepEqual(statuses, Array(6).fill('succeeded'));
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  } finally {
    await hanging.close();
    await failing.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
