import { getDelivery, listDeliveries } from '../../webhooks/deliveries.ts';
import { unknownTopic } from '../../webhooks/service.ts';
import type { DataPatchOp } from '../../webhooks/topics/customise.ts';
import { isTopic, isValidPattern, matchesAnyPattern, patternList, topics } from '../../shared/topics.ts';
import { tenantOf } from '../auth/principal.ts';
import { listQuery } from '../pagination.ts';
import { route } from '../route.ts';
import { idParam, listOf } from '../schemas/common.ts';
import {
  DeliveriesQuery,
  DeliveryListQuery,
  Delivery,
  DeliverySummary,
  SignedRequest,
  DlqReplayJob,
  DlqReplayRequest,
  Endpoint,
  EndpointPatch,
  EndpointRequest,
  LiveSecrets,
  ReplayPreview,
  ReplayRequest,
  ResendRequest,
  TestWebhookRequest,
  TestWebhookResult,
} from '../schemas/webhooks.ts';
import type { Services } from '../services.ts';
import { pageOf, commitPage } from './paging.ts';

// service.assertAttemptable: why a delivery cannot be attempted right now.
const notAttemptable = ['check_delivery', 'attempt_in_flight', 'endpoint_deleted', 'endpoint_disabled'];

const tags = ['Webhooks'];

/** A receiver check's ~100 probes stay out of lists and exports unless asked for, or a search names one (issue 31). */
export const withoutChecks = (includeChecks: 'true' | 'false' | undefined, search: string | undefined) =>
  includeChecks !== 'true' && !search;

