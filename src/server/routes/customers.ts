import { createCompany, getCompany, listCompanies } from '../../domain/b2b/companies.ts';
import { createCustomer, getCustomer, listCustomers } from '../../domain/customers/customers.ts';
import { tenantOf } from '../auth/principal.ts';
import { listQuery } from '../pagination.ts';
import { route } from '../route.ts';
import { minor } from '../schemas/amounts.ts';
import { idParam, listOf } from '../schemas/common.ts';
import {
  Company,
  CreateCompanyRequest,
  CreateCustomerRequest,
  Customer,
  ListCustomersQuery,
} from '../schemas/customers.ts';
import type { Services } from '../services.ts';
import { pageOf } from './paging.ts';

/** Customers and B2B companies. */
export const customerRoutes = (s: Services) => [
  route({
    method: 'post',
    path: '/api/v1/customers',
    operationId: 'createCustomer',
    tags: ['Customers'],
    access: 'sandbox',
    scope: 'customers:write',
    errors: { 422: ['company_not_found', 'approval_level_unknown'] },
    summary: 'Create a customer with a Turkish address; B2B customers belong to a company as buyer or approver.',
    body: CreateCustomerRequest,
    responses: { 201: Customer },
    handler: async ({ body, principal }) => ({ status: 201, body: await createCustomer(s, tenantOf(principal), body) }),
  }),
  route({
    method: 'get',
    path: '/api/v1/customers',
    operationId: 'listCustomers',
    tags: ['Customers'],
    access: 'sandbox',
    scope: 'customers:read',
    summary: 'List customers, newest first.',
    query: listQuery.extend(ListCustomersQuery.shape),
    responses: { 200: listOf(Customer) },
    handler: async ({ query, principal, ctx }) => ({
      body: await pageOf(s, { query, principal, ctx }, (page) =>
        listCustomers(s.db, tenantOf(principal), { ...query, ...page }),
      ),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/customers/:id',
    operationId: 'getCustomer',
    tags: ['Customers'],
    access: 'sandbox',
    scope: 'customers:read',
    summary: 'Get a customer.',
    params: idParam,
    responses: { 200: Customer },
    handler: async ({ params, principal }) => ({ body: await getCustomer(s.db, tenantOf(principal), params.id) }),
  }),
  route({
    method: 'post',
    path: '/api/v1/companies',
    operationId: 'createCompany',
    tags: ['B2B'],
    access: 'sandbox',
    scope: 'b2b:write',
    summary: "A B2B company: its buyers' orders above the threshold wait for approval at each level in turn.",
    body: CreateCompanyRequest,
    responses: { 201: Company },
    handler: async ({ body, principal }) => ({
      status: 201,
      body: await createCompany(s, tenantOf(principal), {
        ...body,
        approvalThresholdMinor: minor(body.approvalThreshold),
      }),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/companies',
    operationId: 'listCompanies',
    tags: ['B2B'],
    access: 'sandbox',
    scope: 'b2b:read',
    summary: 'List companies, newest first.',
    query: listQuery,
    responses: { 200: listOf(Company) },
    handler: async ({ query, principal, ctx }) => ({
      body: await pageOf(s, { query, principal, ctx }, (page) => listCompanies(s.db, tenantOf(principal), page)),
    }),
  }),
  route({
    method: 'get',
    path: '/api/v1/companies/:id',
    operationId: 'getCompany',
    tags: ['B2B'],
    access: 'sandbox',
    scope: 'b2b:read',
    summary: 'Get a company.',
    params: idParam,
    responses: { 200: Company },
    handler: async ({ params, principal }) => ({ body: await getCompany(s.db, tenantOf(principal), params.id) }),
  }),
];
