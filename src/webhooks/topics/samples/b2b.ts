import {
  approvalApprovedData,
  approvalExpiredData,
  approvalRejectedData,
  approvalRequestCreatedData,
  type ApprovalEventRow,
  type DecisionEventRow,
} from '../data/approvals.ts';
import {
  quoteAcceptedData,
  quoteConvertedData,
  quoteExpiredData,
  quoteRejectedData,
  quoteSentData,
  type QuoteEventRow,
} from '../data/quotes.ts';
import { first, newest, type SampleBuilder } from './rows.ts';

type Q = Parameters<SampleBuilder>[0];

/** A decision of the request as recorded, or one the company's approver at the current level would make. */
async function decisionFor(
  q: Q,
  tenantId: string,
  a: ApprovalEventRow,
  decision: 'approved' | 'rejected',
  now: Date,
): Promise<DecisionEventRow> {
  const recorded = await first<DecisionEventRow>(
    q,
    'select * from approval_decisions where tenant_id = $1 and request_id = $2 and decision = $3 order by position desc limit 1',
    [tenantId, a.id, decision],
  );
  if (recorded) return recorded;
  const level = a.levels[a.level_index];
  const approver = await first<{ id: string }>(
    q,
    `select id from customers where tenant_id = $1 and company_id = $2 and company_role = 'approver' and approval_level = $3 order by id limit 1`,
    [tenantId, a.company_id, level],
  );
  return {
    level,
    approver_id: approver?.id ?? null,
    note: decision === 'rejected' ? 'Bütçe bu çeyrek için kapandı.' : null,
    decided_at: now,
  };
}

const quote = (q: Q, tenantId: string, status: string) =>
  newest<QuoteEventRow>(q, tenantId, 'quotes', `t.status = '${status}'`);

/** B2B samples: approval requests and quotes. */
export const b2bSamples = {
  'approval.request.created': async (q, tenantId) =>
    approvalRequestCreatedData(
      await newest<ApprovalEventRow>(q, tenantId, 'approval_requests', `t.status = 'pending'`),
    ),
  'approval.approved': async (q, tenantId, now) => {
    const a = await newest<ApprovalEventRow>(q, tenantId, 'approval_requests', `t.status = 'approved'`);
    return approvalApprovedData({ ...a, status: 'approved' }, await decisionFor(q, tenantId, a, 'approved', now));
  },
  'approval.rejected': async (q, tenantId, now) => {
    const a = await newest<ApprovalEventRow>(q, tenantId, 'approval_requests', `t.status = 'rejected'`);
    return approvalRejectedData(a, await decisionFor(q, tenantId, a, 'rejected', now));
  },
  'approval.expired': async (q, tenantId, now) => {
    const a = await newest<ApprovalEventRow>(q, tenantId, 'approval_requests', `t.status = 'expired'`);
    return approvalExpiredData({ ...a, decided_at: a.status === 'expired' ? a.decided_at : (a.expires_at ?? now) });
  },
  'quote.sent': async (q, tenantId) => quoteSentData(await quote(q, tenantId, 'sent')),
  'quote.accepted': async (q, tenantId) => quoteAcceptedData(await quote(q, tenantId, 'accepted')),
  'quote.rejected': async (q, tenantId) => quoteRejectedData(await quote(q, tenantId, 'rejected')),
  'quote.converted': async (q, tenantId) => quoteConvertedData(await quote(q, tenantId, 'converted')),
  'quote.expired': async (q, tenantId) => quoteExpiredData(await quote(q, tenantId, 'expired')),
} satisfies Record<string, SampleBuilder>;
