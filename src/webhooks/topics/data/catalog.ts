import { z } from 'zod';
import { toMajor } from '../../../shared/money.ts';
import { currency, isoOrNull, money, timestamp } from './common.ts';

export const productStatuses = ['draft', 'published', 'archived'] as const;

export const ProductCreated = z.object({
  productId: z.string(),
  name: z.string(),
  category: z.string(),
  status: z.enum(productStatuses),
  vendorId: z.string().nullable(),
  currency,
  variants: z.array(
    z.object({ variantId: z.string(), sku: z.string(), name: z.string(), price: money, stock: z.number().int() }),
  ),
  createdAt: timestamp,
});

export const ProductUpdated = z.object({
  productId: z.string(),
  name: z.string(),
  status: z.enum(productStatuses),
  changedFields: z.array(z.string()).describe('e.g. name, description, variants.var_0001.price'),
  previous: z.record(z.string(), z.unknown()).describe('The changed fields before, keyed like changedFields'),
  current: z.record(z.string(), z.unknown()).describe('The changed fields after'),
});

export const ProductPublished = z.object({
  productId: z.string(),
  name: z.string(),
  status: z.literal('published'),
  previousStatus: z.enum(['draft', 'archived']),
  variantCount: z.number().int(),
  publishedAt: timestamp,
});

export const ProductArchived = z.object({
  productId: z.string(),
  name: z.string(),
  status: z.literal('archived'),
  previousStatus: z.enum(['draft', 'published']),
  archivedAt: timestamp,
});

export interface ProductEventRow {
  id: string;
  name: string;
  category: string;
  status: string;
  vendor_id: string | null;
  created_at: Date;
  published_at: Date | null;
  archived_at: Date | null;
}

export interface VariantEventRow {
  id: string;
  sku: string;
  name: string;
  price_minor: number;
  stock: number;
}

/** One changed field: its key in changedFields and its values before and after (money in major units). */
export interface FieldChange {
  field: string;
  previous: unknown;
  current: unknown;
}

export const productCreatedData = (
  p: ProductEventRow,
  variants: VariantEventRow[],
): z.output<typeof ProductCreated> => ({
  productId: p.id,
  name: p.name,
  category: p.category,
  status: p.status as 'draft',
  vendorId: p.vendor_id,
  currency: 'TRY',
  variants: variants.map((v) => ({
    variantId: v.id,
    sku: v.sku,
    name: v.name,
    price: toMajor(v.price_minor),
    stock: v.stock,
  })),
  createdAt: p.created_at.toISOString(),
});

export const productUpdatedData = (p: ProductEventRow, changes: FieldChange[]): z.output<typeof ProductUpdated> => ({
  productId: p.id,
  name: p.name,
  status: p.status as 'draft',
  changedFields: changes.map((c) => c.field),
  previous: Object.fromEntries(changes.map((c) => [c.field, c.previous])),
  current: Object.fromEntries(changes.map((c) => [c.field, c.current])),
});

export const productPublishedData = (
  p: ProductEventRow,
  previousStatus: 'draft' | 'archived',
  variantCount: number,
): z.output<typeof ProductPublished> => ({
  productId: p.id,
  name: p.name,
  status: 'published',
  previousStatus,
  variantCount,
  publishedAt: isoOrNull(p.published_at) ?? '',
});

export const productArchivedData = (
  p: ProductEventRow,
  previousStatus: 'draft' | 'published',
): z.output<typeof ProductArchived> => ({
  productId: p.id,
  name: p.name,
  status: 'archived',
  previousStatus,
  archivedAt: isoOrNull(p.archived_at) ?? '',
});