export const webhookRoutes = (s: Services) => {
  const { service, endpoints, replays } = s.webhooks;
  const { policy } = s.webhooks.outbound;
  return [
    route({
      method: 'post',
      path: '/api/v1/webhooks/endpoints',
      operationId: 'createWebhookEndpoint',
      credentials: true,
      tags,
      access: 'sandbox',
      scope: 'webhooks:write',
      errors: { 422: ['unknown_topic', 'blocked_by_policy'] },
      summary: 'Register an endpoint; the response shows its secret in full (the only time besides rotation).',
      body: EndpointRequest,
      responses: { 201: Endpoint },
      handler: async ({ body, principal }) => {
        await policy.assertAllowed(body.url, '/url');
        return { status: 201, body: await endpoints.create(tenantOf(principal), body) };
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/webhooks/endpoints',
      operationId: 'listWebhookEndpoints',
      tags,
      access: 'sandbox',
      scope: 'webhooks:read',
      summary: 'List endpoints (secrets masked).',
      query: listQuery,
      responses: { 200: listOf(Endpoint) },
      handler: async (input) => ({
        body: await pageOf(s, input, (page) => endpoints.list(tenantOf(input.principal), page.limit, page.after)),
      }),
    }),
    route({
      method: 'get',
      path: '/api/v1/webhooks/endpoints/:id',
      operationId: 'getWebhookEndpoint',
      tags,
      access: 'sandbox',
      scope: 'webhooks:read',
      summary: 'Get an endpoint (secret masked).',
      params: idParam,
      responses: { 200: Endpoint },
      handler: async ({ params, principal }) => ({ body: await endpoints.get(s.db, tenantOf(principal), params.id) }),
    }),
    route({
      method: 'patch',
      path: '/api/v1/webhooks/endpoints/:id',
      operationId: 'updateWebhookEndpoint',
      tags,
      access: 'sandbox',
      scope: 'webhooks:write',
      errors: { 422: ['unknown_topic', 'blocked_by_policy'] },
      summary: 'Change url, topics, description, enabled or allowInsecureTls; enabling sends what waited.',
      params: idParam,
      body: EndpointPatch,
      responses: { 200: Endpoint },
      handler: async ({ params, body, principal }) => {
        if (body.url !== undefined) await policy.assertAllowed(body.url, '/url');
        return { body: await service.updateEndpoint(tenantOf(principal), params.id, body) };
      },
    }),
    route({
      method: 'delete',
      path: '/api/v1/webhooks/endpoints/:id',
      operationId: 'deleteWebhookEndpoint',
      tags,
      access: 'sandbox',
      scope: 'webhooks:write',
      summary: 'Delete an endpoint; its pending deliveries become dead (endpoint_deleted).',
      params: idParam,
      idempotent: false,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ params, principal }) => {
        await service.deleteEndpoint(tenantOf(principal), params.id);
        return { status: 204 };
      },
    }),
    route({
      method: 'post',
      path: '/api/v1/webhooks/endpoints/:id/rotate-secret',
      operationId: 'rotateWebhookSecret',
      credentials: true,
      tags,
      access: 'sandbox',
      scope: 'webhooks:write',
      summary: 'New secret (shown in full); the old one keeps signing for 24 h of sandbox time.',
      params: idParam,
      responses: { 200: Endpoint },
      handler: async ({ params, principal }) => ({
        body: await endpoints.rotateSecret(tenantOf(principal), params.id),
      }),
    }),
    route({
      method: 'get',
      path: '/api/v1/webhooks/endpoints/:id/secrets',
      operationId: 'getWebhookSecrets',
      credentials: true,
      tags,
      access: 'sandbox',
      scope: 'webhooks:write',
      summary: 'Every live secret with its expiry, newest first (for the signature breakdown).',
      params: idParam,
      responses: { 200: LiveSecrets },
      handler: async ({ params, principal }) => ({
        body: { data: await endpoints.liveSecrets(tenantOf(principal), params.id) },
      }),
    }),
    route({
      method: 'get',
      path: '/api/v1/webhooks/deliveries',
      operationId: 'listDeliveries',
      tags,
      access: 'sandbox',
      scope: 'webhooks:read',
      errors: { 422: ['unknown_topic'] },
      summary:
        'Deliveries, newest first; filter by status, topic or topic patterns, endpoint, event, real-clock time recorded, or search by delivery/order id.',
      query: listQuery.extend(DeliveryListQuery.shape),
      responses: { 200: listOf(DeliverySummary) },
      handler: async (input) => {
        const { query, principal } = input;
        if (query.topic && !isTopic(query.topic)) throw unknownTopic(query.topic, '/topic');
        const patterns = patternList(query.topics);
        for (const p of patterns) if (!isValidPattern(p)) throw unknownTopic(p, '/topics');
        const { limit, cursor, topics: _patterns, since, includeChecks, ...filter } = query;
        const cursors = s.cursors.of(input, 'commit');
        const rows = await listDeliveries(
          s.db,
          tenantOf(principal),
          {
            ...filter,
            excludeChecks: withoutChecks(includeChecks, filter.search),
            ...(patterns.length ? { topics: topics.filter((t) => matchesAnyPattern(patterns, t)) } : {}),
            ...(since ? { since: new Date(since) } : {}),
          },
          limit + 1,
          cursors.afterCommit(cursor),
        );
        return { body: commitPage(cursors, rows, limit) };
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/webhooks/deliveries/:id',
      operationId: 'getDelivery',
      tags,
      access: 'sandbox',
      scope: 'webhooks:read',
      summary: 'A delivery with its envelope, raw body, next attempt and every attempt.',
      params: idParam,
      responses: { 200: Delivery },
      handler: async ({ params, principal }) => ({ body: await getDelivery(s.db, tenantOf(principal), params.id) }),
    }),
    route({
      method: 'get',
      path: '/api/v1/webhooks/deliveries/:id/signed-request',
      operationId: 'getSignedRequest',
      tags,
      access: 'sandbox',
      scope: 'webhooks:write',
      errors: { 409: ['endpoint_deleted'] },
      summary:
        "The delivery's request signed afresh now, with every scheme and live key that would sign it (the inspector's Copy as curl).",
      params: idParam,
      responses: { 200: SignedRequest },
      handler: async ({ params, principal }) => ({
        body: await s.webhooks.resigner.request(tenantOf(principal), params.id),
      }),
    }),
    route({
      method: 'post',
      path: '/api/v1/webhooks/deliveries/:id/retry',
      operationId: 'retryDelivery',
      tags,
      access: 'sandbox',
      scope: 'webhooks:write',
      awaitsNetwork: true,
      errors: { 409: ['delivery_succeeded', 'delivery_dead', ...notAttemptable] },
      summary: 'Attempt a pending delivery now, in the next of its five slots.',
      params: idParam,
      responses: { 200: Delivery },
      handler: async ({ params, principal }) => ({ body: await service.retryNow(tenantOf(principal), params.id) }),
    }),
    route({
      method: 'post',
      path: '/api/v1/webhooks/deliveries/:id/replay',
      operationId: 'replayDelivery',
      tags,
      access: 'sandbox',
      scope: 'webhooks:write',
      awaitsNetwork: true,
      errors: { 409: ['delivery_pending', ...notAttemptable] },
      summary: 'One more attempt of a dead or succeeded delivery, outside the retry cycle.',
      params: idParam,
      responses: { 200: Delivery },
      handler: async ({ params, principal }) => ({ body: await service.replay(tenantOf(principal), params.id) }),
    }),
    route({
      method: 'post',
      path: '/api/v1/webhooks/deliveries/replay',
      operationId: 'replayDeliveries',
      tags,
      access: 'sandbox',
      scope: 'webhooks:write',
      errors: { 409: ['replay_in_progress'], 422: ['unknown_topic', 'blocked_by_policy'] },
      summary:
        'Replay by filter (statuses, topic pattern, endpoint, sandbox-time range, ids) as a job, ten at a time; answers at once (202, ' +
        'followed at /dlq-replays/{id}). dryRun: 200 with what it would send. 409 replay_in_progress while one runs. ' +
        "to: each sent to that URL as a new delivery (a resend) signed as the original's endpoint.",
      body: ReplayRequest,
      responses: { 200: ReplayPreview, 202: DlqReplayJob },
      handler: async ({ body, principal }) => {
        const { dryRun, ...filter } = body;
        if (filter.to !== undefined) await policy.assertAllowed(filter.to, '/to');
        if (dryRun) {
          const { filter: normalised, rows } = await replays.select(tenantOf(principal), filter);
          return { status: 200, body: { filter: normalised, total: rows.length, data: rows } };
        }
        const job = await replays.start(tenantOf(principal), filter);
        return { status: 202, body: job, headers: { location: `/api/v1/webhooks/dlq-replays/${job.id}` } };
      },
    }),
    route({
      method: 'post',
      path: '/api/v1/webhooks/deliveries/:id/resend',
      operationId: 'resendDelivery',
      tags,
      access: 'sandbox',
      scope: 'webhooks:write',
      errors: { 409: ['check_delivery', 'endpoint_deleted'] },
      summary:
        'Edit and resend any delivery (pending, succeeded or dead): a new delivery to the same endpoint, its data optionally edited ' +
        "(checked against the topic's schema: 422 validation_failed names each path), signed afresh in the endpoint's schemes, " +
        'retried and dead-lettered like any other; linked both ways (resentFrom / resentAs). Answers at once with it pending.',
      params: idParam,
      body: ResendRequest,
      responses: { 202: Delivery },
      handler: async ({ params, body, principal }) => {
        const request = { ...body, patch: body.patch as DataPatchOp[] | undefined };
        return { status: 202, body: await service.resend(tenantOf(principal), params.id, request) };
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/webhooks/dlq',
      operationId: 'listDeadLetters',
      tags,
      access: 'sandbox',
      scope: 'webhooks:read',
      summary: 'The dead-letter queue: dead deliveries, newest first.',
      query: listQuery.extend(DeliveriesQuery.omit({ status: true }).shape),
      responses: { 200: listOf(DeliverySummary) },
      handler: async (input) => {
        const { limit, cursor, includeChecks: _checks, ...filter } = input.query;
        const cursors = s.cursors.of(input, 'commit');
        const rows = await listDeliveries(
          s.db,
          tenantOf(input.principal),
          { ...filter, status: 'dead', excludeChecks: true },
          limit + 1,
          cursors.afterCommit(cursor),
        );
        return { body: commitPage(cursors, rows, limit) };
      },
    }),
    route({
      method: 'post',
      path: '/api/v1/webhooks/dlq/:id/replay',
      operationId: 'replayDeadLetter',
      tags,
      access: 'sandbox',
      scope: 'webhooks:write',
      awaitsNetwork: true,
      errors: { 409: ['delivery_not_dead', ...notAttemptable] },
      summary:
        'Replay one dead delivery (one attempt, outside the retry cycle); 409 delivery_not_dead for any other, whose detail says how to attempt it anyway.',
      params: idParam,
      responses: { 200: Delivery },
      handler: async ({ params, principal }) => ({ body: await service.replayDead(tenantOf(principal), params.id) }),
    }),
    route({
      method: 'post',
      path: '/api/v1/webhooks/dlq/replay',
      operationId: 'replayDeadLetters',
      tags,
      access: 'sandbox',
      scope: 'webhooks:write',
      errors: { 409: ['replay_in_progress'], 422: ['unknown_topic'] },
      summary:
        'Start replaying every dead delivery (optionally of one topic or endpoint) as a job, ten at a time; answers at once. 409 replay_in_progress while one runs.',
      body: DlqReplayRequest,
      responses: { 202: DlqReplayJob },
      handler: async ({ body, principal }) => {
        const job = await replays.startDlq(tenantOf(principal), body);
        return { status: 202, body: job, headers: { location: `/api/v1/webhooks/dlq-replays/${job.id}` } };
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/webhooks/dlq-replays',
      operationId: 'listDeadLetterReplays',
      tags,
      access: 'sandbox',
      scope: 'webhooks:read',
      summary: 'DLQ replay jobs, newest first.',
      query: listQuery,
      responses: { 200: listOf(DlqReplayJob) },
      handler: async (input) => ({
        body: await pageOf(s, input, (page) => replays.list(tenantOf(input.principal), page.limit, page.after)),
      }),
    }),
    route({
      method: 'get',
      path: '/api/v1/webhooks/dlq-replays/:id',
      operationId: 'getDeadLetterReplay',
      tags,
      access: 'sandbox',
      scope: 'webhooks:read',
      summary: 'A DLQ replay job and its progress (any engine answers).',
      params: idParam,
      responses: { 200: DlqReplayJob },
      handler: async ({ params, principal }) => ({ body: await replays.get(tenantOf(principal), params.id) }),
    }),
    route({
      method: 'post',
      path: '/api/v1/webhooks/dlq-replays/:id/cancel',
      operationId: 'cancelDeadLetterReplay',
      tags,
      access: 'sandbox',
      scope: 'webhooks:write',
      errors: { 409: ['replay_not_running'] },
      summary:
        'Cancel a running DLQ replay: no further replays start; those in flight finish and are counted. 409 replay_not_running once it ended.',
      params: idParam,
      responses: { 200: DlqReplayJob },
      handler: async ({ params, principal }) => ({ body: await replays.cancel(tenantOf(principal), params.id) }),
    }),
    route({
      method: 'post',
      path: '/api/v1/webhooks/test',
      operationId: 'sendTestWebhook',
      tags,
      access: 'sandbox',
      scope: 'webhooks:write',
      errors: { 422: ['unknown_topic', 'endpoint_not_found', 'no_sample_data', 'blocked_by_policy'] },
      summary:
        "Deliver a realistic sample of a topic (built from the sandbox's data) to an endpoint id or URL, optionally with your own data " +
        "(a merge patch and JSON Patch operations, checked against the topic's schema: 422 validation_failed names each path).",
      body: TestWebhookRequest,
      responses: { 202: TestWebhookResult },
      handler: async ({ body, principal }) => {
        if (!/^whe_/.test(body.endpoint)) await policy.assertAllowed(body.endpoint, '/endpoint');
        const changes = { data: body.data, patch: body.patch as DataPatchOp[] | undefined };
        return { status: 202, body: await service.sendTest(tenantOf(principal), body.topic, body.endpoint, changes) };
      },
    }),
  ];
};
