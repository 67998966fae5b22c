import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
    for (let i = 0; i < 2; i++)
      assert.deepEqual(
        await db.query(sql, params, { prepare: true }),
        await db.query(sql, params),
        `${sql} (run ${i + 1})`,
      );
  }
});

test('a failing prepared read throws the database error and leaves the connection usable', async () => {
  await assert.rejects(
    db.query('select * from t where n = $1', ['not a number'], { prepare: true }),
    (err: { code?: string }) => err.code === '22P02',
  );
  assert.equal((await db.query('select id from t where n = $1', [2], { prepare: true }))[0].id, 'x2');
  assert.equal((await db.query('select 1 as one'))[0].one, 1);
});

test('a statement whose table changed shape is prepared again; a transaction is never interleaved', async () => {
  const sql = 'select * from t where id = $1';
  assert.deepEqual(Object.keys((await db.query(sql, ['x2'], { prepare: true }))[0]), [
    'tenant_id',
    'id',
    'n',
    'at',
    'tags',
    'ok',
    'doc',
  ]);
  await db.exec("alter table t add column extra text default 'e'");
  assert.equal((await db.query<{ extra: string }>(sql, ['x2'], { prepare: true }))[0].extra, 'e');

  let read: unknown;
  await db.transaction(async (tx) => {
    await tx.query("update t set ok = true where id = 'x2'");
    const pending = db
      .query<{ ok: boolean }>('select ok from t where id = $1', ['x2'], { prepare: true })
      .then((rows) => (read = rows[0].ok));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(read, undefined, 'it waits for the transaction');
    await tx.query("update t set ok = false where id = 'x2'");
    void pending;
  });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(read, false, 'and then sees its committed result');
});

test('a prepared write inside a transaction is part of it: kept on commit, undone on rollback', async () => {
  const write = 'update t set n = $2 where id = $1 returning n';
  await db.transaction(async (tx) => {
    assert.deepEqual(await tx.query(write, ['x2', 7], { prepare: true }), [{ n: 7 }]);
    assert.equal(
      (await tx.query<{ n: number }>('select n from t where id = $1', ['x2']))[0].n,
      7,
      'seen by the transaction',
    );
    const named = await tx.query('select 1 from pg_prepared_statements where statement = $1', [write]);
    assert.equal(named.length, 1, 'run as a named prepared statement');
  });
  assert.equal((await db.query<{ n: number }>('select n from t where id = $1', ['x2']))[0].n, 7);
  await assert.rejects(
    db.transaction(async (tx) => {
      await tx.query(write, ['x2', 8], { prepare: true });
      throw new Error('changed my mind');
    }),
    /changed my mind/,
  );
  assert.equal((await db.query<{ n: number }>('select n from t where id = $1', ['x2']))[0].n, 7, 'rolled back');
  // A failed prepared statement aborts its transaction like any other statement.
  await assert.rejects(
    db.transaction((tx) => tx.query(write, ['x2', 'nan'], { prepare: true })),
    (err: { code?: string }) => err.code === '22P02',
  );
  assert.deepEqual(
    await db.query(write, ['x2', 9], { prepare: true }),
    [{ n: 9 }],
    'and the statement still runs after it',
  );
});

test('a prepared write outside a transaction is on disk when it returns: killed right after, the data dir has it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbay-prepared-'));
  try {
    // A process that writes with prepared statements, then dies by SIGKILL without closing anything.
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `
      import { PGlite } from '@electric-sql/pglite';
      import { pgliteParsers, wrapPglite } from ${JSON.stringify(new URL('../../src/db/pglite.ts', import.meta.url).href)};
      const db = wrapPglite(await PGlite.create(${JSON.stringify(dir)}, { parsers: pgliteParsers }));
      await db.exec('create table w (id text primary key, n int)');
      for (let i = 0; i < 3; i++) await db.query('insert into w values ($1, $2)', ['r' + i, i], { prepare: true });
      process.kill(process.pid, 'SIGKILL');`,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(child.signal, 'SIGKILL', child.stderr);
    const again = wrapPglite(await PGlite.create(dir, { parsers: pgliteParsers }));
    assert.deepEqual(await again.query('select id, n from w order by id'), [
      { id: 'r0', n: 0 },
      { id: 'r1', n: 1 },
      { id: 'r2', n: 2 },
    ]);
    await again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
