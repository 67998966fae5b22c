import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { packageRoot } from '../shared/node/package-root.ts';
import { Problem } from '../shared/schemas/common.ts';
import { errorMeanings, problemCodes } from './openapi-errors.ts';
import { carriesCredentials, type ResponseSpec, type RouteDef } from './route.ts';

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
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
    uri: componentRef,
  }) as {
    schemas: Record<string, JsonSchema>;
  };
  for (const s of Object.values(schemas)) {
    delete s.$schema;
    delete s.$id;
  }
  return schemas;
}

function parameters(def: RouteDef): JsonSchema[] {
  const out: JsonSchema[] = [];
  const add = (schema: z.ZodType | undefined, where: 'path' | 'query') => {
    if (!(schema instanceof z.ZodObject)) return;
    for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
      out.push({
        name,
        in: where,
        required: where === 'path' || !field.safeParse(undefined).success,
        schema: jsonSchema(field),
        ...(field.description ? { description: field.description } : {}),
      });
    }
  };
  add(def.params, 'path');
  add(def.query, 'query');
  for (const name of def.path.matchAll(/:(\w+)/g)) {
    if (!out.some((p) => p.name === name[1]))
      out.push({ name: name[1], in: 'path', required: true, schema: { type: 'string' } });
  }
  return out;
}

const problemMedia = 'application/problem+json';

/** The Problem schema narrowed to one status and the codes an operation answers with it. */
const problemOf = (status: number, codes: string[]): JsonSchema => ({
  allOf: [jsonSchema(Problem), { properties: { status: { const: status }, code: { enum: codes } } }],
});

function documented(spec: z.ZodType | ResponseSpec): JsonSchema {
  const { description, schema, contentType } =
    spec instanceof z.ZodType ? { description: 'OK', schema: spec, contentType: undefined } : spec;
  const types = typeof contentType === 'string' ? [contentType] : (contentType ?? ['application/json']);
  // A body the route sends without a zod schema (HTML, a redirect's note) is documented as text.
  const body = schema ? jsonSchema(schema, 'output') : { type: 'string' };
  const hasBody = schema !== undefined || contentType !== undefined;
  return { description, ...(hasBody ? { content: Object.fromEntries(types.map((t) => [t, { schema: body }])) } : {}) };
}

/** Statuses that always carry Retry-After: the database faults (SPEC §9). */
const retryLater = new Set([503, 507]);
const retryAfterHeader = {
  description: 'Seconds to wait before trying again.',
  schema: { type: 'integer', minimum: 1 },
};

/** What a response carrying a credential says to caches (SPEC §7). */
const noStoreHeader = {
  description: 'A credential is in this answer: no cache may keep it (RFC 6749 §5.1).',
  schema: { type: 'string', const: 'no-store' },
};

function responses(def: RouteDef): JsonSchema {
  const out: Record<string, JsonSchema> = {};
  for (const [status, spec] of Object.entries(def.responses ?? { 200: { description: 'OK' } })) {
    out[status] = documented(spec);
    if (carriesCredentials(def) && status.startsWith('2')) out[status].headers = { 'Cache-Control': noStoreHeader };
  }
  for (const [status, codes] of problemCodes(def)) {
    // A status the route documents only by range (the catcher's configured 4XX) keeps that content too.
    const own = (out[status] ?? out[`${String(status)[0]}XX`]) as
      { description?: string; content?: JsonSchema } | undefined;
    const meaning = `${errorMeanings[status] ?? 'Error'} (code ${[...codes].join(', ')})`;
    out[status] = {
      description: own ? `${own.description}; or problem details: ${meaning}` : meaning,
      ...(retryLater.has(status) ? { headers: { 'Retry-After': retryAfterHeader } } : {}),
      content: { ...own?.content, [problemMedia]: { schema: problemOf(status, [...codes]) } },
    };
  }
  return out;
}

const bodyMedia = { json: 'application/json', form: 'application/x-www-form-urlencoded' } as const;

