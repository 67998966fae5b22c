// Engines that start at the same moment on one empty PostgreSQL database take turns at migrating and
// seeding (an advisory lock), and an engine older than the database's schema refuses to start.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { loadMigrations } from '../../../src/db/migrate.ts';
import { migrationsDir } from '../../../src/db/paths.ts';
import { packageVersion } from '../../../src/shared/node/package-root.ts';
import { openPostgres } from '../../../src/db/postgres.ts';
import { prepareDatabase } from '../../../src/server/database.ts';
import { call, createSandbox } from '../../helpers/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/postgres.ts';
import { runCli, waitForReady, type ServeProcess } from '../../helpers/process.ts';

const databases: TestDatabase[] = [];
const processes: ServeProcess[] = [];
after(async () => {
  for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => p.exited));
  for (const d of databases) await d.drop();
});

async function freshDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  databases.push(database);
  return database;
}

test('three engine processes started at the same moment on an empty database all come up, and share one schema and admin key', async () => {
  const { url } = await freshDatabase();
  const started = [1, 2, 3].map(() => runCli(['serve', '--quiet', '--memory', '--port', '0', '--database-url', url]));
  processes.push(...started);
  const engines = await Promise.all(
    started.map(async (proc) => Object.assign(proc, await waitForReady(proc, 120_000))),
  );
  // The per-install admin key was made once: the engine that made it shows it, the others accept it.
  const keys = engines.map((e) => e.adminKey).filter((key) => key !== undefined);
  assert.equal(keys.length, 1, 'one engine made the key');
  for (const engine of engines) {
    assert.equal((await call(engine.url, '/api/v1/sandboxes', { token: keys[0] })).status, 200);
  }
  // A sandbox made on one engine is visible through another: they share the one database.
  const sandbox = await createSandbox(engines[0].url);
  for (const engine of engines) {
    const res = await call(engine.url, '/api/v1/sandbox', { token: sandbox.token });
    assert.equal(res.status, 200);
    assert.equal(res.body.id, sandbox.id);
  }
  const db = openPostgres({ connectionString: url });
  try {
    const rows = await db.query<{ version: number; n: number }>(
      'select version, count(*) as n from schema_migrations group by version',
    );
    assert.equal(rows.length, loadMigrations(migrationsDir()).length);
    assert.ok(rows.every((r) => r.n === 1));
    assert.deepEqual(await db.query(`select count(*) as n from tenants where is_template`), [{ n: 1 }]);
  } finally {
    await db.close();
  }
  for (const engine of engines) engine.child.kill('SIGTERM');
  for (const engine of engines) assert.equal((await engine.exited).code, 0);
});

test('an engine that does not know the newest migration refuses the database, naming both schema versions', async () => {
  const { url } = await freshDatabase();
  const all = loadMigrations(migrationsDir());
  const newest = all[all.length - 1];
  const older = all.slice(0, -1);
  const db = openPostgres({ connectionString: url });
  try {
    await prepareDatabase(db, all);
    await assert.rejects(prepareDatabase(db, older), (err: Error) => {
      assert.equal(err.name, 'SchemaTooNewError');
      assert.match(
        err.message,
        new RegExp(
          `schema is at version ${newest.version} \\(written by Sandbay ${packageVersion().replace(/\./g, '\\.')}\\)`,
        ),
      );
      assert.match(err.message, new RegExp(`schema version ${older[older.length - 1].version} this Sandbay`));
      return true;
    });
    // What the user sees: a database written by a newer Sandbay (a migration this one has never heard of).
    await db.query(
      `insert into schema_migrations (version, name, app_version) values (999, 'from-the-future', '9.9.9')`,
    );
  } finally {
    await db.close();
  }
  const refused = runCli(['serve', '--memory', '--port', '0', '--database-url', url]);
  processes.push(refused);
  const { code } = await refused.exited;
  assert.equal(code, 1);
  assert.match(
    refused.stderr,
    /sandbay: this database's schema is at version 999 \(written by Sandbay 9\.9\.9\), newer than the schema version \d+ this Sandbay \S+ knows; upgrade Sandbay/,
  );
  assert.doesNotMatch(refused.stderr, /\n\s+at /, 'no stack trace');
});
