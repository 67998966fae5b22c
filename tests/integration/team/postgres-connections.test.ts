// What only the node-postgres adapter faces: connections that die under it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import type { Db } from '../../../src/db/database.ts';
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
  admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = $1`, [applicationName]);

test('idle pool connections killed by the server are logged (without the URL) and replaced; the process carries on', async () => {
  // Open several pool connections and leave them idle.
  await Promise.all(Array.from({ length: 4 }, () => db.query('select pg_sleep(0.05)')));
  await terminate('sandbay');
  await until(() => logged.some((m) => m.startsWith('idle database connection lost')), 'the pool to report the lost connections');
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
