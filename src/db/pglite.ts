import { types, type PGlite, type Transaction } from '@electric-sql/pglite';
import { runAfterCommit, type Db, type QueryOptions } from './database.ts';
import { preparedStatements } from './prepared.ts';
import { LocalLocks, LocalNotifications } from './local-notifications.ts';
import { maintainPglite } from './pglite-maintenance.ts';

/**
 * Result parsers, the same in effect as the node-postgres adapter's (pg-types.ts): our amounts are minor
 * units far below 2^53, so int8 comes back as a number; a date stays the 'YYYY-MM-DD' it is (a Date would
 * be midnight in the process's TZ, a day off east of UTC); a timestamp without time zone is read as UTC.
 */
export const pgliteParsers = {
  [types.INT8]: (value: string) => Number(value),
  [types.DATE]: (value: string) => value,
  [types.TIMESTAMP]: (value: string) => new Date(`${value.replace(' ', 'T')}Z`),
};

/** Wraps a PGlite instance; the only place that knows that driver's result shapes. */
export function wrapPglite(
  pg: PGlite,
  options: { onClose?: () => Promise<void>; onError?: (err: unknown) => void } = {},
): Db {
  const onError = options.onError ?? ((err) => console.error('sandbay: after-commit callback failed:', err));
  const notifications = new LocalNotifications(onError);
  const locks = new LocalLocks();
  // Statements run, for roundTrips(): each query, exec, BEGIN and COMMIT (or ROLLBACK) is one call into PGlite.
  let trips = 0;
  const rowsOf =
    (source: PGlite | Transaction) =>
    async <T>(sql: string, params?: unknown[]) =>
      (trips++, await source.query<T>(sql, params as any[])).rows;
  const plain = rowsOf(pg);
  const stopMaintenance = maintainPglite(
    pg,
    options.onError ?? ((err) => console.error('sandbay: PGlite vacuum/analyze failed:', err)),
  );
  const prepared = preparedStatements(pg);
  // Notifications the database raises itself (the cache triggers' pg_notify) arrive through PGlite's own
  // LISTEN, at the COMMIT that sent them and before that commit's caller resumes; the code's own
  // notify() stays in process. Both reach the same handlers.
  const listening = new Map<string, Promise<unknown>>();
  const listenNatively = (channel: string) =>
    listening.get(channel) ??
    listening
      .set(
        channel,
        pg.listen(channel, (payload) => notifications.deliver(channel, payload)),
      )
      .get(channel)!;
  return {
    driver: 'pglite',
    query: <T>(sql: string, params?: unknown[], opts?: QueryOptions) =>
      opts?.prepare ? (trips++, prepared.outside<T>(sql, params ?? [])) : plain<T>(sql, params),
    async exec(sql) {
      trips++;
      await pg.exec(sql);
    },
    async transaction(fn) {
      const after: (() => void)[] = [];
      trips += 2; // PGlite's own BEGIN, and its COMMIT or ROLLBACK
      const result = await pg.transaction((tx) => {
        const txRows = rowsOf(tx);
        return fn({
          query: <T>(sql: string, params?: unknown[], opts?: QueryOptions) =>
            opts?.prepare ? (trips++, prepared.inside<T>(sql, params ?? [])) : txRows<T>(sql, params),
          exec: async (sql) => void (trips++, await tx.exec(sql)),
          afterCommit: (cb) => void after.push(cb),
          notify: async (channel, payload) => void after.push(() => notifications.notify(channel, payload)),
        });
      });
      runAfterCommit(after, onError);
      return result;
    },
    async listen(channel, handler) {
      await listenNatively(channel);
      return notifications.listen(channel, handler);
    },
    notify: async (channel, payload) => notifications.notify(channel, payload),
    // In-process delivery cannot miss a notification.
    onNotificationsMissed: () => () => undefined,
    onNotificationsLost: () => () => undefined,
    // One process owns a PGlite dir, so an in-process lock excludes every other holder.
    withAdvisoryLock: (key, fn) => locks.withLock(key, fn),
    roundTrips: () => trips,
    async close() {
      await stopMaintenance();
      await pg.close();
      await options.onClose?.();
    },
  };
}
