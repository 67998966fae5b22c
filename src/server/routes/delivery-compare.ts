import { z } from 'zod';
import { compareDeliveries } from '../../shared/delivery-diff.ts';
import { DeliveryComparison } from '../../shared/schemas/comparison.ts';
import { ApiError } from '../../shared/problem.ts';
import { getDelivery } from '../../webhooks/deliveries.ts';
import { tenantOf } from '../auth/principal.ts';
import { route } from '../route.ts';
import { idParam } from '../schemas/common.ts';
import type { Services } from '../services.ts';

const attemptNumber = z.coerce.number().int().min(1).max(1000);

const CompareQuery = z
  .object({
    to: z.string().max(100).optional().describe('The delivery to compare with (default: the same one)'),
    attempt: attemptNumber.optional().describe("This delivery's attempt (default: its latest)"),
    toAttempt: attemptNumber.optional().describe("The other delivery's attempt (default: its latest)"),
  })
  .strict();

/** Two deliveries, or two attempts, compared (issue 31): `sandbay deliveries diff` and the inspector's Compare tab. */
export const deliveryCompareRoutes = (s: Services) => [
  route({
    method: 'get',
    path: '/api/v1/webhooks/deliveries/:id/compare',
    operationId: 'compareDeliveries',
    tags: ['Webhooks'],
    access: 'sandbox',
    scope: 'webhooks:read',
    summary:
      'This delivery (or one of its attempts) against another: the envelope by JSON Pointer, the request headers, ' +
      "the signature inputs and the receiver's answers. ?attempt=1&toAttempt=2 compares two attempts of one delivery.",
    params: idParam,
    query: CompareQuery,
    responses: { 200: DeliveryComparison },
    handler: async ({ params, query, principal }) => {
      const tenant = tenantOf(principal);
      const from = await getDelivery(s.db, tenant, params.id);
      const to = query.to && query.to !== params.id ? await getDelivery(s.db, tenant, query.to) : from;
      for (const [d, number, path] of [
        [from, query.attempt, '/attempt'],
        [to, query.toAttempt, '/toAttempt'],
      ] as const)
        if (number !== undefined && !d.attempts.some((a) => a.number === number)) {
          const message = `${d.id} has no attempt ${number} (it has ${d.attempts.length})`;
          throw new ApiError(422, 'validation_failed', message, { errors: [{ path, message }] });
        }
      return { body: compareDeliveries(from, to, { from: query.attempt, to: query.toAttempt }) };
    },
  }),
];
