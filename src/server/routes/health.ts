import { z } from 'zod';
import { route } from '../route.ts';

const Health = z
  .object({
    ok: z.literal(true),
    instanceId: z
      .string()
      .describe('This engine run; its data-dir lock and discovery file (server.json) name the same id.'),
    version: z.string().describe('The Sandbay package version.'),
    database: z
      .enum(['ok', 'unavailable', 'storage_full'])
      .describe(
        "The database as this engine's last heartbeat (every 2 s) found it: answering, not answering, or out of disk space.",
      ),
  })
  .meta({ id: 'Health' });

/**
 * GET /api/v1/health, open to anyone: liveness, and which engine run answers, so a second
 * Sandbay that finds this data dir locked can ask the URL in the discovery file who holds it. It reads
 * no database, so it answers during an outage too, and says so (the inspector's banner).
 */
export const healthRoutes = (instance: {
  instanceId: string;
  version: string;
  database: () => 'ok' | 'unavailable' | 'storage_full';
}) => [
  route({
    method: 'get',
    path: '/api/v1/health',
    operationId: 'health',
    tags: ['Meta'],
    access: 'none',
    noDatabase: true,
    summary:
      'Liveness check: which engine run answers, and whether its database does (no token needed, no database query).',
    responses: { 200: Health },
    handler: () => ({
      body: { ok: true, instanceId: instance.instanceId, version: instance.version, database: instance.database() },
    }),
  }),
];
