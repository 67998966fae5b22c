import { cancelOrder, createOrder, getOrderJson, listOrders } from '../../domain/orders/orders.ts';
import { tenantOf } from '../auth/principal.ts';
import { listQuery } from '../pagination.ts';
import { JsonText, route } from '../route.ts';
import { idParam, listOf } from '../schemas/common.ts';
import { CancelOrderRequest, CreateOrderRequest, ListOrdersQuery, Order, orderStatuses } from '../schemas/orders.ts';
import type { Services } from '../services.ts';
import { refusedIn } from '../openapi-errors.ts';

// placeOrder's refusals (domain/orders/orders.ts), for every route that places an order.
export const orderRefusals = ['customer_not_found', 'variant_not_found', 'product_not_available', 'insufficient_stock'];

const tags = ['Orders'];

export const orderRoutes = (s: Services) => [
  route({
    method: 'post',
    path: '/api/v1/orders',
    operationId: 'createOrder',
    tags,
    access: 'sandbox',
    scope: 'orders:write',
    errors: { 422: orderRefusals },
    summary: 'Place an order; emits order.placed.',
    body: CreateOrderRequest,
    responses: { 201: Order },
    handler: async ({ body, principal }) => ({ status: 201, body: await createOrder(s, tenantOf(principal), body) }),
  }),
  route({
    method: 'get',
    path: '/api/v1/orders',
    operationId: 'listOrders',
    tags,
    access: 'sandbox',
    scope: 'orders:read',
    summary: 'List orders, newest first.',
    query: listQuery.extend(ListOrdersQuery.shape),
    responses: { 200: listOf(Order) },
    handler: async (input) => {
      const { query, principal } = input;
      const cursors = s.cursors.of(input, 'time');
      const rows = await listOrders(s.db, tenantOf(principal), {
        limit: query.limit + 1,
        after: cursors.decode(query.cursor),
        status: query.status,
        customerId: query.customerId,
      });
      return { body: cursors.page(rows, query.limit) };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/orders/:id',
    operationId: 'getOrder',
    tags,
    access: 'sandbox',
    scope: 'orders:read',
    summary: 'Get one order with its items.',
    params: idParam,
    responses: { 200: Order },
    handler: async ({ params, principal }) => ({
      body: new JsonText(await getOrderJson(s.db, tenantOf(principal), params.id)),
    }),
  }),
  route({
    method: 'post',
    path: '/api/v1/orders/:id/cancel',
    operationId: 'cancelOrder',
    tags,
    access: 'sandbox',
    scope: 'orders:write',
    errors: { 409: refusedIn('order', orderStatuses, ['placed', 'pending_approval']) },
    summary: 'Cancel an unpaid order; returns its stock and emits order.cancelled.',
    params: idParam,
    body: CancelOrderRequest,
    responses: { 200: Order },
    handler: async ({ params, body, principal }) => ({
      body: await cancelOrder(s, tenantOf(principal), params.id, body.reason),
    }),
  }),
];
