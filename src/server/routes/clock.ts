import { maxClockOffsetMs } from '../../shared/clock-bounds.ts';
import { ApiError } from '../../shared/problem.ts';
import { tenantOf } from '../auth/principal.ts';
import { route } from '../route.ts';
import { AdvancedClock, AdvanceRequest, Clock } from '../schemas/webhooks.ts';
import type { Services } from '../services.ts';

const tags = ['Sandbox clock'];

export const clockRoutes = (s: Services) => {
  const read = (tenantId: string) => ({
    now: s.clock.now(tenantId).toISOString(),
    offsetSeconds: Math.round(s.clock.offsetMs(tenantId)) / 1000,
  });
  return [
    route({
      method: 'get',
      path: '/api/v1/sandbox/clock',
      operationId: 'getClock',
      tags,
      access: 'sandbox',
      scope: 'sandbox:read',
      summary: 'Sandbox now = real now + offsetSeconds.',
      responses: { 200: Clock },
      handler: ({ principal }) => ({ body: read(tenantOf(principal)) }),
    }),
    route({
      method: 'post',
      path: '/api/v1/sandbox/clock/advance',
      operationId: 'advanceClock',
      tags,
      access: 'sandbox',
      scope: 'sandbox:write',
      awaitsNetwork: true,
      summary:
        'Move the clock forward, running what falls due on the way (retries, expiries, payouts, reports) in due-time order.',
      body: AdvanceRequest,
      responses: { 200: AdvancedClock },
      errors: { 409: ['advance_in_progress'], 422: ['clock_out_of_range'] },
      handler: async ({ body, principal }) => {
        const tenantId = tenantOf(principal);
        if (s.clock.offsetMs(tenantId) + body.seconds * 1000 > maxClockOffsetMs)
          throw new ApiError(
            422,
            'clock_out_of_range',
            'The sandbox clock stays within 100 years of real time: this advance would take it past that.',
            { errors: [{ path: '/seconds', message: 'Past 100 years ahead of real time.' }] },
          );
        // One advance of a sandbox at a time across engines, by its advancing mark (no connection held
        // while it runs or while a second one waits); the clock itself is shared (announced to every engine).
        const { jobsRun } = await s.scheduler.advance(tenantId, body.seconds * 1000);
        const clock = read(tenantId);
        // Inspectors open on the sandbox move their clocks too, whoever advanced it (the CLI, a script).
        s.webhooks.stream.publish(tenantId, 'clock.advanced', clock);
        return { body: { ...clock, jobsRun } };
      },
    }),
  ];
};
