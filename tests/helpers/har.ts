import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import draft06 from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };

// The HAR 1.2 JSON Schema as the har-schema package keeps it (one file per object, draft-06), compiled by ajv.
const schemas = createRequire(import.meta.url)('har-schema') as Record<
  string,
  { $id: string; properties?: Record<string, any> }
>;

let validator: ValidateFunction | undefined;

/** Validates a HAR document against the HAR 1.2 schema; returns ajv's errors, or [] when valid. */
export function harSchemaErrors(har: unknown): string[] {
  if (!validator) {
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addMetaSchema(draft06);
    // har-schema writes date-time with a pattern of its own; formats are left to it.
    ajv.addFormat('date-time', true);
    for (const schema of Object.values(schemas)) ajv.addSchema(schema);
    validator = ajv.getSchema('har.json#')!;
  }
  const validate = validator;
  return validate(har) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/**
 * HAR 1.2 allows fields of one's own only with a leading underscore; the schema does not check that, so
 * this does: every other key of an entry and of its parts must be one the spec names.
 */
export function unknownHarFields(entry: Record<string, any>): string[] {
  const out: string[] = [];
  const walk = (value: Record<string, any>, schema: { properties?: Record<string, any> }, path: string) => {
    for (const [key, child] of Object.entries(value)) {
      if (key.startsWith('_')) continue;
      const spec = schema.properties?.[key];
      if (!spec) out.push(`${path}.${key}`);
      else if (spec.$ref && child && typeof child === 'object' && !Array.isArray(child))
        walk(child, schemas[spec.$ref.replace(/\.json#$/, '')] ?? {}, `${path}.${key}`);
    }
  };
  walk(entry, schemas.entry, 'entry');
  return out;
}
