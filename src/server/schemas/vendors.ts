import { z } from 'zod';
import { validTurkishIban } from '../../domain/payouts/test-bank.ts';
import { vendorStatuses } from '../../webhooks/topics/data/vendors.ts';
import { Amount } from './amounts.ts';
import { Money, text, Timestamp } from './common.ts';

const Iban = z
  .string()
  .transform((s) => s.replace(/\s/g, '').toUpperCase())
  .pipe(z.string().refine(validTurkishIban, 'Not a valid Turkish IBAN (TR + 24 digits with a correct check).'));
const Commission = z.number().int().min(0).max(5000).describe('Basis points, 0–5000 (1200 = 12 %)');

export const ApplyVendorRequest = z
  .object({
    name: text(200),
    email: z.string().trim().max(254).email('Must be an email address.'),
    city: text(100).optional(),
    taxNumber: z.string().regex(/^\d{10}$/, 'A 10-digit tax number (VKN).'),
    iban: Iban,
    commissionBps: Commission.optional(),
  })
  .strict()
  .meta({ id: 'ApplyVendorRequest' });

export const UpdateVendorRequest = z
  .object({
    email: z.string().trim().max(254).email('Must be an email address.').optional(),
    city: text(100).optional(),
    iban: Iban.optional(),
    standing: z.number().int().min(0).max(100).optional().describe('0–100; breaks buybox ties'),
    commissionBps: Commission.optional(),
  })
  .strict()
  .meta({ id: 'UpdateVendorRequest' });

export const VendorDecisionRequest = z
  .object({ reason: text(1000).optional() })
  .strict()
  .meta({ id: 'VendorDecisionRequest' });

export const Vendor = z
  .object({
    id: z.string(),
    name: z.string(),
    status: z.enum(vendorStatuses),
    statusReason: z.string().nullable(),
    email: z.string().nullable(),
    city: z.string().nullable(),
    taxNumber: z.string().nullable(),
    iban: z.string().nullable(),
    commissionBps: z.number().int(),
    standing: z.number().int(),
    createdAt: Timestamp,
    updatedAt: Timestamp.nullable(),
    decidedAt: Timestamp.nullable(),
  })
  .meta({ id: 'Vendor' });

export const ListVendorsQuery = z.object({ status: z.enum(vendorStatuses).optional() });

export const CreateOfferRequest = z
  .object({
    variantId: z.string().min(1).max(100),
    price: Amount.refine((v) => v > 0, 'Must be greater than 0.'),
    shippingFee: Amount.default(0),
    stock: z.number().int().min(0).max(1_000_000),
  })
  .strict()
  .meta({ id: 'CreateOfferRequest' });

export const UpdateOfferRequest = z
  .object({
    price: Amount.refine((v) => v > 0, 'Must be greater than 0.').optional(),
    shippingFee: Amount.optional(),
    stock: z.number().int().min(0).max(1_000_000).optional(),
  })
  .strict()
  .meta({ id: 'UpdateOfferRequest' });

export const Offer = z
  .object({
    id: z.string(),
    vendorId: z.string(),
    variantId: z.string(),
    price: Money,
    shippingFee: Money,
    landedPrice: Money,
    stock: z.number().int(),
    currency: z.string(),
    winsBuybox: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Offer' });

export const ListOffersQuery = z.object({ variantId: z.string().max(100).optional() });

const RankedOffer = z.object({
  offerId: z.string(),
  vendorId: z.string(),
  price: Money,
  shippingFee: Money,
  landedPrice: Money,
  stock: z.number().int(),
  vendorStanding: z.number().int(),
  eligible: z.boolean().describe('Approved vendor with stock'),
});

export const Buybox = z
  .object({
    variantId: z.string(),
    productId: z.string(),
    currency: z.string(),
    winner: RankedOffer.nullable(),
    offers: z.array(RankedOffer).describe('In buybox order: landed price, then stock, then vendor standing'),
  })
  .meta({ id: 'Buybox' });
