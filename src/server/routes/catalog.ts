import {
  archiveProduct,
  createProduct,
  getProduct,
  listProducts,
  publishProduct,
} from '../../domain/catalog/products.ts';
import { updateProduct, updateVariant } from '../../domain/catalog/updates.ts';
import { tenantOf } from '../auth/principal.ts';
import { listQuery } from '../pagination.ts';
import { route } from '../route.ts';
import { minor, minorOrUndefined } from '../schemas/amounts.ts';
import {
  CreateProductRequest,
  ListProductsQuery,
  Product,
  UpdateProductRequest,
  UpdateVariantRequest,
} from '../schemas/catalog.ts';
import { idParam, listOf } from '../schemas/common.ts';
import type { Services } from '../services.ts';
import { pageOf } from './paging.ts';
import { refusedIn } from '../openapi-errors.ts';
import { productStatuses } from '../../webhooks/topics/data/catalog.ts';

const tags = ['Catalog'];

/** Products and variants. */
export const catalogRoutes = (s: Services) => [
  route({
    method: 'post',
    path: '/api/v1/products',
    operationId: 'createProduct',
    tags,
    access: 'sandbox',
    scope: 'catalog:write',
    errors: { 409: ['sku_taken'], 422: ['vendor_not_found'] },
    summary: 'Create a draft product with its variants; emits product.created.',
    body: CreateProductRequest,
    responses: { 201: Product },
    handler: async ({ body, principal }) => ({
      status: 201,
      body: await createProduct(s, tenantOf(principal), {
        ...body,
        variants: body.variants.map((v) => ({ ...v, priceMinor: minor(v.price) })),
      }),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/products',
    operationId: 'listProducts',
    tags,
    access: 'sandbox',
    scope: 'catalog:read',
    summary: 'List products, newest first.',
    query: listQuery.extend(ListProductsQuery.shape),
    responses: { 200: listOf(Product) },
    handler: async ({ query, principal, ctx }) => ({
      body: await pageOf(s, { query, principal, ctx }, (page) =>
        listProducts(s.db, tenantOf(principal), { ...query, ...page }),
      ),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/products/:id',
    operationId: 'getProduct',
    tags,
    access: 'sandbox',
    scope: 'catalog:read',
    summary: 'Get a product with its variants.',
    params: idParam,
    responses: { 200: Product },
    handler: async ({ params, principal }) => ({ body: await getProduct(s.db, tenantOf(principal), params.id) }),
  }),
  route({
    method: 'patch',
    path: '/api/v1/products/:id',
    operationId: 'updateProduct',
    tags,
    access: 'sandbox',
    scope: 'catalog:write',
    errors: { 409: ['product_archived'] },
    summary: 'Change name, description or category; emits product.updated with what changed.',
    params: idParam,
    body: UpdateProductRequest,
    responses: { 200: Product },
    handler: async ({ params, body, principal }) => ({
      body: await updateProduct(s, tenantOf(principal), params.id, body),
    }),
  }),
  route({
    method: 'post',
    path: '/api/v1/products/:id/publish',
    operationId: 'publishProduct',
    tags,
    access: 'sandbox',
    scope: 'catalog:write',
    errors: { 409: [...refusedIn('product', productStatuses, ['draft', 'archived']), 'product_has_no_variants'] },
    summary: 'draft or archived → published (orderable); emits product.published.',
    params: idParam,
    responses: { 200: Product },
    handler: async ({ params, principal }) => ({ body: await publishProduct(s, tenantOf(principal), params.id) }),
  }),
  route({
    method: 'post',
    path: '/api/v1/products/:id/archive',
    operationId: 'archiveProduct',
    tags,
    access: 'sandbox',
    scope: 'catalog:write',
    errors: { 409: refusedIn('product', productStatuses, ['draft', 'published']) },
    summary: 'draft or published → archived (no longer orderable or editable); emits product.archived.',
    params: idParam,
    responses: { 200: Product },
    handler: async ({ params, principal }) => ({ body: await archiveProduct(s, tenantOf(principal), params.id) }),
  }),
  route({
    method: 'patch',
    path: '/api/v1/variants/:id',
    operationId: 'updateVariant',
    tags,
    access: 'sandbox',
    scope: 'catalog:write',
    errors: { 409: ['product_archived'] },
    summary: "Change a variant's name, price or stock; emits product.updated (fields like variants.<id>.price).",
    params: idParam,
    body: UpdateVariantRequest,
    responses: { 200: Product },
    handler: async ({ params, body, principal }) => ({
      body: await updateVariant(s, tenantOf(principal), params.id, {
        name: body.name,
        priceMinor: minorOrUndefined(body.price),
        stock: body.stock,
      }),
    }),
  }),
];
