import { Readable } from 'node:stream';
import { z } from 'zod';
import { exportedDeliveries } from '../../webhooks/delivery-export.ts';
import { fixturesText, harText } from '../../webhooks/har.ts';
import { unknownTopic } from '../../webhooks/service.ts';
import { isTopic, isValidPattern, patternList } from '../../shared/topics.ts';
import { packageVersion } from '../../shared/node/package-root.ts';
import { tenantOf } from '../auth/principal.ts';
import { route } from '../route.ts';
import { withoutChecks } from './webhooks.ts';
import { DeliveriesQuery } from '../schemas/webhooks.ts';
import type { Services } from '../services.ts';

const ExportDeliveriesQuery = DeliveriesQuery.extend({
  format: z
    .enum(['har', 'fixtures'])
    .default('har')
    .describe('har: HAR 1.2, one entry per attempt; fixtures: a fixtures file for replayFixtures and sandbay replay'),
  topics: z
    .string()
    .max(2000)
    .optional()
    .describe('Comma-separated topic patterns (order.*, *, a topic): deliveries of any of them'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(1000)
    .describe('The newest this many matching deliveries, written oldest first'),
});

// Loose on purpose: the HAR 1.2 schema itself checks HAR files (tests/integration/portable/har.test.ts).
const HarFile = z
  .object({
    log: z
      .object({
        version: z.literal('1.2'),
        creator: z.object({ name: z.string(), version: z.string() }),
        entries: z.array(z.object({}).passthrough()),
      })
      .passthrough(),
  })
  .meta({
    id: 'HarFile',
    description:
      'HTTP Archive 1.2: one entry per attempt, with the request bytes and headers sent and the answer recorded',
  });
const FixturesFile = z
  .object({
    sandbayFixtures: z.number().int(),
    recordedAt: z.string(),
    source: z.object({ sandboxId: z.string() }).passthrough(),
    fixtures: z.array(
      z
        .object({
          name: z.string(),
          topic: z.string(),
          deliveryId: z.string(),
          eventId: z.string(),
          body: z.string(),
          headers: z.record(z.string(), z.string()),
        })
        .passthrough(),
    ),
  })
  .meta({
    id: 'FixturesFile',
    description: 'Recorded deliveries for replayFixtures() and sandbay replay (docs/receivers/testing.md)',
  });

/** Export routes come before GET /webhooks/deliveries/:id, which would otherwise take "export" for an id. */
export const deliveryExportRoutes = (s: Services) => [
  route({
    method: 'get',
    path: '/api/v1/webhooks/deliveries/export',
    operationId: 'exportDeliveries',
    tags: ['Webhooks'],
    access: 'sandbox',
    scope: 'webhooks:read',
    errors: { 422: ['unknown_topic'] },
    summary:
      'Deliveries as a HAR 1.2 file (every attempt an entry: request bytes and headers with the signature, the answer, timings) or as recorded fixtures; the same filters as the list.',
    query: ExportDeliveriesQuery,
    responses: { 200: z.union([HarFile, FixturesFile]) },
    handler: async ({ query, principal }) => {
      const tenantId = tenantOf(principal);
      const { format, topics: topicList, limit, includeChecks, ...filter } = query;
      if (filter.topic && !isTopic(filter.topic)) throw unknownTopic(filter.topic, '/topic');
      const topics = patternList(topicList);
      for (const t of topics) if (!isValidPattern(t)) throw unknownTopic(t, '/topics');
      // A receiver check's probes (tampered bodies, 1 MiB bodies, byte forms) are neither fixtures nor traffic to
      // inspect in a HAR, unless asked for (includeChecks=true).
      const deliveries = exportedDeliveries(s.db, tenantId, {
        ...filter,
        topics,
        limit,
        excludeChecks: withoutChecks(includeChecks, filter.search),
      });
      const stamp = new Date(s.clock.nowMs(tenantId)).toISOString().replace(/[:.]/g, '-').slice(0, 19);
      const text =
        format === 'har'
          ? harText(deliveries, { name: 'Sandbay', version: packageVersion() })
          : fixturesText(deliveries, { sandboxId: tenantId, url: s.baseUrl() }, new Date(s.clock.real()).toISOString());
      return {
        body: Readable.from(text),
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'content-disposition': `attachment; filename="deliveries-${stamp}.${format === 'har' ? 'har' : 'fixtures.json'}"`,
        },
      };
    },
  }),
];
