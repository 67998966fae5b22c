import type { PGlite, Transaction } from '@electric-sql/pglite';

/** The small query interface the rest of the code sees (plain PostgreSQL underneath). */
export interface Queryable {
  query<T = Record<string, any>>(sql: string, params?: unknown[]): Promise<T[]>;
}

/** A transaction: queries run inside it; afterCommit callbacks run once it has committed. */
export interface Tx extends Queryable {
  exec(sql: string): Promise<void>;
  afterCommit(fn: () => void): void;
}

export interface Db extends Queryable {
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

/** Wraps a PGlite instance; the only place that knows the driver's result shapes. */
export function wrapPglite(pg: PGlite, onClose: () => Promise<void> = async () => {}): Db {
  const rowsOf = (source: PGlite | Transaction) => async <T>(sql: string, params?: unknown[]) =>
    (await source.query<T>(sql, params as any[])).rows;
  return {
    query: rowsOf(pg),
    async exec(sql) {
      await pg.exec(sql);
    },
    async transaction(fn) {
      const after: (() => void)[] = [];
      const result = await pg.transaction((tx) =>
        fn({
          query: rowsOf(tx),
          exec: async (sql) => void (await tx.exec(sql)),
          afterCommit: (cb) => void after.push(cb),
        }),
      );
      for (const cb of after) cb();
      return result;
    },
    async close() {
      await pg.close();
      await onClose();
    },
  };
}
