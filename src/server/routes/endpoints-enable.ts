import { ApiError } from '../../shared/problem.ts';
import { tenantOf } from '../auth/principal.ts';
import { route } from '../route.ts';
import { EnableEndpointsRequest, EnabledEndpoints } from '../schemas/webhooks.ts';
import type { Services } from '../services.ts';

/**
 * One action for what an import paused (docs/decisions/one-action-resumes-imported-endpoints.md): every endpoint
 * disabled for a reason is enabled, except those the outbound policy refuses, which stay off and are named.
 */
export const endpointEnableRoutes = (s: Services) => {
  const { policy } = s.webhooks.outbound;
  /** Why the policy refuses the URL (a shared server's rules), or undefined when it may be called. */
  const refusal = async (url: string) => {
    try {
      await policy.assertAllowed(url, '/url');
      return undefined;
    } catch (err) {
      if (err instanceof ApiError && err.code === 'blocked_by_policy') return err.detail;
      throw err;
    }
  };
  return [
    route({
      method: 'post',
      path: '/api/v1/webhooks/endpoints/enable',
      operationId: 'enableWebhookEndpoints',
      tags: ['Webhooks'],
      access: 'sandbox',
      scope: 'webhooks:write',
      summary:
        'Enable every endpoint disabled for a reason, e.g. {"disabledReason": "imported"}: what a sandbox file ' +
        'brought resumes in one action. URLs the outbound policy refuses stay disabled and are listed.',
      body: EnableEndpointsRequest,
      responses: { 200: EnabledEndpoints },
      handler: async ({ body, principal }) => ({
        body: await s.webhooks.service.enableDisabled(tenantOf(principal), body.disabledReason, refusal),
      }),
    }),
  ];
};
