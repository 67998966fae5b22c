import { z } from 'zod';
import { route } from '../route.ts';
import type { RouteDef } from '../route.ts';
import { buildOpenApi } from '../openapi.ts';

/**
 * GET /api/v1/openapi.json, built lazily from the very route list it describes; `servers` names
 * the engine's own base URL, read per request (a public URL may replace it).
 */
export const metaRoutes = (
  allRoutes: () => RouteDef[],
  extra: () => { webhooks?: Record<string, unknown> },
  baseUrl: () => string,
) => {
  let cached: Record<string, unknown> | undefined;
  return [
    route({
      method: 'get',
      path: '/api/v1/openapi.json',
      operationId: 'getOpenApi',
      tags: ['Meta'],
      access: 'none',
      noDatabase: true,
      summary: 'This OpenAPI 3.1 document (no token needed).',
      responses: { 200: { description: 'The OpenAPI document', schema: z.record(z.string(), z.unknown()) } },
      handler: () => {
        cached ??= buildOpenApi(allRoutes(), extra());
        const { openapi, info, ...rest } = cached;
        return { body: { openapi, info, servers: [{ url: baseUrl(), description: 'This Sandbay engine' }], ...rest } };
      },
    }),
  ];
};
