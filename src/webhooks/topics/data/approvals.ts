import { z } from 'zod';
import { toMajor } from '../../../shared/money.ts';
import { currency, isoOrNull, money, timestamp } from './common.ts';

const base = {
  approvalRequestId: z.string(),
  orderId: z.string(),
  companyId: z.string(),
  amount: money,
  currency,
};

export const ApprovalRequestCreated = z.object({
  ...base,
  buyerId: z.string(),
  threshold: money,
  levels: z.array(z.string()).describe('Approval levels in order, e.g. manager then finance'),
  currentLevel: z.string(),
  status: z.literal('pending'),
  expiresAt: timestamp.nullable(),
});

export const ApprovalApproved = z.object({
  ...base,
  level: z.string().describe('The level this decision was made at'),
  approverId: z.string(),
  comment: z.string().nullable(),
  previousStatus: z.literal('pending'),
  status: z
    .enum(['pending', 'approved'])
    .describe('approved once the last level approved; pending while levels remain'),
  nextLevel: z.string().nullable(),
});

export const ApprovalRejected = z.object({
  ...base,
  level: z.string(),
  approverId: z.string(),
  reason: z.string().nullable(),
  previousStatus: z.literal('pending'),
  status: z.literal('rejected'),
});

export const ApprovalExpired = z.object({
  ...base,
  level: z.string().describe('The level that did not decide in time'),
  previousStatus: z.literal('pending'),
  status: z.literal('expired'),
  expiredAt: timestamp,
});

export interface ApprovalEventRow {
  id: string;
  order_id: string;
  company_id: string;
  buyer_id: string;
  status: string;
  levels: string[];
  level_index: number;
  amount_minor: number;
  currency: string;
  threshold_minor: number;
  expires_at: Date | null;
  decided_at: Date | null;
}

/** A decision as recorded: the level it was made at, by whom, with what note. */
export interface DecisionEventRow {
  level: string;
  approver_id: string | null;
  note: string | null;
  decided_at: Date;
}

const baseOf = (a: ApprovalEventRow) => ({
  approvalRequestId: a.id,
  orderId: a.order_id,
  companyId: a.company_id,
  amount: toMajor(a.amount_minor),
  currency: a.currency,
});

export const approvalRequestCreatedData = (a: ApprovalEventRow): z.output<typeof ApprovalRequestCreated> => ({
  ...baseOf(a),
  buyerId: a.buyer_id,
  threshold: toMajor(a.threshold_minor),
  levels: a.levels,
  currentLevel: a.levels[a.level_index],
  status: 'pending',
  expiresAt: isoOrNull(a.expires_at),
});

/** `a` is the request after the decision: still pending at the next level, or approved. */
export const approvalApprovedData = (a: ApprovalEventRow, d: DecisionEventRow): z.output<typeof ApprovalApproved> => ({
  ...baseOf(a),
  level: d.level,
  approverId: d.approver_id ?? '',
  comment: d.note,
  previousStatus: 'pending',
  status: a.status === 'approved' ? 'approved' : 'pending',
  nextLevel: a.status === 'approved' ? null : a.levels[a.level_index],
});

export const approvalRejectedData = (a: ApprovalEventRow, d: DecisionEventRow): z.output<typeof ApprovalRejected> => ({
  ...baseOf(a),
  level: d.level,
  approverId: d.approver_id ?? '',
  reason: d.note,
  previousStatus: 'pending',
  status: 'rejected',
});

export const approvalExpiredData = (a: ApprovalEventRow): z.output<typeof ApprovalExpired> => ({
  ...baseOf(a),
  level: a.levels[a.level_index],
  previousStatus: 'pending',
  status: 'expired',
  expiredAt: isoOrNull(a.decided_at) ?? '',
});
