import { z } from 'zod';
import { categoryOf, topics } from '../../shared/topics.ts';
import { topicDataSchemas } from '../../webhooks/topics/schemas.ts';
import { jsonSchema } from '../openapi.ts';
import { route } from '../route.ts';

const TopicList = z
  .object({ data: z.array(z.object({ topic: z.string(), category: z.string(), dataSchema: z.record(z.string(), z.unknown()) })) })
  .meta({ id: 'TopicList' });

const dataSchemaOf = (topic: (typeof topics)[number]) => {
  const schema = topicDataSchemas[topic];
  return schema ? jsonSchema(schema, 'output') : {};
};

// order.placed → orderPlacedWebhook: an operationId a client generator can name a handler after.
const webhookOperationId = (topic: string) => `${topic.replace(/[._]([a-z])/g, (_m, c: string) => c.toUpperCase())}Webhook`;

const retried = 'The delivery failed: it is retried 30 s, 2 min, 10 min and 1 h later, then dead-lettered (SPEC §5.3).';

/** The OpenAPI `webhooks` section: each topic's POST with its envelope and headers (SPEC §5.2). */
export function webhooksSection(): Record<string, unknown> {
  return Object.fromEntries(topics.map((topic) => [topic, {
    post: {
      operationId: webhookOperationId(topic),
      summary: `${topic} (${categoryOf(topic)})`,
      security: [{ webhookSignature: [] }],
      parameters: [
        { name: 'X-Service-Topic', in: 'header', required: true, schema: { const: topic } },
        { name: 'X-Service-Delivery-Id', in: 'header', required: true, schema: { type: 'string' } },
        { name: 'X-Service-Signature', in: 'header', required: true, schema: { type: 'string', pattern: '^t=\\d+(,v1=[0-9a-f]{64})+$' } },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object', required: ['topic', 'deliveryId', 'tenantId', 'occurredAt', 'data'],
              properties: {
                topic: { const: topic }, deliveryId: { type: 'string' }, tenantId: { type: 'string' },
                occurredAt: { type: 'string', format: 'date-time' }, data: dataSchemaOf(topic),
              },
            },
          },
        },
      },
      responses: {
        '2XX': { description: 'Any 2xx acknowledges the delivery; the body is ignored.' },
        '4XX': { description: `The receiver refused it (a bad signature, say). ${retried}` },
        '5XX': { description: `The receiver failed. ${retried}` },
      },
    },
  }]));
}

export const topicRoutes = () => [
  route({
    method: 'get', path: '/api/v1/webhooks/topics', operationId: 'listTopics', tags: ['Webhooks'], access: 'sandbox', scope: 'webhooks:read',
    summary: 'The 33 topics with their category and the JSON Schema of their data.', responses: { 200: TopicList },
    handler: () => ({ body: { data: topics.map((topic) => ({ topic, category: categoryOf(topic), dataSchema: dataSchemaOf(topic) })) } }),
  }),
];
