import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { advance, eventTopics, lastEvent, ok, order, paths, stockOf, variantAt } from './helpers.ts';

const engine = useEngine();

// Seeded: com_0001 (threshold 5,000 TRY; manager then finance), buyer cus_0041, approvers cus_0043 (manager), cus_0044
// (finance).
async function bigOrder(sb: Awaited<ReturnType<typeof createSandbox>>) {
  const variantId = await variantAt(sb, 2600.5);
  const o = await order(sb, [{ variantId, quantity: 2 }], 'cus_0041');
  const [request] = ok(await sb.api(`/api/v1/approval-requests?orderId=${o.id}`)).data;
  return { o, variantId, request };
}

test('a buyer above the threshold waits in pending_approval; manager then finance approve; the order is placed', async () => {
  const sb = await createSandbox(engine.url);
  const { o, request } = await bigOrder(sb);
  assert.equal(o.status, 'pending_approval');
  assert.deepEqual(
    [request.status, request.levels, request.currentLevel, request.amount, request.threshold],
    ['pending', ['manager', 'finance'], 'manager', 5201, 5000],
  );
  const created = await lastEvent(sb, 'approval.request.created');
  assert.deepEqual(
    [created.data.approvalRequestId, created.data.orderId, created.data.currentLevel],
    [request.id, o.id, 'manager'],
  );
  assert.ok(!(await eventTopics(sb)).includes('order.placed'), 'not placed while it waits');

  const wrongLevel = problem(
    await sb.api(`/api/v1/approval-requests/${request.id}/approve`, { body: { approverId: 'cus_0044' } }),
    422,
    'approver_not_eligible',
  );
  assert.deepEqual(paths(wrongLevel), ['/approverId']);
  problem(
    await sb.api(`/api/v1/approval-requests/${request.id}/approve`, { body: { approverId: 'cus_0041' } }),
    422,
    'approver_not_eligible',
  );

  const first = ok(
    await sb.api(`/api/v1/approval-requests/${request.id}/approve`, {
      body: { approverId: 'cus_0043', comment: 'Uygun.' },
    }),
  );
  assert.deepEqual([first.status, first.currentLevel], ['pending', 'finance']);
  const e1 = await lastEvent(sb, 'approval.approved');
  assert.deepEqual(
    [e1.data.level, e1.data.status, e1.data.nextLevel, e1.data.comment],
    ['manager', 'pending', 'finance', 'Uygun.'],
  );
  assert.equal(ok(await sb.api(`/api/v1/orders/${o.id}`)).status, 'pending_approval');

  const done = ok(
    await sb.api(`/api/v1/approval-requests/${request.id}/approve`, { body: { approverId: 'cus_0044' } }),
  );
  assert.deepEqual(
    [done.status, done.currentLevel, done.decisions.map((d: any) => d.level)],
    ['approved', null, ['manager', 'finance']],
  );
  assert.deepEqual(
    [(await lastEvent(sb, 'approval.approved')).data.status, (await lastEvent(sb, 'order.placed')).data.orderId],
    ['approved', o.id],
  );
  assert.equal(ok(await sb.api(`/api/v1/orders/${o.id}`)).status, 'placed');
  const again = problem(
    await sb.api(`/api/v1/approval-requests/${request.id}/approve`, { body: { approverId: 'cus_0044' } }),
    409,
    'approval_request_approved',
  );
  assert.equal(again.currentStatus, 'approved');
  problem(
    await sb.api(`/api/v1/approval-requests/${request.id}/reject`, { body: { approverId: 'cus_0043' } }),
    409,
    'approval_request_approved',
  );
});

test('below the threshold, or ordered by a non-buyer, an order is placed at once', async () => {
  const sb = await createSandbox(engine.url);
  const cheap = await order(sb, [{ variantId: await variantAt(sb, 5000), quantity: 1 }], 'cus_0041');
  assert.equal(cheap.status, 'placed', 'exactly the threshold does not need approval');
  const variantId = await variantAt(sb, 9000);
  assert.equal(
    (await order(sb, [{ variantId, quantity: 1 }], 'cus_0043')).status,
    'placed',
    'approvers are not buyers',
  );
  assert.equal(
    (await order(sb, [{ variantId, quantity: 1 }], 'cus_0001')).status,
    'placed',
    'consumers have no company',
  );
});

