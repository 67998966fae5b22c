import { route } from '../route.ts';
import type { RouteDef } from '../route.ts';
import { buildOpenApi } from '../openapi.ts';

/** GET /api/v1/openapi.json, built lazily from the very route list it describes. */
export const metaRoutes = (allRoutes: () => RouteDef[], extra: () => { webhooks?: Record<string, unknown> }) => {
  let cached: unknown;
  return [
    route({
      method: 'get', path: '/api/v1/openapi.json', operationId: 'getOpenApi', tags: ['Meta'], access: 'none',
      summary: 'This OpenAPI 3.1 document (no token needed).',
      responses: { 200: { description: 'The OpenAPI document' } },
      handler: () => ({ body: (cached ??= buildOpenApi(allRoutes(), extra())) }),
    }),
  ];
};
