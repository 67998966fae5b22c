import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, createSandbox, useEngine } from '../../helpers/engine.ts';

const engine = useEngine();

const commerceTags = new Set([
  'Catalog',
  'Customers',
  'B2B',
  'Payments',
  'Marketplace',
  'Payouts',
  'Reports',
  'Security',
]);

// A seeded id per collection, so actions reach their state machines.
const seededIds: Record<string, string> = {
  products: 'prd_0001',
  variants: 'var_0001',
  customers: 'cus_0001',
  companies: 'com_0001',
  'approval-requests': 'apr_0001',
  quotes: 'quo_0001',
  payments: 'pay_0001',
  vendors: 'ven_0003',
  offers: 'ofr_0001',
  payouts: 'po_0002',
  reports: 'rep_0001',
  staff: 'stf_0004',
  impersonations: 'imp_0001',
  consents: 'cns_0001',
  '3ds': 'pay_0001',
};

const bodies: unknown[] = [
  {},
  [],
  'x',
  0,
  { amount: 1e308, price: -0, stock: 1.5, quantity: '1' },
  { items: [null], variants: [{}], card: { number: 12 } },
  {
    customerId: ['cus_0001'],
    orderId: { $ne: null },
    vendorId: '',
    periodStart: '2026-02-29',
    periodEnd: '9999-99-99',
  },
  {
    approverId: 'cus_0043',
    token: 'x'.repeat(300),
    outcome: 'approve',
    status: 'granted',
    channel: 'sms',
    customerId: 'cus_0001',
  },
  {
    name: '\u0000',
    email: 'a@b',
    address: { city: null },
    firstRunAt: '2026-01-01T00:00:00+03:00',
    schedule: 'daily',
    kind: 'sales_summary',
  },
  { __proto__: { admin: true }, constructor: { prototype: 1 } },
  { reason: 'x'.repeat(5000), minutes: 1e9, standing: NaN },
];

test('hostile bodies and ids on every commerce route: never a 5xx, always problem+json for errors', async () => {
  const sb = await createSandbox(engine.url);
  const openapi = (await call(engine.url, '/api/v1/openapi.json')).body;
  const failures: string[] = [];
  let requests = 0;
  for (const [template, ops] of Object.entries<Record<string, any>>(openapi.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!op.tags?.some((t: string) => commerceTags.has(t))) continue;
      const collection = template.split('/').find((seg, i, all) => all[i + 1]?.startsWith('{'));
      for (const id of [seededIds[collection ?? ''] ?? 'x', 'nope_0000', '%E2%80%AE', 'a'.repeat(101)]) {
        const path = template.replace(/\{id\}/, id).replace(/\{runId\}/, 'rrn_0001');
        for (const body of method === 'get' || method === 'delete' ? [undefined] : bodies) {
          const res = await sb.api(path, { method: method.toUpperCase(), body });
          requests++;
          const problemJson = res.headers.get('content-type')?.startsWith('application/problem+json');
          const html = res.headers.get('content-type')?.startsWith('text/html');
          if (
            res.status >= 500 ||
            (res.status >= 400 && !problemJson && !html) ||
            JSON.stringify(res.body).includes('    at ')
          ) {
            failures.push(
              `${method.toUpperCase()} ${path} ${JSON.stringify(body)?.slice(0, 80)} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`,
            );
          }
        }
      }
    }
  }
  assert.ok(requests > 500, `${requests} requests`);
  assert.deepEqual(failures, []);
});
