// The ambient transaction on a real database: what joins it, what rolls back, when afterCommit runs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { withAmbientTransactions, type AmbientDb } from '../../src/db/ambient.ts';
import { openSandboxDatabase } from '../../src/server/database.ts';

let db: AmbientDb;
before(async () => {
  db = withAmbientTransactions(await openSandboxDatabase({ memory: true }));
  await db.exec('create table probe (v text not null)');
});
after(() => db.close());

const values = async () => (await db.query<{ v: string }>('select v from probe order by v')).map((r) => r.v);
const insert = (q: { query: AmbientDb['query'] }, v: string) => q.query('insert into probe (v) values ($1)', [v]);

test('plain queries and transactions inside the work join it; a failing finish rolls all of it back', async () => {
  await db.exec('delete from probe');
  await assert.rejects(
    db.ambient(
      async () => {
        await insert(db, 'plain');
        await db.transaction((tx) => insert(tx, 'nested'));
        assert.deepEqual(await values(), ['nested', 'plain'], 'the work sees its own writes');
      },
      async () => {
        throw new Error('the store failed');
      },
    ),
    /the store failed/,
  );
  assert.deepEqual(await values(), []);

  const result = await db.ambient(
    async () => {
      await Promise.all([insert(db, 'a'), db.transaction((tx) => insert(tx, 'b')), insert(db, 'c')]);
      return 'done';
    },
    async (tx, outcome) => {
      await insert(tx, 'finish');
      return outcome;
    },
  );
  assert.equal(result, 'done');
  assert.deepEqual(await values(), ['a', 'b', 'c', 'finish']);
});

test('a nested transaction that throws rolls back alone, even after a failed statement', async () => {
  await db.exec('delete from probe');
  await db.ambient(
    async () => {
      await insert(db, 'kept');
      await assert.rejects(
        db.transaction(async (tx) => {
          await insert(tx, 'undone');
          await tx.query('select 1/0');
        }),
        /division by zero/,
      );
      await assert.rejects(
        db.transaction(async (tx) => {
          await insert(tx, 'undone too');
          throw new Error('a rule refused it');
        }),
        /refused/,
      );
      await insert(db, 'after');
    },
    async () => {},
  );
  assert.deepEqual(await values(), ['after', 'kept']);
});

test('afterCommit callbacks of nested transactions run after the outer COMMIT, and not at all on rollback', async () => {
  const calls: string[] = [];
  await db.ambient(
    async () => {
      await db.transaction(async (tx) => tx.afterCommit(() => calls.push('committed')));
      await db
        .transaction(async (tx) => {
          tx.afterCommit(() => calls.push('rolled back'));
          throw new Error('no');
        })
        .catch(() => {});
      assert.deepEqual(calls, [], 'not while the outer transaction is open');
    },
    async (tx) => {
      tx.afterCommit(() => calls.push('finish'));
      assert.deepEqual(calls, []);
    },
  );
  assert.deepEqual(calls, ['committed', 'finish']);

  await db
    .ambient(
      async () => {
        await db.transaction(async (tx) => tx.afterCommit(() => calls.push('never')));
      },
      async () => {
        throw new Error('rollback');
      },
    )
    .catch(() => {});
  assert.deepEqual(calls, ['committed', 'finish']);
});

test('work left behind by the handler (a timer) uses the database as usual once the transaction ended', async () => {
  await db.exec('delete from probe');
  let late: Promise<unknown> | undefined;
  await db.ambient(
    async () => {
      late = new Promise((resolve, reject) => setTimeout(() => insert(db, 'late').then(resolve, reject), 30));
    },
    async () => {},
  );
  await late;
  assert.deepEqual(await values(), ['late']);
  // Outside any ambient transaction, Db calls behave as before.
  await db.transaction((tx) => insert(tx, 'plain'));
  assert.deepEqual(await values(), ['late', 'plain']);
});

test('background work set off inside the work with detached() never joins its transaction', async () => {
  await db.exec('delete from probe');
  let joinedWrite!: Promise<unknown>;
  let detachedWrite!: Promise<unknown>;
  await assert.rejects(
    db.ambient(
      async () => {
        // Timers a request leaves behind (a recorder's flush, a scheduler's wake-up): one plain, one detached.
        await new Promise<void>((fired) =>
          setTimeout(() => {
            joinedWrite = insert(db, 'joined');
            fired();
          }, 5),
        );
        await new Promise<void>((fired) =>
          db.detached(() =>
            setTimeout(() => {
              detachedWrite = insert(db, 'detached');
              fired();
            }, 5),
          ),
        );
        await joinedWrite;
        throw new Error('the request failed');
      },
      async () => undefined,
    ),
    /the request failed/,
  );
  await detachedWrite;
  assert.deepEqual(await values(), ['detached'], 'the plain timer joined the transaction and was rolled back with it');
});