function requestBody(def: RouteDef): JsonSchema | undefined {
  if (def.requestMedia) {
    const schema = { type: 'string', contentEncoding: 'binary' };
    return {
      required: true,
      description: def.requestMedia.description,
      content: Object.fromEntries(def.requestMedia.types.map((t) => [t, { schema }])),
    };
  }
  if (!def.body) return undefined;
  const schema = jsonSchema(def.body);
  // An empty body reads as {} (SPEC §2), so no request body is required.
  return {
    required: false,
    content: Object.fromEntries((def.accepts ?? ['json']).map((kind) => [bodyMedia[kind], { schema }])),
  };
}

/** The package's license (package.json is its one source), as OpenAPI's info.license. */
function license(): JsonSchema {
  const id =
    (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { license?: string }).license ??
    'UNLICENSED';
  // npm's UNLICENSED grants no license; SPDX names such a license with a LicenseRef-.
  return id === 'UNLICENSED'
    ? { name: 'Proprietary: no license is granted', identifier: 'LicenseRef-Proprietary' }
    : { name: id, identifier: id };
}

const guardNote =
  'Requests no operation matches answer problem details too: 404 not_found for an unknown path, ' +
  '405 method_not_allowed (with Allow) for a known path and another method. The host and origin guards (403 host_not_allowed, ' +
  'origin_not_allowed) run before routing and are listed on every operation.';

/**
 * The OpenAPI 3.1 document, generated from the route definitions that also validate requests.
 * `servers` is left out: it names the origin the document is served from, set per request.
 */
export function buildOpenApi(defs: RouteDef[], extra: { webhooks?: Record<string, unknown> } = {}): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const def of defs) {
    const path = def.path.replace(/:(\w+)/g, '{$1}');
    const security =
      def.access === 'none'
        ? []
        : def.access === 'admin'
          ? [{ adminKey: [] }]
          : [{ bearer: def.scope ? [def.scope] : [] }, { adminKey: [] }];
    const body = requestBody(def);
    (paths[path] ??= {})[def.method] = {
      operationId: def.operationId,
      summary: def.summary,
      tags: def.tags,
      security,
      parameters: parameters(def),
      ...(body ? { requestBody: body } : {}),
      responses: responses(def),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sandbay sandbox API',
      version: '1.0.0',
      description: `A local, offline copy of the commerce platform sandbox: REST API, OAuth simulator and signed webhooks. ${guardNote}`,
      license: license(),
    },
    paths,
    ...(extra.webhooks ? { webhooks: extra.webhooks } : {}),
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An access token from POST /oauth/token or POST /api/v1/sandboxes.',
        },
        adminKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'The per-install admin key, with a Sandbay-Sandbox header naming the sandbox.',
        },
        webhookSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Service-Signature',
          description:
            'How a receiver authenticates a delivery: `t=<unix seconds>,v1=<hex>`, where v1 is the HMAC-SHA256, keyed with the ' +
            "endpoint's secret, of `<t>.<raw body>`. While a rotated secret is still live there is one v1 per secret. Reject a " +
            "delivery whose t is more than 5 minutes from now, and compare signatures in constant time. Sent when the endpoint's " +
            '`signature` includes `sandbay` (the default).',
        },
        standardWebhooks: {
          type: 'apiKey',
          in: 'header',
          name: 'webhook-signature',
          description:
            "The Standard Webhooks scheme (standardwebhooks.com), sent when the endpoint's `signature` includes `standard-webhooks` " +
            'or `standard-webhooks-ed25519`: space-separated `v1,<base64 HMAC-SHA256>` (keyed with the base64-decoded part of the whsec_ ' +
            "secret) and/or `v1a,<base64 ed25519>` (verified with the endpoint's whpk_ public key) of `<webhook-id>.<webhook-timestamp>.<raw body>`; " +
            'one signature per live key during a rotation. webhook-id is the delivery id, the same on every attempt: dedupe on it.',
        },
      },
    },
  };
}
