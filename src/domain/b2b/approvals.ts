import type { Queryable, Tx } from '../../db/database.ts';
import { toMajor } from '../../shared/money.ts';
import { notFound, illegalTransition, unknownReference } from '../../shared/problem.ts';
import {
  approvalApprovedData,
  approvalExpiredData,
  approvalRejectedData,
  type ApprovalEventRow,
  type DecisionEventRow,
} from '../../webhooks/topics/data/approvals.ts';
import { orderPlacedData } from '../../webhooks/topics/data/orders.ts';
import { columnJobHandler } from '../commerce/jobs.ts';
import { cancelAfterCommit, iso, keyset, keysetParams, type CommerceDeps, type PageOptions } from '../commerce/deps.ts';
import { returnStock } from '../orders/stock.ts';
import { approvalExpiryJob } from './approval-policy.ts';

interface ApprovalRow extends ApprovalEventRow {
  created_at: Date;
  decisions:
    { level: string; approverId: string | null; decision: string; note: string | null; decidedAt: string }[] | null;
}

const select = `
  select a.*, (select json_agg(json_build_object('level', d.level, 'approverId', d.approver_id, 'decision', d.decision, 'note', d.note,
                 'decidedAt', to_char(d.decided_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) order by d.position)
                 from approval_decisions d where d.tenant_id = a.tenant_id and d.request_id = a.id) as decisions
    from approval_requests a`;

const toApproval = (a: ApprovalRow) => ({
  id: a.id,
  orderId: a.order_id,
  companyId: a.company_id,
  buyerId: a.buyer_id,
  status: a.status,
  levels: a.levels,
  currentLevel: a.status === 'pending' ? a.levels[a.level_index] : null,
  amount: toMajor(a.amount_minor),
  threshold: toMajor(a.threshold_minor),
  currency: a.currency,
  expiresAt: iso(a.expires_at),
  decidedAt: iso(a.decided_at),
  decisions: a.decisions ?? [],
  createdAt: a.created_at.toISOString(),
});

export type ApprovalRequest = ReturnType<typeof toApproval>;

/** One approval request with its decisions; 404 for another sandbox's. */
export async function getApprovalRequest(q: Queryable, tenantId: string, id: string): Promise<ApprovalRequest> {
  const [row] = await q.query<ApprovalRow>(`${select} where a.tenant_id = $1 and a.id = $2`, [tenantId, id]);
  if (!row) throw notFound('approval request');
  return toApproval(row);
}

/** Approval requests, newest first, by status, company or order. */
export async function listApprovalRequests(
  q: Queryable,
  tenantId: string,
  page: PageOptions & { status?: string; companyId?: string; orderId?: string },
): Promise<ApprovalRequest[]> {
  const k = keyset('a', 6);
  const rows = await q.query<ApprovalRow>(
    `${select} where a.tenant_id = $1 and ($3::text is null or a.status = $3) and ($4::text is null or a.company_id = $4)
        and ($5::text is null or a.order_id = $5) and ${k.where} ${k.order} limit $2`,
    [tenantId, page.limit, page.status ?? null, page.companyId ?? null, page.orderId ?? null, ...keysetParams(page)],
  );
  return rows.map(toApproval);
}

/** Locks a pending request, or refuses with the <object>_<state> 409. */
async function lockPending(tx: Tx, tenantId: string, id: string, action: string): Promise<ApprovalEventRow> {
  const [row] = await tx.query<ApprovalEventRow>(
    'select * from approval_requests where tenant_id = $1 and id = $2 for update',
    [tenantId, id],
  );
  if (!row) throw notFound('approval request');
  if (row.status !== 'pending') throw illegalTransition('approval_request', row.status, action);
  return row;
}

/** The approver must be an approver of the request's company at the level that is up. */
async function checkApprover(tx: Tx, tenantId: string, request: ApprovalEventRow, approverId: string): Promise<void> {
  const [c] = await tx.query<{ company_id: string | null; company_role: string | null; approval_level: string | null }>(
    'select company_id, company_role, approval_level from customers where tenant_id = $1 and id = $2',
    [tenantId, approverId],
  );
  if (!c) throw unknownReference('customer_not_found', '/approverId', `No customer ${approverId} in this sandbox.`);
  const level = request.levels[request.level_index];
  if (c.company_id !== request.company_id || c.company_role !== 'approver' || c.approval_level !== level) {
    throw unknownReference(
      'approver_not_eligible',
      '/approverId',
      `${approverId} is not a ${level} approver of ${request.company_id}.`,
    );
  }
}

