// PGlite has no autovacuum: the adapter analyzes and vacuums what autovacuum would (src/db/pglite-maintenance.ts),
// so the planner has statistics — here, the newest pending row is read from the seq index, not sorted out of all.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import type { Db } from '../../src/db/database.ts';
import { pgliteParsers, wrapPglite } from '../../src/db/pglite.ts';

let db: Db;
before(async () => {
  db = wrapPglite(await PGlite.create({ parsers: pgliteParsers }));
  await db.exec(`create table d (tenant_id text, id text, seq bigserial, status text, next_attempt_at timestamptz, primary key (tenant_id, id));
    create index d_recent on d (tenant_id, seq desc);
    create index d_due on d (tenant_id, next_attempt_at) where status = 'pending';`);
});
after(() => db.close());

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const stats = async () =>
  (
    await db.query<{ n_dead_tup: number; last_analyze: Date | null }>(
      `select n_dead_tup, last_analyze from pg_stat_user_tables where relname = 'd'`,
    )
  )[0];

test('tables that changed are analyzed, then the planner reads two rows instead of sorting thousands', async () => {
  await db.query(
    `insert into d (tenant_id, id, status, next_attempt_at) select 't', 'd' || g, 'pending', now() from generate_series(1, 5000) g`,
  );
  const analyzed = await until(stats, (s) => s?.last_analyze !== null);
  assert.ok(analyzed?.last_analyze, 'analyzed by the adapter');
  const plan = (
    await db.query<{ 'QUERY PLAN': string }>(
      `explain select id from d where tenant_id = 't' and status = 'pending' order by seq desc limit 2`,
    )
  )
    .map((r) => r['QUERY PLAN'])
    .join('\n');
  assert.match(plan, /Index Scan using d_recent/);
  assert.doesNotMatch(plan, /Sort/);
});

test('dead row versions are vacuumed away', async () => {
  await db.query(`update d set status = 'succeeded', next_attempt_at = null`);
  const before = await until(stats, (s) => s.n_dead_tup > 0, 5_000);
  assert.ok(before.n_dead_tup > 0, 'the update left dead versions');
  const vacuumed = await until(stats, (s) => s.n_dead_tup === 0);
  assert.equal(vacuumed.n_dead_tup, 0);
});
