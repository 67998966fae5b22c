import { z } from 'zod';
import { timestamp } from './common.ts';

export const vendorStatuses = ['applied', 'approved', 'rejected', 'suspended'] as const;

const base = {
  vendorId: z.string(),
  name: z.string(),
  commissionBps: z.number().int().describe('Commission in basis points (1200 = 12 %)'),
  at: timestamp.describe('When this transition happened (sandbox clock)'),
};

export const VendorApplied = z.object({
  ...base,
  status: z.literal('applied'),
  previousStatus: z.null(),
  email: z.string().nullable(),
  city: z.string().nullable(),
});
export const VendorApproved = z.object({
  ...base,
  status: z.literal('approved'),
  previousStatus: z.enum(['applied', 'suspended']),
});
export const VendorRejected = z.object({
  ...base,
  status: z.literal('rejected'),
  previousStatus: z.literal('applied'),
  reason: z.string().nullable(),
});
export const VendorSuspended = z.object({
  ...base,
  status: z.literal('suspended'),
  previousStatus: z.literal('approved'),
  reason: z.string().nullable(),
  buyboxesLost: z.number().int().describe('Variants whose buybox this vendor held and lost by the suspension'),
});

export interface VendorEventRow {
  id: string;
  name: string;
  commission_bps: number;
  email: string | null;
  city: string | null;
  status_reason: string | null;
  created_at: Date;
  updated_at: Date | null;
}

const baseOf = (v: VendorEventRow) => ({
  vendorId: v.id,
  name: v.name,
  commissionBps: v.commission_bps,
  at: (v.updated_at ?? v.created_at).toISOString(),
});

export const vendorAppliedData = (v: VendorEventRow): z.output<typeof VendorApplied> => ({
  ...baseOf(v),
  status: 'applied',
  previousStatus: null,
  email: v.email,
  city: v.city,
});
export const vendorApprovedData = (
  v: VendorEventRow,
  previousStatus: 'applied' | 'suspended',
): z.output<typeof VendorApproved> => ({
  ...baseOf(v),
  status: 'approved',
  previousStatus,
});
export const vendorRejectedData = (v: VendorEventRow): z.output<typeof VendorRejected> => ({
  ...baseOf(v),
  status: 'rejected',
  previousStatus: 'applied',
  reason: v.status_reason,
});
export const vendorSuspendedData = (v: VendorEventRow, buyboxesLost: number): z.output<typeof VendorSuspended> => ({
  ...baseOf(v),
  status: 'suspended',
  previousStatus: 'approved',
  reason: v.status_reason,
  buyboxesLost,
});
