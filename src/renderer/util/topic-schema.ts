import { z } from 'zod';
import { api } from '../api/client.ts';

/** One way an edited data fails its topic's schema, at a JSON Pointer under /data (as the API's 422 names it). */
export interface SchemaIssue {
  path: string;
  message: string;
}

export type DataValidator = (data: unknown) => SchemaIssue[];

// A receiver should tolerate fields a topic does not declare, and the API accepts them (SPEC §11): only
// the declared fields are held to their types here too.
function allowExtraFields(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(allowExtraFields);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key, value]) => !(key === 'additionalProperties' && value === false))
      .map(([key, value]) => [key, allowExtraFields(value)]),
  );
}

const pointer = (path: readonly PropertyKey[]) =>
  path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

let validators: Promise<Map<string, DataValidator>> | undefined;

/** Each topic's data validator, from the JSON Schemas of GET /webhooks/topics (fetched once per page). */
export function topicValidators(): Promise<Map<string, DataValidator>> {
  validators ??= api
    .get<{ data: { topic: string; dataSchema: Record<string, unknown> }[] }>('/api/v1/webhooks/topics')
    .then(({ data }) => {
      const byTopic = new Map<string, DataValidator>();
      for (const { topic, dataSchema } of data) {
        const schema = z.fromJSONSchema(allowExtraFields(dataSchema) as Parameters<typeof z.fromJSONSchema>[0]);
        byTopic.set(topic, (value) => {
          const checked = schema.safeParse(value);
          return checked.success
            ? []
            : checked.error.issues.map((i) => ({ path: `/data${pointer(i.path)}`, message: i.message }));
        });
      }
      return byTopic;
    })
    .catch((err: unknown) => {
      validators = undefined;
      throw err;
    });
  return validators;
}
