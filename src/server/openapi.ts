import { z } from 'zod';
import type { RouteDef } from './route.ts';

const componentRef = (id: string) => `#/components/schemas/${id}`;

type JsonSchema = Record<string, unknown>;

/** JSON Schema (2020-12, as OpenAPI 3.1 uses) for a zod schema; registered schemas become $refs. */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  const id = z.globalRegistry.get(schema)?.id;
  if (id) return { $ref: componentRef(id) };
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  delete out.$schema;
  // Registered sub-schemas arrive as local $defs; they already live in components.
  const defs = out.$defs as Record<string, unknown> | undefined;
  delete out.$defs;
  return defs ? (JSON.parse(JSON.stringify(out).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema) : out;
}

function componentSchemas(): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(z.globalRegistry, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any', uri: componentRef }) as {
    schemas: Record<string, JsonSchema>;
  };
  for (const s of Object.values(schemas)) {
    delete s.$schema;
    delete s.$id;
  }
  return schemas;
}

const problemSchema: JsonSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' }, code: { type: 'string' },
    errors: { type: 'array', items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } } },
  },
};

function parameters(def: RouteDef): JsonSchema[] {
  const out: JsonSchema[] = [];
  const add = (schema: z.ZodType | undefined, where: 'path' | 'query') => {
    if (!(schema instanceof z.ZodObject)) return;
    for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
      out.push({
        name, in: where, required: where === 'path' || !field.safeParse(undefined).success,
        schema: jsonSchema(field), ...(field.description ? { description: field.description } : {}),
      });
    }
  };
  add(def.params, 'path');
  add(def.query, 'query');
  for (const name of def.path.matchAll(/:(\w+)/g)) {
    if (!out.some((p) => p.name === name[1])) out.push({ name: name[1], in: 'path', required: true, schema: { type: 'string' } });
  }
  return out;
}

function responses(def: RouteDef): JsonSchema {
  const out: JsonSchema = {};
  for (const [status, spec] of Object.entries(def.responses ?? { 200: { description: 'OK' } })) {
    const { description, schema, contentType } = spec instanceof z.ZodType ? { description: 'OK', schema: spec, contentType: undefined } : spec;
    out[status] = {
      description,
      ...(schema ? { content: { [contentType ?? 'application/json']: { schema: jsonSchema(schema, 'output') } } } : {}),
    };
  }
  out.default = { description: 'Error (RFC 9457 problem details)', content: { 'application/problem+json': { schema: { $ref: componentRef('Problem') } } } };
  return out;
}

/** The OpenAPI 3.1 document, generated from the route definitions that also validate requests. */
export function buildOpenApi(defs: RouteDef[], extra: { webhooks?: Record<string, unknown>; serverUrl?: string } = {}): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const def of defs) {
    const path = def.path.replace(/:(\w+)/g, '{$1}');
    const security = def.access === 'none' ? [] : def.access === 'admin' ? [{ adminKey: [] }] : [{ bearer: def.scope ? [def.scope] : [] }, { adminKey: [] }];
    (paths[path] ??= {})[def.method] = {
      operationId: def.operationId,
      summary: def.summary,
      tags: def.tags,
      security,
      parameters: parameters(def),
      ...(def.body ? { requestBody: { required: false, content: { [def.accepts?.includes('form') ? 'application/x-www-form-urlencoded' : 'application/json']: { schema: jsonSchema(def.body) } } } } : {}),
      responses: responses(def),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sandbay sandbox API',
      version: '1.0.0',
      description: 'A local, offline copy of the commerce platform sandbox: REST API, OAuth simulator and signed webhooks.',
    },
    ...(extra.serverUrl ? { servers: [{ url: extra.serverUrl }] } : {}),
    paths,
    ...(extra.webhooks ? { webhooks: extra.webhooks } : {}),
    components: {
      schemas: { Problem: problemSchema, ...componentSchemas() },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An access token from POST /oauth/token or POST /api/v1/sandboxes.' },
        adminKey: { type: 'http', scheme: 'bearer', description: 'The per-install admin key, with a Sandbay-Sandbox header naming the sandbox.' },
      },
    },
  };
}