async function recordDecision(
  tx: Tx,
  tenantId: string,
  a: ApprovalEventRow,
  decision: string,
  approverId: string | null,
  note: string | null,
  at: Date,
): Promise<DecisionEventRow> {
  const [d] = await tx.query<DecisionEventRow>(
    `insert into approval_decisions (tenant_id, request_id, position, level, approver_id, decision, note, decided_at)
     values ($1, $2, (select count(*) from approval_decisions where tenant_id = $1 and request_id = $2), $3, $4, $5, $6, $7) returning *`,
    [tenantId, a.id, a.levels[a.level_index], approverId, decision, note, at],
  );
  return d;
}

/**
 * Approves the level that is up. The last level's approval places the order (order.placed);
 * before that the request moves on to the next level.
 */
export async function approveRequest(
  deps: CommerceDeps,
  tenantId: string,
  id: string,
  input: { approverId: string; comment?: string },
): Promise<ApprovalRequest> {
  await deps.db.transaction(async (tx) => {
    const a = await lockPending(tx, tenantId, id, 'approve');
    await checkApprover(tx, tenantId, a, input.approverId);
    const now = deps.clock.now(tenantId);
    const d = await recordDecision(tx, tenantId, a, 'approved', input.approverId, input.comment ?? null, now);
    const last = a.level_index + 1 >= a.levels.length;
    const [after] = await tx.query<ApprovalEventRow>(
      `update approval_requests set level_index = level_index + $3, status = $4, decided_at = $5, updated_at = $6
        where tenant_id = $1 and id = $2 returning *`,
      [tenantId, id, last ? 0 : 1, last ? 'approved' : 'pending', last ? now : null, now],
    );
    if (last) cancelAfterCommit(tx, deps, approvalExpiryJob, tenantId, id);
    await deps.events.emit(tx, tenantId, 'approval.approved', approvalApprovedData(after, d), { occurredAt: now });
    if (!last) return;
    const [order] = await tx.query<{ id: string; total_minor: number; currency: string; customer_id: string }>(
      `update orders set status = 'placed', updated_at = $3 where tenant_id = $1 and id = $2 and status = 'pending_approval'
       returning id, total_minor, currency, customer_id`,
      [tenantId, a.order_id, now],
    );
    if (order) await deps.events.emit(tx, tenantId, 'order.placed', orderPlacedData(order), { occurredAt: now });
  });
  return getApprovalRequest(deps.db, tenantId, id);
}

/** Ends a request without approval (rejected or expired): the order is rejected and its stock returned. */
async function close(
  tx: Tx,
  tenantId: string,
  a: ApprovalEventRow,
  status: 'rejected' | 'expired',
  at: Date,
): Promise<ApprovalEventRow> {
  const [after] = await tx.query<ApprovalEventRow>(
    `update approval_requests set status = $3, decided_at = $4, updated_at = $4 where tenant_id = $1 and id = $2 returning *`,
    [tenantId, a.id, status, at],
  );
  const [order] = await tx.query(
    `update orders set status = 'rejected', updated_at = $3 where tenant_id = $1 and id = $2 and status = 'pending_approval' returning id`,
    [tenantId, a.order_id, at],
  );
  if (order) await returnStock(tx, tenantId, a.order_id);
  return after;
}

/** Rejects at the level that is up: the order is rejected and its stock returned (approval.rejected). */
export async function rejectRequest(
  deps: CommerceDeps,
  tenantId: string,
  id: string,
  input: { approverId: string; reason?: string },
): Promise<ApprovalRequest> {
  await deps.db.transaction(async (tx) => {
    const a = await lockPending(tx, tenantId, id, 'reject');
    await checkApprover(tx, tenantId, a, input.approverId);
    const now = deps.clock.now(tenantId);
    const d = await recordDecision(tx, tenantId, a, 'rejected', input.approverId, input.reason ?? null, now);
    const after = await close(tx, tenantId, a, 'rejected', now);
    cancelAfterCommit(tx, deps, approvalExpiryJob, tenantId, id);
    await deps.events.emit(tx, tenantId, 'approval.rejected', approvalRejectedData(after, d), { occurredAt: now });
  });
  return getApprovalRequest(deps.db, tenantId, id);
}

/** Pending requests expire at expires_at on the sandbox clock: the order is rejected. */
export const approvalExpiryHandler = (deps: CommerceDeps) =>
  columnJobHandler(deps, {
    kind: approvalExpiryJob,
    table: 'approval_requests',
    column: 'expires_at',
    pending: `status = 'pending'`,
    async run(tx, tenantId, id, asOf) {
      const [a] = await tx.query<ApprovalEventRow>('select * from approval_requests where tenant_id = $1 and id = $2', [
        tenantId,
        id,
      ]);
      await recordDecision(tx, tenantId, a, 'expired', null, null, asOf);
      const after = await close(tx, tenantId, a, 'expired', asOf);
      await deps.events.emit(tx, tenantId, 'approval.expired', approvalExpiredData(after), { occurredAt: asOf });
    },
  });
