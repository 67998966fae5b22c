import { z } from 'zod';
import { route } from '../route.ts';
import type { Db } from '../../db/database.ts';
import { engineFigures } from '../engine-figures.ts';

const Metrics = z
  .object({
    processes: z
      .number()
      .int()
      .describe('Engine processes counted: 1, or the workers of `serve --workers N` that answered within 2 s.'),
    databaseRoundTrips: z
      .number()
      .int()
      .describe(
        'Statements the engine has sent to its database since it started, BEGIN and COMMIT included (on PostgreSQL each is a round trip to the server); divide its growth by deliveries made to get round trips per delivery.',
      ),
  })
  .meta({ id: 'Metrics' });

/**
 * GET /api/v1/metrics, for the operator: what this engine run costs its database. In a worker of `--workers N`
 * (`worker`), the whole run's, summed by the primary.
 */
export const metricsRoutes = (db: Db, worker: boolean) => {
  const figures = engineFigures(db, worker);
  return [
    route({
      method: 'get',
      path: '/api/v1/metrics',
      operationId: 'getMetrics',
      tags: ['Meta'],
      access: 'admin',
      noDatabase: true,
      summary: "This engine run's database round trips, summed over its workers (admin key only).",
      responses: { 200: Metrics },
      handler: async () => ({ body: await figures() }),
    }),
  ];
};
