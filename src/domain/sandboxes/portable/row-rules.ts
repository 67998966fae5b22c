import type { Queryable } from '../../../db/database.ts';
import { unstorablePaths } from '../../../shared/json-pointer.ts';
import { maxClockOffsetMs } from '../../../shared/clock-bounds.ts';
import type { FieldError } from '../../../shared/problem.ts';
import { portableTables } from './manifest.ts';
import { importedColumns, type PortableTable } from './portable-table.ts';
import { fileProblems, type FileWhere, type RowWhere } from './problems.ts';

/**
 * Every row of a sandbox file is untrusted input (SPEC §12): before anything is written it passes
 * what the database would demand of its column (type, range, NOT NULL), bounds no API lets a value
 * pass (timestamps within the clock's bound, text PostgreSQL can store, JSON of sane depth), and for
 * the rows the engine acts on, the same zod schemas and domain rules as the API that creates them.
 */

type Kind =
  'text' | 'int' | 'bigint' | 'smallint' | 'number' | 'bool' | 'time' | 'json' | 'jsonList' | 'texts' | 'bytes';

/** JSON columns that hold a list; every other one holds an object (what the code reading them expects). */
const jsonLists = new Set(['orders.items']);

interface Column {
  kind: Kind;
  nullable: boolean;
}

/** The longest text an import takes: a delivery body of the largest payload (1 MiB) with its envelope. */
const maxTextChars = 2 ** 21;
/** Nesting deeper than any document Sandbay writes: a deeper one is a crafted file. */
const maxJsonDepth = 64;

const kindOf = (dataType: string, udt: string): Kind => {
  if (dataType === 'ARRAY') return 'texts';
  if (dataType === 'integer') return 'int';
  if (dataType === 'bigint') return 'bigint';
  if (dataType === 'smallint') return 'smallint';
  if (dataType === 'boolean') return 'bool';
  if (dataType === 'bytea') return 'bytes';
  if (dataType === 'json' || dataType === 'jsonb') return 'json';
  if (dataType.startsWith('timestamp') || dataType === 'date') return 'time';
  if (['numeric', 'double precision', 'real'].includes(dataType)) return 'number';
  if (udt === 'text' || dataType === 'text' || dataType === 'character varying') return 'text';
  throw new Error(`row-rules: no rule for column type ${dataType}`);
};

/** The exported tables' column types, as the database declares them. */
export async function columnTypes(q: Queryable): Promise<Map<string, Map<string, Column>>> {
  const rows = await q.query<{
    table_name: string;
    column_name: string;
    data_type: string;
    udt_name: string;
    is_nullable: string;
  }>(
    `select table_name, column_name, data_type, udt_name, is_nullable from information_schema.columns
      where table_schema = current_schema() and table_name = any($1::text[])`,
    [portableTables.map((t) => t.table)],
  );
  const imported = new Map(portableTables.map((t) => [t.table, new Set(importedColumns(t))]));
  const out = new Map<string, Map<string, Column>>();
  for (const r of rows) {
    if (!imported.get(r.table_name)?.has(r.column_name)) continue;
    if (!out.has(r.table_name)) out.set(r.table_name, new Map());
    const kind = kindOf(r.data_type, r.udt_name);
    const list = kind === 'json' && jsonLists.has(`${r.table_name}.${r.column_name}`);
    out.get(r.table_name)!.set(r.column_name, { kind: list ? 'jsonList' : kind, nullable: r.is_nullable === 'YES' });
  }
  return out;
}

/** Ids and references to them: Sandbay makes them from letters, digits and a few separators, never empty. */
const isIdColumn = (name: string) => name === 'id' || name.endsWith('_id');
const idPattern = /^[A-Za-z0-9_.:@+-]{1,100}$/;

const intRange: Record<'int' | 'smallint' | 'bigint', number> = {
  smallint: 2 ** 15 - 1,
  int: 2 ** 31 - 1,
  bigint: Number.MAX_SAFE_INTEGER,
};

/** Depth of a JSON value, without recursion (a crafted file must not overflow the stack). */
function jsonDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (depth > deepest) deepest = depth;
    if (depth > maxJsonDepth) return depth;
    if (v && typeof v === 'object') for (const item of Object.values(v)) stack.push([item, depth + 1]);
  }
  return deepest;
}

