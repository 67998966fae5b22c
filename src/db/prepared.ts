import { parse, protocol, type PGlite } from '@electric-sql/pglite';

// PGlite's query() makes six trips into Postgres per call (Parse, Describe, Bind, Describe,
// Execute, Sync) and plans the statement every time. A statement prepared once by name runs
// in one trip (Bind, Execute, Sync) with its plan kept: two to three times cheaper, which is
// what a hot read such as GET /orders/{id} spends most of its time on.

type Message = Awaited<ReturnType<PGlite['execProtocolStream']>>[number];

interface Statement {
  name: string;
  paramTypes: number[];
  /** null for a statement that returns no rows. */
  rowDescription: Message | null;
}

// The plan went stale (DDL changed a result type) or the statement is gone: prepare it again.
const replanCodes = new Set(['0A000', '26000']);

const { serialize } = protocol;

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

type Run = <T>(sql: string, params: readonly unknown[]) => Promise<T[]>;

/**
 * Runs statements as named prepared statements on one PGlite connection: `outside` as its own
 * transaction, holding the same locks as PGlite's query(), so it never interleaves with a
 * transaction; `inside` within the transaction that holds the connection now (as its tx.query
 * does). Skipping PGlite's sync to storage is safe: on a Node data dir (or in memory) every
 * write already reached the files, and that sync does nothing there.
 */
export function preparedStatements(pg: PGlite): { outside: Run; inside: Run } {
  const statements = new Map<string, Statement>();
  let counter = 0;

  const prepare = async (sql: string): Promise<Statement> => {
    const name = `sandbay_${++counter}`;
    const messages = await pg.execProtocolStream(
      concat([serialize.parse({ name, text: sql }), serialize.describe({ type: 'S', name }), serialize.sync()]),
      { syncToFs: false },
    );
    const statement = {
      name,
      paramTypes: parse.parseDescribeStatementResults(messages),
      rowDescription: messages.find((m) => m.name === 'rowDescription') ?? null,
    };
    statements.set(sql, statement);
    return statement;
  };

  const execute = async (statement: Statement, params: readonly unknown[]) => {
    // Values are sent as text, serialised exactly as query() does it (by the parameter's type).
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = pg.serializers[statement.paramTypes[i]];
      return serializer ? serializer(value) : String(value);
    });
    const messages = await pg.execProtocolStream(
      concat([serialize.bind({ statement: statement.name, values }), serialize.execute({}), serialize.sync()]),
      { syncToFs: false },
    );
    const [result] = parse.parseResults(
      statement.rowDescription ? [statement.rowDescription, ...messages] : messages,
      pg.parsers,
    );
    return result?.rows ?? [];
  };

  const run = async <T>(sql: string, params: readonly unknown[], replan: boolean) => {
    const statement = statements.get(sql) ?? (await prepare(sql));
    try {
      return (await execute(statement, params)) as T[];
    } catch (err) {
      // Within a transaction the failure has aborted it: a second try could only fail again.
      if (!replan || !replanCodes.has((err as { code?: string }).code ?? '')) throw err;
      statements.delete(sql);
      return (await execute(await prepare(sql), params)) as T[];
    }
  };
  return {
    outside: <T>(sql: string, params: readonly unknown[]) =>
      pg._runExclusiveTransaction(() => pg._runExclusiveQuery(() => run<T>(sql, params, true))),
    inside: <T>(sql: string, params: readonly unknown[]) => pg._runExclusiveQuery(() => run<T>(sql, params, false)),
  };
}