test('rejection rejects the order and returns its stock; cancelling a waiting order withdraws the request', async () => {
  const sb = await createSandbox(engine.url);
  const { o, variantId, request } = await bigOrder(sb);
  assert.equal(await stockOf(sb, variantId), 48);
  const rejected = ok(
    await sb.api(`/api/v1/approval-requests/${request.id}/reject`, {
      body: { approverId: 'cus_0043', reason: 'Bütçe yok.' },
    }),
  );
  assert.equal(rejected.status, 'rejected');
  assert.deepEqual(
    [(await lastEvent(sb, 'approval.rejected')).data.reason, (await lastEvent(sb, 'approval.rejected')).data.level],
    ['Bütçe yok.', 'manager'],
  );
  assert.equal(ok(await sb.api(`/api/v1/orders/${o.id}`)).status, 'rejected');
  assert.equal(await stockOf(sb, variantId), 50);
  problem(
    await sb.api(`/api/v1/approval-requests/${request.id}/reject`, { body: { approverId: 'cus_0043' } }),
    409,
    'approval_request_rejected',
  );
  problem(await sb.api(`/api/v1/orders/${o.id}/cancel`, { method: 'POST' }), 409, 'order_rejected');

  const second = await bigOrder(sb);
  ok(await sb.api(`/api/v1/orders/${second.o.id}/cancel`, { method: 'POST' }));
  assert.equal(ok(await sb.api(`/api/v1/approval-requests/${second.request.id}`)).status, 'cancelled');
  problem(
    await sb.api(`/api/v1/approval-requests/${second.request.id}/approve`, { body: { approverId: 'cus_0043' } }),
    409,
    'approval_request_cancelled',
  );
});

test('an undecided request expires on the sandbox clock after the company TTL (72 h): approval.expired, order rejected', async () => {
  const sb = await createSandbox(engine.url);
  const { o, variantId, request } = await bigOrder(sb);
  await advance(sb, 71 * 3600);
  assert.equal(ok(await sb.api(`/api/v1/approval-requests/${request.id}`)).status, 'pending');
  const result = await advance(sb, 2 * 3600);
  assert.ok(result.jobsRun >= 1);
  const expired = ok(await sb.api(`/api/v1/approval-requests/${request.id}`));
  assert.deepEqual([expired.status, expired.decidedAt], ['expired', request.expiresAt]);
  const e = await lastEvent(sb, 'approval.expired');
  assert.deepEqual([e.data.approvalRequestId, e.data.level, e.occurredAt], [request.id, 'manager', request.expiresAt]);
  assert.equal(ok(await sb.api(`/api/v1/orders/${o.id}`)).status, 'rejected');
  assert.equal(await stockOf(sb, variantId), 50);
});

test('validation, unknown references and tenant isolation', async () => {
  const [a, b] = [await createSandbox(engine.url), await createSandbox(engine.url)];
  const { request } = await bigOrder(a);
  assert.deepEqual(
    paths(
      problem(await a.api(`/api/v1/approval-requests/${request.id}/approve`, { body: {} }), 422, 'validation_failed'),
    ),
    ['/approverId'],
  );
  problem(
    await a.api(`/api/v1/approval-requests/${request.id}/approve`, { body: { approverId: 'cus_0043', stamp: 1 } }),
    400,
    'unknown_field',
  );
  problem(
    await a.api(`/api/v1/approval-requests/${request.id}/approve`, { body: { approverId: 'cus_nope' } }),
    422,
    'customer_not_found',
  );
  problem(await b.api(`/api/v1/approval-requests/${request.id}`), 404, 'not_found');
  problem(
    await b.api(`/api/v1/approval-requests/${request.id}/approve`, { body: { approverId: 'cus_0043' } }),
    404,
    'not_found',
  );
  problem(await a.api('/api/v1/approval-requests?status=maybe'), 422, 'validation_failed');
  assert.equal(
    ok(await a.api(`/api/v1/approval-requests/${request.id}`)).status,
    'pending',
    'refusals changed nothing',
  );
});
