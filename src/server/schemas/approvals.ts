import { z } from 'zod';
import { Money, Timestamp } from './common.ts';

export const approvalStatuses = ['pending', 'approved', 'rejected', 'expired', 'cancelled'] as const;

export const ApproveRequest = z
  .object({
    approverId: z
      .string()
      .min(1)
      .max(100)
      .describe('A customer of the company with the approver role at the current level'),
    comment: z.string().max(1000).optional(),
  })
  .strict()
  .meta({ id: 'ApproveRequest' });

export const RejectApprovalRequest = z
  .object({ approverId: z.string().min(1).max(100), reason: z.string().max(1000).optional() })
  .strict()
  .meta({ id: 'RejectApprovalRequest' });

export const ApprovalRequest = z
  .object({
    id: z.string(),
    orderId: z.string(),
    companyId: z.string(),
    buyerId: z.string(),
    status: z.enum(approvalStatuses),
    levels: z.array(z.string()),
    currentLevel: z.string().nullable(),
    amount: Money,
    threshold: Money,
    currency: z.string(),
    expiresAt: Timestamp.nullable(),
    decidedAt: Timestamp.nullable(),
    decisions: z.array(
      z.object({
        level: z.string(),
        approverId: z.string().nullable(),
        decision: z.enum(['approved', 'rejected', 'expired']),
        note: z.string().nullable(),
        decidedAt: Timestamp,
      }),
    ),
    createdAt: Timestamp,
  })
  .meta({ id: 'ApprovalRequest' });

export const ListApprovalsQuery = z.object({
  status: z.enum(approvalStatuses).optional(),
  companyId: z.string().max(100).optional(),
  orderId: z.string().max(100).optional(),
});
