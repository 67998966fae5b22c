import type { PGlite } from '@electric-sql/pglite';

/** How often the statistics are looked at (they reach pg_stat_user_tables about once a second). */
const everyMs = 5_000;

// autovacuum's default thresholds (PostgreSQL's autovacuum_*_threshold and *_scale_factor).
const needsVacuum = 'n_dead_tup > 50 + 0.2 * n_live_tup';
const needsAnalyze = 'n_mod_since_analyze > 50 + 0.1 * n_live_tup';

/**
 * PGlite runs no autovacuum. Without it the planner never gets statistics — it then takes, say, a partial
 * index and sorts thousands of rows to show the newest pending delivery instead of reading two — and dead
 * row versions pile up in a long-running app. Every few seconds this vacuums or analyzes the tables that
 * autovacuum would pick, one statement each, between other callers' queries. Returns the stop
 * function, which resolves once a round under way has finished (so the database can close after it).
 */
export function maintainPglite(pg: PGlite, onError: (err: unknown) => void): () => Promise<void> {
  let round: Promise<void> | undefined;
  const timer = setInterval(() => {
    round ??= (async () => {
      const { rows } = await pg.query<{ relname: string; vacuum: boolean }>(
        `select relname, ${needsVacuum} as vacuum from pg_stat_user_tables where ${needsVacuum} or ${needsAnalyze}`,
      );
      for (const { relname, vacuum } of rows)
        await pg.exec(`${vacuum ? 'vacuum (analyze)' : 'analyze'} "${relname.replaceAll('"', '""')}"`);
    })()
      .catch(onError)
      .finally(() => (round = undefined));
  }, everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await round;
  };
}
