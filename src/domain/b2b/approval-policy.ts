import type { Queryable, Tx } from '../../db/database.ts';
import { newId } from '../../shared/ids.ts';
import { approvalRequestCreatedData, type ApprovalEventRow } from '../../webhooks/topics/data/approvals.ts';
import { scheduleAfterCommit, type CommerceDeps } from '../commerce/deps.ts';

export const approvalExpiryJob = 'approval.expire';

/** What a buyer's company asks of orders: above the threshold, approval at each level in turn. */
export interface ApprovalPolicy {
  companyId: string;
  thresholdMinor: number;
  levels: string[];
  ttlHours: number;
}

/** The approval policy for a customer's orders: set for a company's buyers, null for everyone else. */
export async function approvalPolicyFor(
  q: Queryable,
  tenantId: string,
  customerId: string,
): Promise<ApprovalPolicy | null> {
  const [row] = await q.query<{
    id: string;
    approval_threshold_minor: number;
    approval_levels: string[];
    approval_ttl_hours: number;
  }>(
    `select co.id, co.approval_threshold_minor, co.approval_levels, co.approval_ttl_hours
       from customers c join companies co on co.tenant_id = c.tenant_id and co.id = c.company_id
      where c.tenant_id = $1 and c.id = $2 and c.company_role = 'buyer'`,
    [tenantId, customerId],
  );
  return row
    ? {
        companyId: row.id,
        thresholdMinor: row.approval_threshold_minor,
        levels: row.approval_levels,
        ttlHours: row.approval_ttl_hours,
      }
    : null;
}

/** Opens the approval request of an order that waits in pending_approval; it expires on the sandbox clock. */
export async function openApprovalRequest(
  tx: Tx,
  deps: CommerceDeps,
  tenantId: string,
  order: { id: string; total_minor: number; currency: string; customer_id: string },
  policy: ApprovalPolicy,
  now: Date,
): Promise<void> {
  const expiresAt = new Date(now.getTime() + policy.ttlHours * 3600_000);
  const [row] = await tx.query<ApprovalEventRow>(
    `insert into approval_requests (tenant_id, id, order_id, company_id, buyer_id, status, levels, level_index, amount_minor, currency,
                                    threshold_minor, expires_at, created_at, updated_at)
     values ($1, $2, $3, $4, $5, 'pending', $6, 0, $7, $8, $9, $10, $11, $11) returning *`,
    [
      tenantId,
      newId('apr'),
      order.id,
      policy.companyId,
      order.customer_id,
      policy.levels,
      order.total_minor,
      order.currency,
      policy.thresholdMinor,
      expiresAt,
      now,
    ],
  );
  await deps.events.emit(tx, tenantId, 'approval.request.created', approvalRequestCreatedData(row), {
    occurredAt: now,
  });
  await scheduleAfterCommit(tx, deps, approvalExpiryJob, tenantId, row.id, expiresAt);
}
