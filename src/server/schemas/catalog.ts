import { z } from 'zod';
import { productStatuses } from '../../webhooks/topics/data/catalog.ts';
import { Amount } from './amounts.ts';
import { Money, text, Timestamp } from './common.ts';

const Sku = z
  .string()
  .trim()
  .min(1, 'Must not be empty.')
  .max(64, 'At most 64 characters.')
  .regex(/^[\w.-]+$/, 'Letters, digits, -, _ and . only.');
const Stock = z.number().int().min(0).max(1_000_000);

export const CreateProductRequest = z
  .object({
    name: text(200),
    description: z.string().max(5000).optional(),
    category: text(100),
    vendorId: z.string().min(1).max(100).optional(),
    variants: z
      .array(z.object({ sku: Sku, name: text(100), price: Amount, stock: Stock }).strict())
      .min(1, 'At least 1 variant.')
      .max(50, 'At most 50 variants.'),
  })
  .strict()
  .meta({ id: 'CreateProductRequest' });

export const UpdateProductRequest = z
  .object({
    name: text(200).optional(),
    description: z.string().max(5000).nullable().optional(),
    category: text(100).optional(),
  })
  .strict()
  .meta({ id: 'UpdateProductRequest' });

export const UpdateVariantRequest = z
  .object({ name: text(100).optional(), price: Amount.optional(), stock: Stock.optional() })
  .strict()
  .meta({ id: 'UpdateVariantRequest' });

const Variant = z
  .object({ id: z.string(), sku: z.string(), name: z.string(), price: Money, stock: z.number().int() })
  .meta({ id: 'Variant' });

export const Product = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    category: z.string(),
    status: z.enum(productStatuses),
    vendorId: z.string().nullable(),
    currency: z.string(),
    variants: z.array(Variant),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    publishedAt: Timestamp.nullable(),
    archivedAt: Timestamp.nullable(),
  })
  .meta({ id: 'Product' });

export const ListProductsQuery = z.object({
  status: z.enum(productStatuses).optional(),
  category: z.string().max(100).optional(),
  vendorId: z.string().max(100).optional(),
});
