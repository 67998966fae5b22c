import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startSandbox, type SandboxOptions } from '../../../src/server/start.ts';
import { call } from '../../helpers/engine.ts';
import { createTestDatabase, testDriver } from '../../helpers/postgres.ts';

// Due times live in the commerce tables; a restart rebuilds the queue from them (each handler's load()).
test('expiries, payout retries, report due times, IYS pushes and impersonation timeouts survive a restart', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbay-commerce-'));
  // On PostgreSQL a restart is a new engine on the same database; on PGlite, on the same data dir.
  const database = testDriver() === 'pg' ? await createTestDatabase() : undefined;
  const options: SandboxOptions = { dataDir, databaseUrl: database?.url, port: 0, logRequests: false };
  try {
    let engine = await startSandbox(options);
    const created = await call(engine.url, '/api/v1/sandboxes', { method: 'POST' });
    const token = created.body.credentials.accessToken;
    const api = (path: string, body?: unknown, method?: string) =>
      call(engine.url, path, { token, body, method: method ?? (body ? 'POST' : 'GET') });
    const must = async (res: Promise<{ status: number; body: any }>) => {
      const r = await res;
      assert.ok(r.status < 300, JSON.stringify(r.body));
      return r.body;
    };

    const quote = await must(
      api('/api/v1/quotes', {
        customerId: 'cus_0001',
        items: [{ variantId: 'var_0001', quantity: 1 }],
        shippingAddress: { city: 'Van', district: 'Tuşba' },
        validDays: 1,
      }),
    );
    await must(api(`/api/v1/quotes/${quote.id}/send`, {}));
    await must(
      api('/api/v1/orders', {
        customerId: 'cus_0041',
        items: [{ variantId: 'var_0012', quantity: 1 }],
        shippingAddress: { city: 'İzmir', district: 'Konak' },
      }),
    );
    await must(api('/api/v1/vendors/ven_0002', { iban: 'TR029999000000000000000001' }, 'PATCH'));
    await must(api('/api/v1/payouts/po_0002/pay', {}));
    await must(api('/api/v1/reports', { name: 'Günlük', kind: 'sales_summary', schedule: 'daily' }));
    await must(api('/api/v1/consents', { customerId: 'cus_0030', channel: 'sms', status: 'granted' }));
    await must(api('/api/v1/impersonations', { staffId: 'stf_0002', customerId: 'cus_0001', reason: 'Kontrol' }));
    await engine.close();

    engine = await startSandbox(options);
    await must(api('/api/v1/sandbox/clock/advance', { seconds: 4 * 86_400 }));
    const topics = (await must(api('/api/v1/events?limit=100'))).data.map((e: any) => e.topic);
    for (const topic of [
      'quote.expired',
      'approval.expired',
      'payout.retry.given_up',
      'saved_report.due',
      'consent.iys.push_due',
      'impersonation.ended',
    ]) {
      assert.ok(topics.includes(topic), `${topic} after the restart`);
    }
    assert.equal((await must(api(`/api/v1/quotes/${quote.id}`))).status, 'expired');
    await engine.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  }
});
