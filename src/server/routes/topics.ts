import { z } from 'zod';
import { categoryOf, topics } from '../../shared/topics.ts';
import { topicDataSchemas } from '../../webhooks/topics/schemas.ts';
import { jsonSchema } from '../openapi.ts';
import { route } from '../route.ts';

const TopicList = z
  .object({
    data: z.array(z.object({ topic: z.string(), category: z.string(), dataSchema: z.record(z.string(), z.unknown()) })),
  })
  .meta({ id: 'TopicList' });

const dataSchemaOf = (topic: (typeof topics)[number]) => {
  const schema = topicDataSchemas[topic];
  return schema ? jsonSchema(schema, 'output') : {};
};

// order.placed → orderPlacedWebhook: an operationId a client generator can name a handler after.
const webhookOperationId = (topic: string) =>
  `${topic.replace(/[._]([a-z])/g, (_m, c: string) => c.toUpperCase())}Webhook`;

const retried = 'The delivery failed: it is retried 30 s, 2 min, 10 min and 1 h later, then dead-lettered (SPEC §5.3).';

const sandbayOnly = "Sent when the endpoint's signature includes sandbay (the default).";
const standardOnly = "Sent when the endpoint's signature includes standard-webhooks or standard-webhooks-ed25519.";

/**
 * The OpenAPI `webhooks` section: each topic's POST with its envelope and headers (SPEC §5.2, §11).
 * The body's fields follow the endpoint's schemes: Sandbay's envelope, Standard Webhooks' type,
 * timestamp and data, or (several schemes at once, during a migration) both sets in one body.
 */
export function webhooksSection(): Record<string, unknown> {
  return Object.fromEntries(
    topics.map((topic) => [
      topic,
      {
        post: {
          operationId: webhookOperationId(topic),
          summary: `${topic} (${categoryOf(topic)})`,
          description:
            "The headers and body fields depend on the endpoint's signing schemes (its `signature`): Sandbay's own, Standard Webhooks " +
            '(HMAC v1 or ed25519 v1a), or several at once, each with its own headers on the same request.',
          security: [{ webhookSignature: [] }, { standardWebhooks: [] }],
          parameters: [
            {
              name: 'X-Service-Topic',
              in: 'header',
              required: false,
              description: sandbayOnly,
              schema: { const: topic },
            },
            {
              name: 'X-Service-Delivery-Id',
              in: 'header',
              required: false,
              description: sandbayOnly,
              schema: { type: 'string' },
            },
            {
              name: 'X-Service-Signature',
              in: 'header',
              required: false,
              description: sandbayOnly,
              schema: { type: 'string', pattern: '^t=\\d+(,v1=[0-9a-f]{64})+$' },
            },
            {
              name: 'webhook-id',
              in: 'header',
              required: false,
              description: `${standardOnly} The delivery id: the same on every attempt and replay.`,
              schema: { type: 'string' },
            },
            {
              name: 'webhook-timestamp',
              in: 'header',
              required: false,
              description: `${standardOnly} Unix seconds of this attempt (real clock).`,
              schema: { type: 'string', pattern: '^\\d+$' },
            },
            {
              name: 'webhook-signature',
              in: 'header',
              required: false,
              description: `${standardOnly} Space-separated v1,<base64> and/or v1a,<base64>.`,
              schema: { type: 'string', pattern: '^v1a?,[A-Za-z0-9+/]+={0,2}( v1a?,[A-Za-z0-9+/]+={0,2})*$' },
            },
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['data'],
                  properties: {
                    topic: { const: topic, description: sandbayOnly },
                    deliveryId: { type: 'string', description: sandbayOnly },
                    tenantId: { type: 'string', description: sandbayOnly },
                    occurredAt: { type: 'string', format: 'date-time', description: sandbayOnly },
                    type: { const: topic, description: standardOnly },
                    timestamp: {
                      type: 'string',
                      format: 'date-time',
                      description: `${standardOnly} When the event occurred (sandbox clock).`,
                    },
                    data: dataSchemaOf(topic),
                  },
                  anyOf: [
                    { title: 'Sandbay envelope', required: ['topic', 'deliveryId', 'tenantId', 'occurredAt'] },
                    { title: 'Standard Webhooks payload', required: ['type', 'timestamp'] },
                  ],
                },
              },
            },
          },
          responses: {
            '2XX': { description: 'Any 2xx acknowledges the delivery; the body is ignored.' },
            '410': {
              description:
                'Gone: the endpoint is disabled (its reason and time shown); its pending deliveries wait until it is enabled again (SPEC §5.3).',
            },
            '429': {
              description: `Too many requests. A Retry-After (seconds or an HTTP date) moves the next attempt to the later of the schedule and itself, at most 1 h. ${retried}`,
            },
            '4XX': { description: `The receiver refused it (a bad signature, say). ${retried}` },
            '5XX': {
              description: `The receiver failed; on 502, 503 and 504 a Retry-After is honoured as on 429. ${retried}`,
            },
          },
        },
      },
    ]),
  );
}

export const topicRoutes = () => [
  route({
    method: 'get',
    path: '/api/v1/webhooks/topics',
    operationId: 'listTopics',
    tags: ['Webhooks'],
    access: 'sandbox',
    scope: 'webhooks:read',
    summary: 'The 33 topics with their category and the JSON Schema of their data.',
    responses: { 200: TopicList },
    handler: () => ({
      body: { data: topics.map((topic) => ({ topic, category: categoryOf(topic), dataSchema: dataSchemaOf(topic) })) },
    }),
  }),
];
