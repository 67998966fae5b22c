import { z } from 'zod';
import { calculatePayout, getPayout, listPayouts, payPayout } from '../../domain/payouts/payouts.ts';
import { testBankAccounts } from '../../domain/payouts/test-bank.ts';
import { tenantOf } from '../auth/principal.ts';
import { listQuery } from '../pagination.ts';
import { route } from '../route.ts';
import { idParam, listOf } from '../schemas/common.ts';
import { CalculatePayoutRequest, ListPayoutsQuery, Payout, TestBankAccount } from '../schemas/payouts.ts';
import type { Services } from '../services.ts';
import { pageOf } from './paging.ts';
import { refusedIn } from '../openapi-errors.ts';
import { payoutStatuses } from '../../webhooks/topics/data/payouts.ts';

const tags = ['Payouts'];

/** Vendor payouts and the test bank accounts. */
export const payoutRoutes = (s: Services) => [
  route({
    method: 'post',
    path: '/api/v1/payouts',
    operationId: 'calculatePayout',
    tags,
    access: 'sandbox',
    scope: 'payouts:write',
    errors: { 409: ['vendor_applied', 'vendor_rejected', 'payout_period_overlaps'], 422: ['vendor_not_found'] },
    summary:
      "Calculate a vendor's payout for a period: captured sales minus commission and refunds (payout.calculated).",
    body: CalculatePayoutRequest,
    responses: { 201: Payout },
    handler: async ({ body, principal }) => ({
      status: 201,
      body: await calculatePayout(s, tenantOf(principal), body),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/payouts',
    operationId: 'listPayouts',
    tags,
    access: 'sandbox',
    scope: 'payouts:read',
    summary: 'List payouts, newest first.',
    query: listQuery.extend(ListPayoutsQuery.shape),
    responses: { 200: listOf(Payout) },
    handler: async ({ query, principal, ctx }) => ({
      body: await pageOf(s, { query, principal, ctx }, (page) =>
        listPayouts(s.db, tenantOf(principal), { ...query, ...page }),
      ),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/payouts/test-bank-accounts',
    operationId: 'listTestBankAccounts',
    tags,
    access: 'sandbox',
    scope: 'payouts:read',
    summary: 'Test IBANs: give a vendor one to make its payouts fail, fail once, or succeed.',
    responses: { 200: z.object({ data: z.array(TestBankAccount) }) },
    handler: () => ({ body: { data: testBankAccounts() } }),
  }),
  route({
    method: 'get',
    path: '/api/v1/payouts/:id',
    operationId: 'getPayout',
    tags,
    access: 'sandbox',
    scope: 'payouts:read',
    summary: 'Get a payout with its transfer attempts.',
    params: idParam,
    responses: { 200: Payout },
    handler: async ({ params, principal }) => ({ body: await getPayout(s.db, tenantOf(principal), params.id) }),
  }),
  route({
    method: 'post',
    path: '/api/v1/payouts/:id/pay',
    operationId: 'payPayout',
    tags,
    access: 'sandbox',
    scope: 'payouts:write',
    errors: { 409: refusedIn('payout', payoutStatuses, ['calculated']) },
    summary:
      'Send a calculated payout to the bank: paid (payout.paid) or failed with retries 1 h, 6 h and 24 h later (payout.failed, payout.retry.*).',
    params: idParam,
    responses: { 200: Payout },
    handler: async ({ params, principal }) => ({ body: await payPayout(s, tenantOf(principal), params.id) }),
  }),
];
