import { createEventBuffer, createSession } from 'better-sse';
import { z } from 'zod';
import { getEvent, listEvents } from '../../webhooks/events.ts';
import { listDeliveries } from '../../webhooks/deliveries.ts';
import { unknownTopic } from '../../webhooks/service.ts';
import { isTopic } from '../../shared/topics.ts';
import { ApiError } from '../../shared/problem.ts';
import { KeyedLimiter } from '../../webhooks/limiter.ts';
import { tenantOf } from '../auth/principal.ts';
import { listQuery } from '../pagination.ts';
import { route } from '../route.ts';
import { idParam, listOf } from '../schemas/common.ts';
import { DeliverySummary, Event } from '../schemas/webhooks.ts';
import type { Services } from '../services.ts';
import { commitPage } from './paging.ts';

const tags = ['Events'];

/**
 * Live streams one sandbox may hold open at once on one engine: an inspector tab and a `sandbay listen`
 * each take one, so 20 is plenty for a team, while one token can no longer pin hundreds of sockets.
 */
export const streamsPerSandbox = 20;

const tooManyStreams = () =>
  new ApiError(
    429,
    'too_many_streams',
    `This sandbox already has ${streamsPerSandbox} live streams open on this server; close one (another tab, another listen) first.`,
    { headers: { 'Retry-After': '5' } },
  );

export const eventRoutes = (s: Services, streams = new KeyedLimiter(streamsPerSandbox)) => [
  route({
    method: 'get',
    path: '/api/v1/events',
    operationId: 'listEvents',
    tags,
    access: 'sandbox',
    scope: 'webhooks:read',
    errors: { 422: ['unknown_topic'] },
    summary: "The sandbox's events, newest first, with how many deliveries each has.",
    query: listQuery.extend({ topic: z.string().optional() }),
    responses: { 200: listOf(Event) },
    handler: async (input) => {
      const { query, principal } = input;
      if (query.topic && !isTopic(query.topic)) throw unknownTopic(query.topic);
      const cursors = s.cursors.of(input, 'commit');
      const rows = await listEvents(s.db, tenantOf(principal), {
        limit: query.limit + 1,
        after: cursors.afterCommit(query.cursor),
        topic: query.topic,
      });
      return { body: commitPage(cursors, rows, query.limit) };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/events/stream',
    operationId: 'streamEvents',
    tags,
    access: 'sandbox',
    scope: 'webhooks:read',
    raw: true,
    summary:
      'Server-Sent Events: delivery.created, delivery.updated, attempt.finished (each with the delivery id), and reset. Resumable with Last-Event-ID.',
    query: z.object({
      sandbox: z.string().optional().describe('With the admin cookie: the sandbox to follow'),
      lastEventId: z.string().optional(),
    }),
    responses: { 200: { description: 'text/event-stream', contentType: 'text/event-stream' } },
    errors: { 429: ['too_many_streams'] },
    handler: async ({ ctx, principal, query }) => {
      const tenantId = tenantOf(principal);
      const release = streams.tryAcquire(tenantId);
      if (!release) throw tooManyStreams();
      ctx.req.on('close', release);
      if (ctx.req.destroyed) release(); // gone already: 'close' will not come again
      ctx.respond = false;
      // Koa leaves its default 404 on ctx.res until a body is set; better-sse would send that status.
      const session = await createSession(ctx.req, ctx.res, {
        statusCode: 200,
        keepAlive: 15_000,
        retry: 1000,
        trustClientEventId: false,
      });
      const lastEventId = ctx.get('last-event-id') || query.lastEventId;
      // What it missed (from the table, a page at a time) or a `reset`, then what is new: all through send.
      const { close } = await s.webhooks.stream.subscribe(tenantId, lastEventId || undefined, {
        send: (messages) => {
          if (!session.isConnected) return;
          const buffer = createEventBuffer();
          for (const m of messages) buffer.push(m.data, m.event, m.id);
          void session.batch(buffer).catch(() => {}); // written at once: unsentBytes counts it
        },
        // Node's own buffer plus the socket's: what a client that stopped reading leaves behind.
        unsentBytes: () => ctx.res.writableLength,
        drop: () => ctx.res.destroy(),
      });
      ctx.req.on('close', close);
      if (ctx.req.destroyed) close(); // gone while it subscribed
      return {};
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/events/:id',
    operationId: 'getEvent',
    tags,
    access: 'sandbox',
    scope: 'webhooks:read',
    summary: 'One event with its deliveries.',
    params: idParam,
    responses: { 200: Event.extend({ deliveries: z.array(DeliverySummary) }) },
    handler: async ({ params, principal }) => {
      const tenantId = tenantOf(principal);
      const event = await getEvent(s.db, tenantId, params.id);
      const deliveries = await listDeliveries(s.db, tenantId, { eventId: params.id }, 100);
      return { body: { ...event, deliveries: deliveries.map(({ seq: _seq, position: _position, ...d }) => d) } };
    },
  }),
];
