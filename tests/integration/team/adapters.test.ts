// The contract of src/db's Db, held by both adapters: PGlite and node-postgres on a PostgreSQL server.
// Runs under a TZ east of UTC, where a date read as a local-midnight Date would shift a day.
process.env.TZ = 'Pacific/Kiritimati';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { withAmbientTransactions } from '../../../src/db/ambient.ts';
import type { Db } from '../../../src/db/database.ts';
import { openPostgres } from '../../../src/db/postgres.ts';
import { openSandboxDatabase } from '../../../src/server/database.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/postgres.ts';

const settle = () => new Promise((r) => setTimeout(r, 100));

async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const drivers: Record<string, () => Promise<{ db: Db; done: () => Promise<void> }>> = {
  PGlite: async () => {
    const db = await openSandboxDatabase({ memory: true });
    return { db, done: () => db.close() };
  },
  PostgreSQL: async () => {
    const database: TestDatabase = await createTestDatabase();
    const db = openPostgres({ connectionString: database.url, log: () => undefined });
    return {
      db,
      done: async () => {
        await db.close();
        await database.drop();
      },
    };
  },
};

for (const [name, open] of Object.entries(drivers)) {
  describe(`Db contract on ${name}`, () => {
    let db: Db;
    let done: () => Promise<void>;
    before(async () => ({ db, done } = await open()));
    after(() => done());

    test('int8 and int8[] come back as numbers, date as YYYY-MM-DD, timestamptz and timestamp as Dates in UTC, numeric as text', async () => {
      const [row] = await db.query(
        `select 9007199254740991::int8 as big, array[1, 2]::int8[] as bigs, count(*) as n, '2024-03-01'::date as day,
                '2024-03-01T10:00:00Z'::timestamptz as at, '2024-03-01 10:00:00'::timestamp as naive, 12.50::numeric as amount`,
      );
      assert.deepEqual(row, {
        big: 9007199254740991,
        bigs: [1, 2],
        n: 1,
        day: '2024-03-01',
        at: new Date('2024-03-01T10:00:00Z'),
        naive: new Date('2024-03-01T10:00:00Z'),
        amount: '12.50',
      });
    });

    test('a prepared read returns what a plain query returns, and is prepared again when its table changes shape', async () => {
      await db.exec(
        'create table if not exists prepared_t (id text primary key, n int8, at timestamptz, tags text[]); truncate prepared_t',
      );
      await db.query('insert into prepared_t values ($1, $2, $3, $4)', [
        'a',
        42,
        new Date('2024-03-01T10:00:00Z'),
        ['x', 'y'],
      ]);
      const sql = 'select * from prepared_t where id = $1 and tags && $2';
      for (let i = 0; i < 3; i++)
        assert.deepEqual(await db.query(sql, ['a', ['y']], { prepare: true }), await db.query(sql, ['a', ['y']]));
      await db.exec("alter table prepared_t add column extra text default 'e'");
      for (let i = 0; i < 2; i++)
        assert.equal((await db.query<{ extra: string }>(sql, ['a', ['x']], { prepare: true }))[0].extra, 'e');
      await assert.rejects(
        db.query('select * from prepared_t where n = $1', ['nan'], { prepare: true }),
        (err: { code?: string }) => err.code === '22P02',
      );
    });

    test('exec runs several statements; a transaction runs on one connection', async () => {
      await db.exec('create table if not exists contract_t (id int primary key, v text); truncate contract_t');
      const pids = await db.transaction(async (tx) => {
        await tx.exec(`set local application_name = 'contract'`);
        const [a] = await tx.query<{ pid: number; app: string }>(
          `select pg_backend_pid() as pid, current_setting('application_name') as app`,
        );
        await tx.query('insert into contract_t values (1, $1)', ['one']);
        const [b] = await tx.query<{ pid: number }>('select pg_backend_pid() as pid');
        return { a, b };
      });
      assert.equal(pids.a.pid, pids.b.pid);
      assert.equal(pids.a.app, 'contract');
      assert.deepEqual(await db.query('select v from contract_t'), [{ v: 'one' }]);
    });

    test('afterCommit and tx.notify happen after COMMIT, and never after a rollback', async () => {
      const heard: string[] = [];
      const calls: string[] = [];
      const stop = await db.listen('contract_channel', (payload) => heard.push(payload));
      await db.transaction(async (tx) => {
        tx.afterCommit(() => calls.push('committed'));
        await tx.notify('contract_channel', 'from-tx');
        await settle();
        assert.deepEqual(heard, [], 'nothing is delivered before COMMIT');
        assert.deepEqual(calls, []);
      });
      assert.deepEqual(calls, ['committed']);
      await assert.rejects(
        db.transaction(async (tx) => {
          tx.afterCommit(() => calls.push('rolled back'));
          await tx.notify('contract_channel', 'lost');
          await tx.query('insert into contract_t values (2, $1)', ['two']);
          throw new Error('boom');
        }),
        /boom/,
      );
      await db.notify('contract_channel', 'direct');
      await until(() => heard.length >= 2, 'two notifications');
      await settle();
      assert.deepEqual(heard, ['from-tx', 'direct']);
      assert.deepEqual(calls, ['committed']);
      assert.deepEqual(
        await db.query('select id from contract_t order by id'),
        [{ id: 1 }],
        'the rolled-back insert is gone',
      );
      await stop();
      await db.notify('contract_channel', 'after unlisten');
      await settle();
      assert.equal(heard.length, 2);
    });

    test('a transaction whose failed statement was caught is rolled back, reported as an error, and runs no afterCommit', async () => {
      await db.exec('create table caught_t (id int primary key)');
      let committed = false;
      await assert.rejects(
        db.transaction(async (tx) => {
          tx.afterCommit(() => (committed = true));
          await tx.query('insert into caught_t values (1)');
          await tx.query('insert into caught_t values (1)').catch(() => undefined); // duplicate key, swallowed
        }),
        /rolled back/i,
      );
      assert.equal(committed, false);
      assert.deepEqual(await db.query('select * from caught_t'), []);
    });

    test('an ambient transaction: its work joins it, and notifications wait for COMMIT and die with a rolled-back savepoint', async () => {
      const ambient = withAmbientTransactions(db);
      await db.exec('create table ambient_t (v text)');
      const heard: string[] = [];
      const stop = await ambient.listen('ambient_channel', (p) => heard.push(p));
      await ambient.ambient(
        async () => {
          await ambient.query(`insert into ambient_t values ('work')`);
          await ambient.notify('ambient_channel', 'from-work');
          await assert.rejects(
            ambient.transaction(async (tx) => {
              await tx.notify('ambient_channel', 'from-rolled-back-savepoint');
              throw new Error('savepoint fails');
            }),
            /savepoint fails/,
          );
          await ambient.transaction((tx) => tx.notify('ambient_channel', 'from-savepoint'));
          await settle();
          assert.deepEqual(heard, [], 'nothing before COMMIT');
        },
        async (tx) => {
          await tx.query(`insert into ambient_t values ('finish')`);
        },
      );
      await until(() => heard.length >= 2, 'the notifications after COMMIT');
      await settle();
      assert.deepEqual(heard.sort(), ['from-savepoint', 'from-work']);
      assert.deepEqual(await db.query('select v from ambient_t order by v'), [{ v: 'finish' }, { v: 'work' }]);
      await stop();
    });

    test('roundTrips counts every statement sent: queries, BEGIN and COMMIT or ROLLBACK, an exec of several as one', async () => {
      const sent = () => db.roundTrips() - start;
      const start = db.roundTrips();
      await db.query('select 1');
      await db.query('select $1::int as n', [1], { prepare: true });
      assert.equal(sent(), 2);
      await db.transaction(async (tx) => {
        await tx.query('select 1');
        await tx.query('select $1::int as n', [2], { prepare: true });
        await tx.exec('select 1; select 2');
      });
      assert.equal(sent(), 2 + 5, 'BEGIN, three statements, COMMIT');
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.query('select 1');
          throw new Error('changed its mind');
        }),
      );
      assert.equal(sent(), 7 + 3, 'BEGIN, one statement, ROLLBACK');
      await db.exec('select 1; select 2');
      assert.equal(sent(), 10 + 1);
      assert.equal(
        withAmbientTransactions(db).roundTrips(),
        db.roundTrips(),
        'the ambient wrapper counts what it sends',
      );
    });

    test('withAdvisoryLock admits one holder at a time', async () => {
      const trace: string[] = [];
      const hold = (id: string) =>
        db.withAdvisoryLock('contract-lock', async () => {
          trace.push(`${id} in`);
          await new Promise((r) => setTimeout(r, 50));
          trace.push(`${id} out`);
        });
      await Promise.all([hold('a'), hold('b'), hold('c')]);
      for (let i = 0; i < trace.length; i += 2)
        assert.equal(trace[i].split(' ')[0], trace[i + 1].split(' ')[0], trace.join(', '));
      await assert.rejects(
        db.withAdvisoryLock('contract-lock', async () => {
          throw new Error('inside');
        }),
        /inside/,
      );
      assert.equal(await db.withAdvisoryLock('contract-lock', async () => 'free again'), 'free again');
    });
  });
}
