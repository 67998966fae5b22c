import { approveRequest, getApprovalRequest, listApprovalRequests, rejectRequest } from '../../domain/b2b/approvals.ts';
import {
  acceptQuote,
  convertQuote,
  createQuote,
  getQuote,
  listQuotes,
  rejectQuote,
  sendQuote,
} from '../../domain/quotes/quotes.ts';
import { tenantOf } from '../auth/principal.ts';
import { listQuery } from '../pagination.ts';
import { route, type RouteDef } from '../route.ts';
import { minorOrUndefined } from '../schemas/amounts.ts';
import {
  ApprovalRequest,
  approvalStatuses,
  ApproveRequest,
  ListApprovalsQuery,
  RejectApprovalRequest,
} from '../schemas/approvals.ts';
import { idParam, listOf } from '../schemas/common.ts';
import { CreateQuoteRequest, ListQuotesQuery, Quote, RejectQuoteRequest } from '../schemas/quotes.ts';
import type { Services } from '../services.ts';
import { pageOf } from './paging.ts';
import { refusedIn } from '../openapi-errors.ts';
import { quoteStatuses } from '../../webhooks/topics/data/quotes.ts';
import { orderRefusals } from './orders.ts';

const approverRefusals = ['customer_not_found', 'approver_not_eligible'];

const tags = ['B2B'];

const approvalRoutes = (s: Services) => [
  route({
    method: 'get',
    path: '/api/v1/approval-requests',
    operationId: 'listApprovalRequests',
    tags,
    access: 'sandbox',
    scope: 'b2b:read',
    summary: 'Approval requests of B2B orders, newest first.',
    query: listQuery.extend(ListApprovalsQuery.shape),
    responses: { 200: listOf(ApprovalRequest) },
    handler: async ({ query, principal, ctx }) => ({
      body: await pageOf(s, { query, principal, ctx }, (page) =>
        listApprovalRequests(s.db, tenantOf(principal), { ...query, ...page }),
      ),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/approval-requests/:id',
    operationId: 'getApprovalRequest',
    tags,
    access: 'sandbox',
    scope: 'b2b:read',
    summary: 'An approval request with its decisions so far.',
    params: idParam,
    responses: { 200: ApprovalRequest },
    handler: async ({ params, principal }) => ({
      body: await getApprovalRequest(s.db, tenantOf(principal), params.id),
    }),
  }),
  route({
    method: 'post',
    path: '/api/v1/approval-requests/:id/approve',
    operationId: 'approveApprovalRequest',
    tags,
    access: 'sandbox',
    scope: 'b2b:write',
    errors: { 409: refusedIn('approval_request', approvalStatuses, ['pending']), 422: approverRefusals },
    summary: 'Approve the current level (approval.approved); the last level places the order (order.placed).',
    params: idParam,
    body: ApproveRequest,
    responses: { 200: ApprovalRequest },
    handler: async ({ params, body, principal }) => ({
      body: await approveRequest(s, tenantOf(principal), params.id, body),
    }),
  }),
  route({
    method: 'post',
    path: '/api/v1/approval-requests/:id/reject',
    operationId: 'rejectApprovalRequest',
    tags,
    access: 'sandbox',
    scope: 'b2b:write',
    errors: { 409: refusedIn('approval_request', approvalStatuses, ['pending']), 422: approverRefusals },
    summary: 'Reject at the current level: the order is rejected and its stock returned (approval.rejected).',
    params: idParam,
    body: RejectApprovalRequest,
    responses: { 200: ApprovalRequest },
    handler: async ({ params, body, principal }) => ({
      body: await rejectRequest(s, tenantOf(principal), params.id, body),
    }),
  }),
];

const quoteAction = (
  s: Services,
  action: 'send' | 'accept' | 'convert',
  summary: string,
  run: typeof sendQuote,
  errors: RouteDef['errors'],
) =>
  route({
    method: 'post',
    path: `/api/v1/quotes/:id/${action}`,
    operationId: `${action}Quote`,
    tags,
    access: 'sandbox',
    scope: 'b2b:write',
    summary,
    params: idParam,
    responses: { 200: Quote },
    errors,
    handler: async ({ params, principal }) => ({ body: await run(s, tenantOf(principal), params.id) }),
  });

const quoteRoutes = (s: Services) => [
  route({
    method: 'post',
    path: '/api/v1/quotes',
    operationId: 'createQuote',
    tags,
    access: 'sandbox',
    scope: 'b2b:write',
    errors: { 422: ['customer_not_found', 'variant_not_found'] },
    summary: 'Draft a quote at catalog or negotiated prices.',
    body: CreateQuoteRequest,
    responses: { 201: Quote },
    handler: async ({ body, principal }) => ({
      status: 201,
      body: await createQuote(s, tenantOf(principal), {
        ...body,
        items: body.items.map((i) => ({ ...i, unitPriceMinor: minorOrUndefined(i.unitPrice) })),
      }),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/quotes',
    operationId: 'listQuotes',
    tags,
    access: 'sandbox',
    scope: 'b2b:read',
    summary: 'List quotes, newest first.',
    query: listQuery.extend(ListQuotesQuery.shape),
    responses: { 200: listOf(Quote) },
    handler: async ({ query, principal, ctx }) => ({
      body: await pageOf(s, { query, principal, ctx }, (page) =>
        listQuotes(s.db, tenantOf(principal), { ...query, ...page }),
      ),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/quotes/:id',
    operationId: 'getQuote',
    tags,
    access: 'sandbox',
    scope: 'b2b:read',
    summary: 'Get a quote with its items.',
    params: idParam,
    responses: { 200: Quote },
    handler: async ({ params, principal }) => ({ body: await getQuote(s.db, tenantOf(principal), params.id) }),
  }),
  quoteAction(
    s,
    'send',
    'draft → sent; it expires after validDays on the sandbox clock (quote.sent, later quote.expired).',
    sendQuote,
    { 409: refusedIn('quote', quoteStatuses, ['draft']) },
  ),
  quoteAction(s, 'accept', 'sent → accepted (quote.accepted).', acceptQuote, {
    409: refusedIn('quote', quoteStatuses, ['sent']),
  }),
  quoteAction(
    s,
    'convert',
    'accepted → converted: places the order at the quoted prices (quote.converted, order.placed).',
    convertQuote,
    { 409: refusedIn('quote', quoteStatuses, ['accepted']), 422: orderRefusals },
  ),
  route({
    method: 'post',
    path: '/api/v1/quotes/:id/reject',
    operationId: 'rejectQuote',
    tags,
    access: 'sandbox',
    scope: 'b2b:write',
    errors: { 409: refusedIn('quote', quoteStatuses, ['sent']) },
    summary: 'sent → rejected (quote.rejected).',
    params: idParam,
    body: RejectQuoteRequest,
    responses: { 200: Quote },
    handler: async ({ params, body, principal }) => ({
      body: await rejectQuote(s, tenantOf(principal), params.id, body.reason),
    }),
  }),
];

export const b2bRoutes = (s: Services) => [...approvalRoutes(s), ...quoteRoutes(s)];
