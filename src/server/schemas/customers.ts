import { z } from 'zod';
import { Money, text, Timestamp } from './common.ts';
import { Amount } from './amounts.ts';

const Email = z.string().trim().max(254).email('Must be an email address.');
const Phone = z
  .string()
  .trim()
  .regex(/^\+?[\d ()-]{7,20}$/, 'Must be a phone number, e.g. +90 532 123 45 67.');
const Level = z
  .string()
  .trim()
  .regex(/^[a-z][a-z0-9_]{0,29}$/, 'Lower-case letters, digits and _ (e.g. manager, finance).');

export const CreateCustomerRequest = z
  .object({
    name: text(200),
    email: Email,
    phone: Phone.optional(),
    address: z
      .object({
        city: text(100).describe('One of the 81 provinces of Türkiye'),
        district: text(100),
        line: z.string().max(300).optional(),
      })
      .strict(),
    companyId: z.string().min(1).max(100).optional(),
    companyRole: z.enum(['buyer', 'approver']).optional(),
    approvalLevel: Level.optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (Boolean(c.companyId) !== Boolean(c.companyRole)) {
      ctx.addIssue({
        code: 'custom',
        path: [c.companyId ? 'companyRole' : 'companyId'],
        message: 'companyId and companyRole go together.',
      });
    }
    if (c.companyRole === 'approver' && !c.approvalLevel)
      ctx.addIssue({ code: 'custom', path: ['approvalLevel'], message: 'Required for an approver.' });
    if (c.companyRole !== 'approver' && c.approvalLevel)
      ctx.addIssue({ code: 'custom', path: ['approvalLevel'], message: 'Only approvers have a level.' });
  })
  .meta({ id: 'CreateCustomerRequest' });

export const Customer = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    phone: z.string().nullable(),
    address: z.object({ city: z.string(), district: z.string(), line: z.string().nullable() }),
    type: z.enum(['individual', 'business']),
    companyId: z.string().nullable(),
    companyRole: z.enum(['buyer', 'approver']).nullable(),
    approvalLevel: z.string().nullable(),
    createdAt: Timestamp,
  })
  .meta({ id: 'Customer' });

export const ListCustomersQuery = z.object({
  companyId: z.string().max(100).optional(),
  city: z.string().max(100).optional(),
});

export const CreateCompanyRequest = z
  .object({
    name: text(200),
    taxNumber: z.string().regex(/^\d{10}$/, 'A 10-digit tax number (VKN).'),
    approvalThreshold: Amount.describe('Orders of a buyer above this total wait for approval'),
    approvalLevels: z
      .array(Level)
      .min(1, 'At least 1 level.')
      .max(5, 'At most 5 levels.')
      .refine((l) => new Set(l).size === l.length, 'Levels must differ.')
      .default(['manager', 'finance']),
    approvalTtlHours: z
      .number()
      .int()
      .min(1)
      .max(720)
      .default(72)
      .describe('A request not decided in time expires (sandbox clock)'),
  })
  .strict()
  .meta({ id: 'CreateCompanyRequest' });

export const Company = z
  .object({
    id: z.string(),
    name: z.string(),
    taxNumber: z.string(),
    approvalThreshold: Money,
    currency: z.string(),
    approvalLevels: z.array(z.string()),
    approvalTtlHours: z.number().int(),
    createdAt: Timestamp,
  })
  .meta({ id: 'Company' });
