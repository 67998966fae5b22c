import { decideChallenge } from '../../domain/payments/challenge.ts';
import { getPayment, listPayments, payOrder } from '../../domain/payments/payments.ts';
import { refundPayment } from '../../domain/payments/refunds.ts';
import { testCards } from '../../domain/payments/test-cards.ts';
import { z } from 'zod';
import { tenantOf } from '../auth/principal.ts';
import { listQuery } from '../pagination.ts';
import { route } from '../route.ts';
import { minorOrUndefined } from '../schemas/amounts.ts';
import { idParam, listOf } from '../schemas/common.ts';
import {
  ChallengeRequest,
  ListPaymentsQuery,
  PayRequest,
  Payment,
  RefundRequest,
  TestCard,
} from '../schemas/payments.ts';
import type { Services } from '../services.ts';
import { pageOf } from './paging.ts';
import { refusedIn } from '../openapi-errors.ts';
import { paymentStatuses } from '../../webhooks/topics/data/payments.ts';
import { orderStatuses } from '../schemas/orders.ts';

const tags = ['Payments'];

/** Card payments, 3-D Secure by API, refunds and the test card table. */
export const paymentRoutes = (s: Services) => [
  route({
    method: 'post',
    path: '/api/v1/payments',
    operationId: 'payOrder',
    tags,
    access: 'sandbox',
    scope: 'payments:write',
    errors: {
      402: ['card_declined'],
      409: [...refusedIn('order', orderStatuses, ['placed']), 'payment_requires_action'],
      422: ['order_not_found'],
    },
    summary:
      'Pay a placed order with a test card: captured (payment.captured), requires_action (3-D Secure at nextAction.url) or 402 card_declined.',
    body: PayRequest,
    responses: { 201: Payment, 402: { description: 'card_declined, with declineCode and paymentId' } },
    handler: async ({ body, principal }) => ({
      status: 201,
      body: await payOrder(s, tenantOf(principal), body, s.baseUrl()),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/payments',
    operationId: 'listPayments',
    tags,
    access: 'sandbox',
    scope: 'payments:read',
    summary: 'List payments, newest first.',
    query: listQuery.extend(ListPaymentsQuery.shape),
    responses: { 200: listOf(Payment) },
    handler: async ({ query, principal, ctx }) => ({
      body: await pageOf(s, { query, principal, ctx }, (page) =>
        listPayments(s.db, tenantOf(principal), s.baseUrl(), { ...query, ...page }),
      ),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/payments/test-cards',
    operationId: 'listTestCards',
    tags,
    access: 'sandbox',
    scope: 'payments:read',
    summary: 'The test card table: numbers of several providers and what paying with each does.',
    responses: { 200: z.object({ data: z.array(TestCard) }) },
    handler: () => ({ body: { data: testCards() } }),
  }),
  route({
    method: 'get',
    path: '/api/v1/payments/:id',
    operationId: 'getPayment',
    tags,
    access: 'sandbox',
    scope: 'payments:read',
    summary: 'Get a payment with its refunds.',
    params: idParam,
    responses: { 200: Payment },
    handler: async ({ params, principal }) => ({
      body: await getPayment(s.db, tenantOf(principal), params.id, s.baseUrl()),
    }),
  }),
  route({
    method: 'post',
    path: '/api/v1/payments/:id/3ds',
    operationId: 'completeThreeDSecure',
    tags,
    access: 'sandbox',
    scope: 'payments:write',
    errors: {
      409: [
        ...refusedIn('payment', paymentStatuses, ['requires_action']),
        ...refusedIn('order', [...orderStatuses, 'missing'], ['placed']),
      ],
    },
    summary:
      'Complete the 3-D Secure challenge from a script, as the page would: approve captures, fail declines (authentication_failed).',
    params: idParam,
    body: ChallengeRequest,
    responses: { 200: Payment },
    handler: async ({ params, body, principal }) => ({
      body: await decideChallenge(s, tenantOf(principal), params.id, body.outcome, s.baseUrl()),
    }),
  }),
  route({
    method: 'post',
    path: '/api/v1/payments/:id/refunds',
    operationId: 'refundPayment',
    tags,
    access: 'sandbox',
    scope: 'payments:write',
    errors: {
      402: ['refund_failed'],
      409: refusedIn('payment', paymentStatuses, ['captured', 'partially_refunded']),
      422: ['amount_exceeds_refundable'],
    },
    summary: 'Refund all or part of a captured payment (payment.refunded); never more than was captured.',
    params: idParam,
    body: RefundRequest,
    responses: { 201: Payment, 402: { description: 'refund_failed (the test card refuses refunds), with refundId' } },
    handler: async ({ params, body, principal }) => ({
      status: 201,
      body: await refundPayment(
        s,
        tenantOf(principal),
        params.id,
        { amountMinor: minorOrUndefined(body.amount), reason: body.reason },
        s.baseUrl(),
      ),
    }),
  }),
];
