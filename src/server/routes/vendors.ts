import { getBuybox } from '../../domain/buybox/buybox.ts';
import { createOffer, deleteOffer, getOffer, listOffers, updateOffer } from '../../domain/vendors/offers.ts';
import {
  applyVendor,
  approveVendor,
  getVendor,
  listVendors,
  rejectVendor,
  suspendVendor,
  updateVendor,
} from '../../domain/vendors/vendors.ts';
import { tenantOf } from '../auth/principal.ts';
import { listQuery } from '../pagination.ts';
import { route } from '../route.ts';
import { minor, minorOrUndefined } from '../schemas/amounts.ts';
import { idParam, listOf } from '../schemas/common.ts';
import {
  ApplyVendorRequest,
  Buybox,
  CreateOfferRequest,
  ListOffersQuery,
  ListVendorsQuery,
  Offer,
  UpdateOfferRequest,
  UpdateVendorRequest,
  Vendor,
  VendorDecisionRequest,
} from '../schemas/vendors.ts';
import type { Services } from '../services.ts';
import { pageOf } from './paging.ts';
import { refusedIn } from '../openapi-errors.ts';
import { vendorStatuses } from '../../webhooks/topics/data/vendors.ts';

const tags = ['Marketplace'];

const vendorRoutes = (s: Services) => [
  route({
    method: 'post',
    path: '/api/v1/vendors',
    operationId: 'applyVendor',
    tags,
    access: 'sandbox',
    scope: 'vendors:write',
    summary: 'A seller applies to the marketplace (vendor.applied).',
    body: ApplyVendorRequest,
    responses: { 201: Vendor },
    handler: async ({ body, principal }) => ({ status: 201, body: await applyVendor(s, tenantOf(principal), body) }),
  }),
  route({
    method: 'get',
    path: '/api/v1/vendors',
    operationId: 'listVendors',
    tags,
    access: 'sandbox',
    scope: 'vendors:read',
    summary: 'List vendors, newest first.',
    query: listQuery.extend(ListVendorsQuery.shape),
    responses: { 200: listOf(Vendor) },
    handler: async ({ query, principal, ctx }) => ({
      body: await pageOf(s, { query, principal, ctx }, (page) =>
        listVendors(s.db, tenantOf(principal), { ...query, ...page }),
      ),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/vendors/:id',
    operationId: 'getVendor',
    tags,
    access: 'sandbox',
    scope: 'vendors:read',
    summary: 'Get a vendor.',
    params: idParam,
    responses: { 200: Vendor },
    handler: async ({ params, principal }) => ({ body: await getVendor(s.db, tenantOf(principal), params.id) }),
  }),
  route({
    method: 'patch',
    path: '/api/v1/vendors/:id',
    operationId: 'updateVendor',
    tags,
    access: 'sandbox',
    scope: 'vendors:write',
    summary: 'Change contact, bank account, commission or standing (a new standing can move buyboxes).',
    params: idParam,
    body: UpdateVendorRequest,
    responses: { 200: Vendor },
    handler: async ({ params, body, principal }) => ({
      body: await updateVendor(s, tenantOf(principal), params.id, body),
    }),
  }),
  route({
    method: 'post',
    path: '/api/v1/vendors/:id/approve',
    operationId: 'approveVendor',
    tags,
    access: 'sandbox',
    scope: 'vendors:write',
    errors: { 409: refusedIn('vendor', vendorStatuses, ['applied', 'suspended']) },
    summary: 'applied → approved, or suspended → approved (reinstated); vendor.approved.',
    params: idParam,
    responses: { 200: Vendor },
    handler: async ({ params, principal }) => ({ body: await approveVendor(s, tenantOf(principal), params.id) }),
  }),
  route({
    method: 'post',
    path: '/api/v1/vendors/:id/reject',
    operationId: 'rejectVendor',
    tags,
    access: 'sandbox',
    scope: 'vendors:write',
    errors: { 409: refusedIn('vendor', vendorStatuses, ['applied']) },
    summary: 'applied → rejected (vendor.rejected).',
    params: idParam,
    body: VendorDecisionRequest,
    responses: { 200: Vendor },
    handler: async ({ params, body, principal }) => ({
      body: await rejectVendor(s, tenantOf(principal), params.id, body.reason),
    }),
  }),
  route({
    method: 'post',
    path: '/api/v1/vendors/:id/suspend',
    operationId: 'suspendVendor',
    tags,
    access: 'sandbox',
    scope: 'vendors:write',
    errors: { 409: refusedIn('vendor', vendorStatuses, ['approved']) },
    summary: 'approved → suspended: its offers leave the buybox (vendor.suspended, buybox.winner_changed).',
    params: idParam,
    body: VendorDecisionRequest,
    responses: { 200: Vendor },
    handler: async ({ params, body, principal }) => ({
      body: await suspendVendor(s, tenantOf(principal), params.id, body.reason),
    }),
  }),
];

const offerRoutes = (s: Services) => [
  route({
    method: 'post',
    path: '/api/v1/vendors/:id/offers',
    operationId: 'createOffer',
    tags,
    access: 'sandbox',
    scope: 'vendors:write',
    errors: { 409: [...refusedIn('vendor', vendorStatuses, ['approved']), 'offer_exists'], 422: ['variant_not_found'] },
    summary: "An approved vendor's offer on a variant; the buybox is recomputed.",
    params: idParam,
    body: CreateOfferRequest,
    responses: { 201: Offer },
    handler: async ({ params, body, principal }) => ({
      status: 201,
      body: await createOffer(s, tenantOf(principal), params.id, {
        variantId: body.variantId,
        priceMinor: minor(body.price),
        shippingMinor: minor(body.shippingFee),
        stock: body.stock,
      }),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/vendors/:id/offers',
    operationId: 'listVendorOffers',
    tags,
    access: 'sandbox',
    scope: 'vendors:read',
    summary: "A vendor's offers, newest first.",
    params: idParam,
    query: listQuery.extend(ListOffersQuery.shape),
    responses: { 200: listOf(Offer) },
    handler: async ({ params, query, principal, ctx }) => {
      await getVendor(s.db, tenantOf(principal), params.id);
      return {
        body: await pageOf(s, { query, principal, ctx }, (page) =>
          listOffers(s.db, tenantOf(principal), { ...query, ...page, vendorId: params.id }),
        ),
      };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/offers/:id',
    operationId: 'getOffer',
    tags,
    access: 'sandbox',
    scope: 'vendors:read',
    summary: 'Get an offer.',
    params: idParam,
    responses: { 200: Offer },
    handler: async ({ params, principal }) => ({ body: await getOffer(s.db, tenantOf(principal), params.id) }),
  }),
  route({
    method: 'patch',
    path: '/api/v1/offers/:id',
    operationId: 'updateOffer',
    tags,
    access: 'sandbox',
    scope: 'vendors:write',
    summary: "Change an offer's price, shipping fee or stock; the buybox is recomputed.",
    params: idParam,
    body: UpdateOfferRequest,
    responses: { 200: Offer },
    handler: async ({ params, body, principal }) => ({
      body: await updateOffer(s, tenantOf(principal), params.id, {
        priceMinor: minorOrUndefined(body.price),
        shippingMinor: minorOrUndefined(body.shippingFee),
        stock: body.stock,
      }),
    }),
  }),
  route({
    method: 'delete',
    path: '/api/v1/offers/:id',
    operationId: 'deleteOffer',
    tags,
    access: 'sandbox',
    scope: 'vendors:write',
    idempotent: false,
    summary: 'Withdraw an offer; the buybox is recomputed.',
    params: idParam,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ params, principal }) => {
      await deleteOffer(s, tenantOf(principal), params.id);
      return { status: 204 };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/variants/:id/buybox',
    operationId: 'getBuybox',
    tags,
    access: 'sandbox',
    scope: 'vendors:read',
    summary: "A variant's buybox: the winning offer and every offer in buybox order.",
    params: idParam,
    responses: { 200: Buybox },
    handler: async ({ params, principal }) => ({ body: await getBuybox(s.db, tenantOf(principal), params.id) }),
  }),
];

/** Vendors, their offers and the buybox. */
export const marketplaceRoutes = (s: Services) => [...vendorRoutes(s), ...offerRoutes(s)];
