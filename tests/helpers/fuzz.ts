// What the OpenAPI-driven fuzz tests share: requests built from the document's own schemas, a
// seeded random source (a failure names its seed, so it can be replayed), response checks, and
// a fingerprint of a sandbox's state to prove a refused request changed nothing.
import { createHash } from 'node:crypto';
import type { Queryable } from '../../src/db/database.ts';
import type { RawResponse } from './http.ts';

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  minimum?: number;
  format?: string;
  minLength?: number;
  pattern?: string;
  default?: unknown;
};
export interface Operation {
  operationId: string;
  parameters?: { name: string; in: string; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}
export interface OperationAt {
  path: string;
  method: string;
  op: Operation;
}

/** The fuzz's seed (FUZZ_SEED) and time budget per test (FUZZ_BUDGET_MS): fixed, so runs repeat. */
export const fuzzSeed = Number(process.env.FUZZ_SEED ?? 20261123);
export const fuzzBudgetMs = (fallback: number) => Number(process.env.FUZZ_BUDGET_MS ?? fallback);

/** A seeded source of numbers in [0, 1): the same seed sends the same requests. */
export function seededRandom(seed: number): () => number {
  let n = 0;
  return () => createHash('sha256').update(`${seed}:${n++}`).digest().readUInt32BE(0) / 2 ** 32;
}

export const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)];

export function shuffled<T>(random: () => number, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Every operation of the document, the destructive ones (reset, delete the sandbox) last. */
export function operationsOf(doc: any): OperationAt[] {
  const last = new Set(['resetSandbox', 'deleteSandbox']);
  return Object.entries(doc.paths as Record<string, Record<string, Operation>>)
    .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })))
    .sort((a, b) => Number(last.has(a.op.operationId)) - Number(last.has(b.op.operationId)));
}

// Seeded ids that exist in every sandbox and values the domain checks accept, by field name, so
// plausible requests reach the handlers' own logic.
const known: Record<string, unknown> = {
  customerId: 'cus_0001',
  variantId: 'var_0001',
  productId: 'prd_0001',
  vendorId: 'ven_0001',
  companyId: 'com_0001',
  orderId: 'ord_0001',
  approverId: 'cus_0043',
  staffId: 'stf_0002',
  quoteId: 'quo_0001',
  invitedBy: 'stf_0001',
  topics: ['*'],
  topic: 'order.placed',
  phone: '+90 532 123 45 67',
  taxNumber: '1234567890',
  iban: 'TR330006100519786457841326',
  number: '4242424242424242',
  cvc: '123',
  expMonth: 12,
  expYear: 2030,
  periodStart: '2026-01-01',
  periodEnd: '2026-12-31',
  approvalLevel: undefined,
};

function resolve(doc: any, schema: Schema): Schema {
  if (!schema?.$ref) return schema ?? {};
  return resolve(
    doc,
    schema.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((node: any, key) => node[key], doc),
  );
}

/** A value that satisfies the common cases of a schema (good enough to get past validation often). */
function plausible(doc: any, raw: Schema, receiverUrl: string, name = '', depth = 0): unknown {
  const schema = resolve(doc, raw);
  if (depth > 6) return null;
  if (name in known) return known[name];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants)
    return plausible(
      doc,
      variants.find((v) => resolve(doc, v).type !== 'null') ?? variants[0],
      receiverUrl,
      name,
      depth + 1,
    );
  if (schema.allOf)
    return Object.assign({}, ...schema.allOf.map((s) => plausible(doc, s, receiverUrl, name, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(schema.properties ?? {}))
        out[key] = plausible(doc, value, receiverUrl, key, depth + 1);
      return out;
    }
    case 'array':
      return schema.items ? [plausible(doc, schema.items, receiverUrl, name, depth + 1)] : [];
    case 'integer':
      return Math.max(1, schema.minimum ?? 1);
    case 'number':
      return Math.max(1, schema.minimum ?? 1);
    case 'boolean':
      return false;
    case 'string':
      if (schema.format === 'uri' || /url|endpoint/i.test(name)) return receiverUrl;
      if (schema.format === 'date-time') return '2026-12-01T00:00:00Z';
      if (schema.format === 'date') return '2026-12-01';
      if (schema.format === 'email' || /email/i.test(name)) return 'fuzz@example.com';
      if (name === 'city') return 'İstanbul';
      if (name === 'district') return 'Kadıköy';
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    default:
      return null;
  }
}

/** The plausible JSON body of an operation, or undefined when it takes none. */
export function plausibleBody(doc: any, op: Operation, receiverUrl: string): unknown {
  const schema = op.requestBody?.content['application/json']?.schema;
  return schema ? plausible(doc, schema, receiverUrl) : undefined;
}

/**
 * What is wrong with a response, if anything: a 5xx, an error that is not problem+json (the OAuth
 * endpoints answer in RFC 6749 form or HTML, SPEC §2–3), a stack trace. A catcher answers the
 * status it was configured with, 5xx included: that is a simulation, not a failure.
 */
export function responseFault(path: string, res: RawResponse): string | undefined {
  const caught = path.startsWith('/catch/');
  if (res.status >= 500 && !(caught && /simulated|held this request/.test(res.body)))
    return `${res.status} ${res.body.slice(0, 200)}`;
  const problemJson = !path.startsWith('/oauth/') && !path.startsWith('/3ds/') && !(caught && res.status !== 404);
  if (res.status >= 400 && problemJson && !/application\/problem\+json/.test(String(res.headers['content-type'])))
    return `${res.status} without problem+json`;
  if (/\n\s+at /.test(res.body)) return 'a stack trace';
  return undefined;
}

// Rows that change on their own after a request succeeded: attempts land, catchers log them.
const changingByThemselves = new Set(['deliveries', 'attempts', 'catcher_requests']);

/**
 * A fingerprint of everything a sandbox holds: per table, its row count and the newest row
 * version (xmin), so an insert, update or delete of any of its rows changes it.
 */
export async function stateOf(db: Queryable, tenantId: string): Promise<string> {
  fingerprintSql ??= db
    .query<{ table_name: string }>(
      `select table_name from information_schema.columns
      where table_schema = 'public' and column_name = 'tenant_id' order by table_name`,
    )
    .then((rows) => {
      const tables = rows.map((t) => t.table_name).filter((t) => !changingByThemselves.has(t));
      const select = tables.map(
        (t) =>
          `(select count(*) || ':' || coalesce(max(xmin::text::bigint), 0) from ${t} where tenant_id = $1) as "${t}"`,
      );
      select.push('(select xmin::text from tenants where id = $1) as tenants');
      return `select ${select.join(', ')}`;
    });
  const [row] = await db.query<Record<string, string>>(await fingerprintSql, [tenantId]);
  return JSON.stringify(row);
}
let fingerprintSql: Promise<string> | undefined;

/** The tables whose fingerprints differ (for the failure message). */
export function changedTables(before: string, after: string): string[] {
  const [a, b] = [JSON.parse(before), JSON.parse(after)] as Record<string, string>[];
  return Object.keys(a)
    .filter((t) => a[t] !== b[t])
    .map((t) => `${t} ${a[t]} → ${b[t]}`);
}
