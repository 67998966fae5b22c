// What only the node-postgres adapter faces: connections that die under it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import type { Db } from '../../../src/db/database.ts';
import { DatabaseUnavailableError } from '../../../src/db/errors.ts';
import { openPostgres } from '../../../src/db/postgres.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/postgres.ts';

let database: TestDatabase;
let db: Db;
let admin: pg.Pool;
const logged: string[] = [];

before(async () => {
  database = await createTestDatabase();
  db = openPostgres({ connectionString: database.url, log: (m) => logged.push(m) });
  admin = new pg.Pool({ connectionString: database.url, max: 1, application_name: 'test-admin' });
  // The shared test server also serves other files, which may end sessions: an idle admin connection lost is replaced.
  admin.on('error', () => undefined);
});
after(async () => {
  await db.close();
  await admin.end();
  await database.drop();
});

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Ends the server side of every connection named so (what a server restart or a network cut does). */
const terminate = (applicationName: string) =>
  admin.query(
    `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = $1`,
    [applicationName],
  );

test('idle pool connections killed by the server are logged (without the URL) and replaced; the process carries on', async () => {
  // Open several pool connections and leave them idle.
  await Promise.all(Array.from({ length: 4 }, () => db.query('select pg_sleep(0.05)')));
  await terminate('sandbay');
  await until(
    () => logged.some((m) => m.startsWith('database connection lost')),
    'the pool to report the lost connections',
  );
  assert.deepEqual(await db.query('select 1 as one'), [{ one: 1 }]);
  const password = new URL(database.url).password;
  for (const line of logged) {
    assert.ok(!line.includes(database.url) && (!password || !line.includes(password)), `no secret in: ${line}`);
  }
});

test('LISTEN comes back after its connection is killed: notifications resume and missed-notification handlers run', async () => {
  const heard: string[] = [];
  let gaps = 0;
  db.onNotificationsMissed(() => gaps++);
  await db.listen('resume_channel', (p) => heard.push(p));
  await db.notify('resume_channel', 'before');
  await until(() => heard.includes('before'), 'the first notification');
  await terminate('sandbay-listen');
  await until(() => gaps === 1, 'the listener to reconnect');
  await db.notify('resume_channel', 'after');
  await until(() => heard.includes('after'), 'a notification after the reconnect');
  assert.deepEqual(heard, ['before', 'after']);
});

test('a checked-out client whose connection is killed (a session lock held) is logged, not an unhandled error event', async () => {
  const seen: string[] = [];
  const own = openPostgres({ connectionString: database.url, log: (m) => seen.push(m) });
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const locked = own.withAdvisoryLock('sandbay:test:held', () => held);
  try {
    await until(
      async () =>
        (
          await admin.query(`select 1 from pg_locks l join pg_database d on d.oid = l.database
      where l.locktype = 'advisory' and l.granted and d.datname = current_database()`)
        ).rowCount === 1,
      'the lock to be held',
    );
    await terminate('sandbay');
    await until(
      () => seen.some((m) => m.startsWith('database connection lost')),
      'the lost lock connection to be reported',
    );
  } finally {
    release();
    await locked; // its unlock fails on the dead connection, which is destroyed rather than pooled
  }
  assert.deepEqual(await own.query('select 2 as two'), [{ two: 2 }]);
  await own.close();
});

test('a session lock held elsewhere is given up on after sessionLockWaitMs, naming the session that holds it', async () => {
  const impatient = openPostgres({ connectionString: database.url, timeouts: { sessionLockWaitMs: 300 } });
  const holder = new pg.Client({ connectionString: database.url, application_name: 'stuck-engine' });
  await holder.connect();
  try {
    await holder.query(`select pg_advisory_lock(hashtextextended('sandbay:test:stuck', 0))`);
    const [{ pid }] = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows;
    const started = Date.now();
    await assert.rejects(
      impatient.withAdvisoryLock('sandbay:test:stuck', async () => 'ran'),
      (err: Error) => err.message.includes(`backend pid ${pid}`) && err.message.includes('stuck-engine'),
    );
    assert.ok(Date.now() - started < 5_000);
    const [{ n }] = (
      await admin.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = 'sandbay' and state = 'active'`,
      )
    ).rows;
    assert.equal(n, 0, 'no connection of ours was left waiting on the lock');
  } finally {
    await holder.end();
    await impatient.close();
  }
});

test('a server that refuses connections is a DatabaseUnavailableError at once, not a hang or a bare socket error', async () => {
  const url = new URL(database.url);
  url.port = '1'; // nothing listens on port 1 of the loopback
  const refused = openPostgres({ connectionString: url.toString(), log: () => undefined });
  try {
    const started = Date.now();
    await assert.rejects(
      refused.query('select 1'),
      (err) => err instanceof DatabaseUnavailableError && err.code === 'ECONNREFUSED',
    );
    await assert.rejects(
      refused.transaction(async (tx) => tx.query('select 1')),
      DatabaseUnavailableError,
    );
    assert.ok(Date.now() - started < 2_000);
  } finally {
    await refused.close();
  }
});

test('the engine sessions carry the statement, lock and idle-in-transaction timeouts; a statement past its timeout is a DatabaseUnavailableError', async () => {
  const short = openPostgres({
    connectionString: database.url,
    log: () => undefined,
    timeouts: { statementMs: 200, lockMs: 150, idleInTransactionMs: 1_000 },
  });
  try {
    const [settings] = await short.query<Record<string, string>>(
      `select current_setting('statement_timeout') as statement, current_setting('lock_timeout') as lock,
              current_setting('idle_in_transaction_session_timeout') as idle`,
    );
    assert.deepEqual(settings, { statement: '200ms', lock: '150ms', idle: '1s' });
    await assert.rejects(
      short.query('select pg_sleep(1)'),
      (err) => err instanceof DatabaseUnavailableError && err.code === '57014',
    );
    assert.deepEqual(await short.query('select 3 as three'), [{ three: 3 }]);
  } finally {
    await short.close();
  }
});