/** Why a value does not fit its column, or undefined when it does. */
function misfit(column: Column, value: unknown, timeBounds: [number, number]): string | undefined {
  if (value === null || value === undefined) return column.nullable ? undefined : 'Required (the column is NOT NULL).';
  switch (column.kind) {
    case 'text':
      if (typeof value !== 'string') return 'Must be a string.';
      if (value.length > maxTextChars) return `At most ${maxTextChars} characters.`;
      return unstorablePaths(value).length ? 'Must be valid Unicode text without NUL or a lone surrogate.' : undefined;
    case 'int':
    case 'smallint':
    case 'bigint':
      return Number.isSafeInteger(value) && Math.abs(value as number) <= intRange[column.kind]
        ? undefined
        : `Must be an integer of at most ${intRange[column.kind]} in size.`;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'Must be a number.';
    case 'bool':
      return typeof value === 'boolean' ? undefined : 'Must be true or false.';
    case 'time': {
      const at = typeof value === 'string' ? Date.parse(value) : NaN;
      if (!Number.isFinite(at)) return 'Must be an RFC 3339 timestamp.';
      return at < timeBounds[0] || at > timeBounds[1]
        ? "Must be within 100 years of the file's sandbox clock (the bound `clock advance` keeps)."
        : undefined;
    }
    case 'json':
    case 'jsonList':
      if (column.kind === 'json' && (typeof value !== 'object' || Array.isArray(value)))
        return 'Must be a JSON object.';
      if (column.kind === 'jsonList' && !Array.isArray(value)) return 'Must be a JSON array.';
      if (jsonDepth(value) > maxJsonDepth) return `JSON nested at most ${maxJsonDepth} deep.`;
      return unstorablePaths(value).length ? 'Must be valid Unicode text without NUL or a lone surrogate.' : undefined;
    case 'texts':
      return Array.isArray(value) && value.every((v) => typeof v === 'string' && !unstorablePaths(v).length)
        ? undefined
        : 'Must be a list of strings.';
    case 'bytes':
      return typeof value === 'string' && /^\\x(?:[0-9a-fA-F]{2})*$/.test(value)
        ? undefined
        : 'Must be bytea as \\x hex.';
  }
}

/** The API's rules for the rows the engine acts on, by table: what the API that creates each one accepts. */
export type DomainRules = Record<string, (row: Record<string, unknown>) => FieldError[]>;

/**
 * The URLs a file would have Sandbay call (its endpoints', its pending bare-URL deliveries'), each where first named.
 */
interface ReceiverUrls {
  endpoints: Map<string, string>;
  urls: Map<string, FileWhere>;
}

/** Checks the rows of one file in order, naming the first that breaks a rule (table, row number, field). */
export class RowChecker {
  private readonly rowNumbers = new Map<string, number>();
  private readonly timeBounds: [number, number];
  readonly receivers: ReceiverUrls = { endpoints: new Map(), urls: new Map() };
  /** Endpoints (by id) without a current secret so far: secrets come after their endpoints in a file. */
  private readonly unsigned = new Map<string, RowWhere>();

  constructor(
    private readonly columns: Map<string, Map<string, Column>>,
    sandboxNowMs: number,
    /** The API's rules (src/server/portable-row-rules.ts: the request schemas live with the routes). */
    private readonly domainRules: DomainRules,
  ) {
    this.timeBounds = [sandboxNowMs - maxClockOffsetMs, sandboxNowMs + maxClockOffsetMs];
  }

  /** Once every row is read: what no single row shows (an endpoint must have a current secret to sign with). */
  finish(): void {
    const [where] = this.unsigned.values();
    if (where)
      throw fileProblems.invalid(
        where,
        'The endpoint has no current secret (a webhook_secrets row without expires_at).',
      );
  }

  check(t: PortableTable, sectionColumns: readonly string[], row: Record<string, unknown>, line: number): void {
    const number = (this.rowNumbers.get(t.table) ?? 0) + 1;
    this.rowNumbers.set(t.table, number);
    const refuse = (field: string, message: string, pointer?: string) => {
      throw fileProblems.invalid({ line, table: t.table, row: number, field }, message, pointer);
    };
    const declared = new Set(sectionColumns);
    for (const key of Object.keys(row)) if (!declared.has(key)) refuse(key, 'Not a column of its section.');
    const types = this.columns.get(t.table)!;
    for (const name of sectionColumns) {
      const value = row[name];
      if (t.portable?.[name]) {
        if (!(value === null || typeof value === 'boolean' || Number.isSafeInteger(value)))
          refuse(name, 'Must be a boolean or an integer.');
        continue;
      }
      // A file without secrets carries them as null: the import issues new ones.
      if (value === null && t.secrets?.[name]) continue;
      const why = misfit(types.get(name)!, value, this.timeBounds);
      if (why) refuse(name, why);
      if (isIdColumn(name) && typeof value === 'string' && !idPattern.test(value))
        refuse(name, 'An id as Sandbay makes them: 1 to 100 letters, digits and _ . : @ + -.');
    }
    const [first] = this.domainRules[t.table]?.(row) ?? [];
    if (first) refuse(first.path.split('/')[1] ?? '', first.message, first.path);
    const calls = (url: string, field: string) => {
      if (!this.receivers.urls.has(url)) this.receivers.urls.set(url, { line, table: t.table, row: number, field });
    };
    if (t.table === 'webhook_endpoints') {
      this.receivers.endpoints.set(String(row.id), String(row.url));
      this.unsigned.set(String(row.id), { line, table: t.table, row: number, field: 'id' });
      calls(String(row.url), 'url');
    }
    if (t.table === 'webhook_secrets' && row.expires_at === null) this.unsigned.delete(String(row.endpoint_id));
    if (t.table === 'deliveries' && row.endpoint_id === null && row.status === 'pending')
      calls(String(row.target_url), 'target_url');
  }
}
