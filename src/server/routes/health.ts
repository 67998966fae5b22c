import { z } from 'zod';
import { route } from '../route.ts';

const Health = z
  .object({
    ok: z.literal(true),
    instanceId: z.string().describe('This engine run; its data-dir lock and discovery file (server.json) name the same id.'),
    version: z.string().describe('The Sandbay package version.'),
  })
  .meta({ id: 'Health' });

/**
 * GET /api/v1/health, open to anyone: liveness, and which engine run answers, so a second
 * Sandbay that finds this data dir locked can ask the URL in the discovery file who holds it.
 */
export const healthRoutes = (instance: { instanceId: string; version: string }) => [
  route({
    method: 'get', path: '/api/v1/health', operationId: 'health', tags: ['Meta'], access: 'none',
    summary: 'Liveness check: which engine run answers (no token needed).',
    responses: { 200: Health },
    handler: () => ({ body: { ok: true, ...instance } }),
  }),
];
