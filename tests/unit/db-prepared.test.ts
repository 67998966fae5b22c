import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import type { Db } from '../../src/db/database.ts';
import { pgliteParsers, wrapPglite } from '../../src/db/pglite.ts';

let db: Db;
before(async () => {
  db = wrapPglite(await PGlite.create({ parsers: pgliteParsers }));
  await db.exec(`create table t (tenant_id text, id text, n int8, at timestamptz, tags text[], ok boolean, doc jsonb, primary key (tenant_id, id));
    insert into t values ('a', 'x1', 9007199254740991, '2026-01-02T03:04:05.678Z', '{p,q}', true, '{"k":[1,"ü"]}'), ('a', 'x2', 2, null, '{}', false, null);`);
});
after(() => db.close());

test('a prepared read returns exactly what a plain query returns, whatever the types', async () => {
  const cases: [string, unknown[]][] = [
    ['select * from t where tenant_id = $1 order by id', ['a']],
    ['select * from t where tenant_id = $1 and id = $2', ['a', 'x1']],
    ['select id from t where tags && $1 and at < $2 and ok = $3', [['q'], new Date('2030-01-01'), true]],
    ['select count(*) as c, max(n) as m from t where id = any($1)', [['x1', 'x2']]],
    ['select * from t where id = $1', ['none']],
    ['select $1::text is null as missing', [null]],
  ];
  for (const [sql, params] of cases) {
    for (let i = 0; i < 2; i++) assert.deepEqual(await db.query(sql, params, { prepare: true }), await db.query(sql, params), `${sql} (run ${i + 1})`);
  }
});

test('a failing prepared read throws the database error and leaves the connection usable', async () => {
  await assert.rejects(db.query('select * from t where n = $1', ['not a number'], { prepare: true }), (err: { code?: string }) => err.code === '22P02');
  assert.equal((await db.query('select id from t where n = $1', [2], { prepare: true }))[0].id, 'x2');
  assert.equal((await db.query('select 1 as one'))[0].one, 1);
});

test('a statement whose table changed shape is prepared again; a transaction is never interleaved', async () => {
  const sql = 'select * from t where id = $1';
  assert.deepEqual(Object.keys((await db.query(sql, ['x2'], { prepare: true }))[0]), ['tenant_id', 'id', 'n', 'at', 'tags', 'ok', 'doc']);
  await db.exec('alter table t add column extra text default \'e\'');
  assert.equal((await db.query<{ extra: string }>(sql, ['x2'], { prepare: true }))[0].extra, 'e');

  let read: unknown;
  await db.transaction(async (tx) => {
    await tx.query("update t set ok = true where id = 'x2'");
    const pending = db.query<{ ok: boolean }>('select ok from t where id = $1', ['x2'], { prepare: true }).then((rows) => (read = rows[0].ok));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(read, undefined, 'it waits for the transaction');
    await tx.query("update t set ok = false where id = 'x2'");
    void pending;
  });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(read, false, 'and then sees its committed result');
});
