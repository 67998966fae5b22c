// ad hoc: orders/s into one sandbox, 25 at once, on PGlite and on PostgreSQL (the shared server)
import { createTestDatabase } from '../helpers/postgres.ts';
import { jsonClient } from './load.ts';
import { startSandbay } from './spawn.ts';
const order = { customerId: 'cus_0004', items: [{ variantId: 'var_0001', quantity: 1 }], shippingAddress: { city: 'İzmir', district: 'Bornova' } };
async function rate(flags: string[]): Promise<number> {
  const s = await startSandbay(flags);
  try {
    const anon = jsonClient(s.url);
    const created = await anon.request('POST', '/api/v1/sandboxes');
    await anon.close();
    const api = jsonClient(s.url, { authorization: `Bearer ${created.body.credentials.accessToken}` });
    await api.request('PATCH', '/api/v1/variants/var_0001', { stock: 1_000_000 });
    for (let i = 0; i < 3; i++) await api.request('POST', '/api/v1/webhooks/endpoints', { url: 'http://127.0.0.1:9/', topics: ['order.placed'], enabled: false });
    let n = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: 25 }, async () => {
      while (n < 2000) { n++; const r = await api.request('POST', '/api/v1/orders', order); if (r.status !== 201) throw new Error(JSON.stringify(r.body)); }
    }));
    const perSecond = 2000 / ((performance.now() - started) / 1000);
    await api.close();
    return perSecond;
  } finally { await s.stop(); }
}
process.env.TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:54320/postgres';
const db = await createTestDatabase();
console.log(`PGlite ${(await rate([])).toFixed(0)}/s  PostgreSQL ${(await rate(['--database-url', db.url])).toFixed(0)}/s`);
await db.drop();
process.exit(0);
