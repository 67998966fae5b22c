import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { ok, paths } from './helpers.ts';

const engine = useEngine();

const ayse = {
  name: 'Ayşe Demir',
  email: 'ayse@example.com.tr',
  phone: '+90 532 111 22 33',
  address: { city: 'istanbul', district: 'Kadıköy', line: 'Moda Cad. 5' },
};

test('customers with Turkish addresses: the city is one of the 81 provinces, stored in its official spelling', async () => {
  const sb = await createSandbox(engine.url);
  const c = ok(await sb.api('/api/v1/customers', { body: ayse }), 201);
  assert.match(c.id, /^cus_/);
  assert.deepEqual(c.address, { city: 'İstanbul', district: 'Kadıköy', line: 'Moda Cad. 5' });
  assert.equal(c.type, 'individual');
  assert.deepEqual(ok(await sb.api(`/api/v1/customers/${c.id}`)), c);
  const nowhere = problem(
    await sb.api('/api/v1/customers', { body: { ...ayse, address: { city: 'Atlantis', district: 'Merkez' } } }),
    422,
    'validation_failed',
  );
  assert.deepEqual(paths(nowhere), ['/address/city']);
  const bad = problem(
    await sb.api('/api/v1/customers', {
      body: { name: '', email: 'not-an-email', phone: 'x', address: { city: 'İzmir' } },
    }),
    422,
    'validation_failed',
  );
  assert.deepEqual(paths(bad).sort(), ['/address/district', '/email', '/name', '/phone']);
  problem(await sb.api('/api/v1/customers', { body: { ...ayse, vip: true } }), 400, 'unknown_field');
});

test('B2B customers belong to a company as buyer or approver at one of its levels', async () => {
  const sb = await createSandbox(engine.url);
  const company = ok(
    await sb.api('/api/v1/companies', {
      body: { name: 'Kuzey Lojistik A.Ş.', taxNumber: '1111111111', approvalThreshold: 1000.5 },
    }),
    201,
  );
  assert.deepEqual(
    [company.approvalLevels, company.approvalThreshold, company.approvalTtlHours],
    [['manager', 'finance'], 1000.5, 72],
  );
  const buyer = ok(
    await sb.api('/api/v1/customers', { body: { ...ayse, companyId: company.id, companyRole: 'buyer' } }),
    201,
  );
  assert.deepEqual(
    [buyer.type, buyer.companyId, buyer.companyRole, buyer.approvalLevel],
    ['business', company.id, 'buyer', null],
  );
  const approver = ok(
    await sb.api('/api/v1/customers', {
      body: { ...ayse, companyId: company.id, companyRole: 'approver', approvalLevel: 'finance' },
    }),
    201,
  );
  assert.equal(approver.approvalLevel, 'finance');

  problem(
    await sb.api('/api/v1/customers', { body: { ...ayse, companyId: 'com_nope', companyRole: 'buyer' } }),
    422,
    'company_not_found',
  );
  problem(
    await sb.api('/api/v1/customers', {
      body: { ...ayse, companyId: company.id, companyRole: 'approver', approvalLevel: 'ceo' },
    }),
    422,
    'approval_level_unknown',
  );
  assert.deepEqual(
    paths(
      problem(
        await sb.api('/api/v1/customers', { body: { ...ayse, companyId: company.id } }),
        422,
        'validation_failed',
      ),
    ),
    ['/companyRole'],
  );
  assert.deepEqual(
    paths(
      problem(
        await sb.api('/api/v1/customers', { body: { ...ayse, companyId: company.id, companyRole: 'approver' } }),
        422,
        'validation_failed',
      ),
    ),
    ['/approvalLevel'],
  );
  problem(
    await sb.api('/api/v1/companies', {
      body: { name: 'X', taxNumber: '12', approvalThreshold: -1, approvalLevels: ['a', 'a'] },
    }),
    422,
    'validation_failed',
  );

  const members = ok(await sb.api(`/api/v1/customers?companyId=${company.id}`));
  assert.deepEqual(members.data.map((c: any) => c.id).sort(), [buyer.id, approver.id].sort());
});

test('the seed has B2B companies with buyers and approvers; lists page; another sandbox sees 404', async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const seeded = ok(await a.api('/api/v1/customers/cus_0043'));
  assert.deepEqual([seeded.companyId, seeded.companyRole, seeded.approvalLevel], ['com_0001', 'approver', 'manager']);
  assert.equal(ok(await a.api('/api/v1/customers/cus_0001')).type, 'individual');
  const page1 = ok(await a.api('/api/v1/customers?limit=20'));
  const page2 = ok(await a.api(`/api/v1/customers?limit=40&cursor=${page1.nextCursor}`));
  assert.equal(page2.nextCursor, null);
  assert.equal(new Set([...page1.data, ...page2.data].map((c: any) => c.id)).size, 50);
  const mine = ok(await a.api('/api/v1/customers', { body: ayse }), 201);
  problem(await b.api(`/api/v1/customers/${mine.id}`), 404, 'not_found');
  const company = ok(
    await a.api('/api/v1/companies', { body: { name: 'Y', taxNumber: '2222222222', approvalThreshold: 5 } }),
    201,
  );
  problem(await b.api(`/api/v1/companies/${company.id}`), 404, 'not_found');
  problem(
    await b.api('/api/v1/customers', { body: { ...ayse, companyId: company.id, companyRole: 'buyer' } }),
    422,
    'company_not_found',
  );
});
