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

/** The OpenAPI `webhooks` section: each topic's POST with its envelope and headers (SPEC §5.2). */
export function webhooksSection(): Record<string, unknown> {
  return Object.fromEntries(topics.map((topic) => [topic, {
    post: {
      summary: `${topic} (${categoryOf(topic)})`,
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
      responses: { '2XX': { description: 'Any 2xx acknowledges the delivery; anything else is retried (30 s, 2 min, 10 min, 1 h).' } },
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
