// The admin key is not stored in plain text in any database (issue 28): a database several engines share
// (--database-url; --memory's scratch one too) keeps its SHA-256 alone, which every engine on it checks the
// key against; an install from before that held the key in plain text has it hashed and the row deleted.
// On the pg driver two engines share one database; on PGlite (one process's database) the second engine is
// the same data dir opened again.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Db } from '../../../src/db/database.ts';
import { adminKeyFile, adminKeyHash } from '../../../src/server/admin-key.ts';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../../src/server/start.ts';
import { call } from '../../helpers/engine.ts';
import { createTestDatabase, testDriver, type TestDatabase } from '../../helpers/postgres.ts';

const parent = mkdtempSync(join(tmpdir(), 'sandbay-key-hash-'));
const databases: TestDatabase[] = [];
after(async () => {
  for (const database of databases) await database.drop();
  rmSync(parent, { recursive: true, force: true });
});
let dirs = 0;
const newDataDir = () => join(parent, `data-${++dirs}`);
const pg = testDriver() === 'pg';

const warnings: string[] = [];
const start = (options: SandboxOptions) =>
  startSandbox({
    port: 0,
    logRequests: false,
    logger: { info: () => {}, warn: (line) => warnings.push(line), error: (line) => warnings.push(line) },
    ...options,
  });

/** On pg, a fresh database every engine of the test runs on (`--database-url`); on PGlite, none. */
async function sharedDatabase(): Promise<string | undefined> {
  if (!pg) return undefined;
  const database = await createTestDatabase();
  databases.push(database);
  return database.url;
}

/** Every row of every table of the database, as text: what a pg_dump of its data would print. */
async function everyRow(db: Db): Promise<string> {
  const tables = await db.query<{ name: string }>(
    `select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE'`,
  );
  const rows: string[] = [];
  for (const { name } of tables) {
    for (const row of await db.query<{ text: string }>(`select t::text as text from "${name}" t`)) rows.push(row.text);
  }
  return rows.join('\n');
}

async function assertNoPlainKey(engine: RunningSandbox, key: string): Promise<void> {
  const meta = await engine.services.db.query<{ key: string; value: string }>(
    "select key, value from meta where key like 'admin_key%'",
  );
  // The data dir's own database (PGlite's, --postgres') keeps nothing; a shared one keeps the hash.
  assert.deepEqual(meta, pg ? [{ key: 'admin_key_sha256', value: adminKeyHash(key) }] : []);
  const rows = await everyRow(engine.services.db);
  assert.ok(rows.includes('cursor_secret'), 'the read reaches the meta table');
  assert.ok(!rows.includes(key), 'no row holds the key');
}

const listSandboxes = (engine: RunningSandbox, token: string) => call(engine.url, '/api/v1/sandboxes', { token });

test('after start no row holds the admin key, and the key authenticates on a second engine', async () => {
  const databaseUrl = await sharedDatabase();
  const firstDir = newDataDir();
  const first = await start({ dataDir: firstDir, databaseUrl });
  const key = first.adminKey!;
  assert.match(key, /^sbk_\w{32}$/);
  assert.equal(readFileSync(adminKeyFile(firstDir), 'utf8').trim(), key, 'the data dir keeps it for its CLI');
  await assertNoPlainKey(first, key);
  if (!pg) await first.close();
  warnings.length = 0;
  const second = await start({ dataDir: pg ? newDataDir() : firstDir, databaseUrl });
  try {
    assert.equal((await listSandboxes(second, key)).status, 200);
    assert.notEqual((await listSandboxes(second, `${key}x`)).status, 200, 'another key is refused');
    if (pg) {
      assert.equal((await listSandboxes(first, key)).status, 200);
      // It did not make the key and its data dir does not hold it: it accepts the key, and says it cannot show it.
      assert.equal(second.adminKey, undefined);
      assert.ok(!second.readyUrl.includes('key='), second.readyUrl);
      assert.match(warnings.join('\n'), /admin key was made by another engine.*--admin-key/);
      // Given it, it shows it.
      const third = await start({ memory: true, databaseUrl, adminKey: key });
      assert.equal(third.adminKey, key);
      await third.close();
    } else {
      assert.equal(second.adminKey, key);
    }
    await assertNoPlainKey(second, key);
  } finally {
    await second.close();
    if (pg) await first.close();
  }
});

test('a plain admin key from before is hashed and its row deleted on open; the key works on two engines', async () => {
  const databaseUrl = await sharedDatabase();
  const firstDir = newDataDir();
  const older = 'sbk_0123456789abcdefghijklmnopqrstuv';
  // An install from before: the key in plain text in meta, no hash, no key file.
  const before = await start({ dataDir: firstDir, databaseUrl });
  await before.services.db.query("delete from meta where key like 'admin_key%'");
  await before.services.db.query("insert into meta (key, value) values ('admin_key', $1)", [older]);
  await before.close();
  rmSync(adminKeyFile(firstDir));
  const first = await start({ dataDir: firstDir, databaseUrl });
  assert.equal(first.adminKey, older, 'the install keeps its key');
  assert.equal(readFileSync(adminKeyFile(firstDir), 'utf8').trim(), older, 'kept beside the data dir');
  await assertNoPlainKey(first, older);
  if (!pg) await first.close();
  const second = await start({ dataDir: pg ? newDataDir() : firstDir, databaseUrl });
  try {
    assert.equal((await listSandboxes(second, older)).status, 200);
    if (pg) assert.equal((await listSandboxes(first, older)).status, 200);
    await assertNoPlainKey(second, older);
  } finally {
    await second.close();
    if (pg) await first.close();
  }
});

test('an engine given --admin-key takes a plain key from before out of the database too', async () => {
  const databaseUrl = await sharedDatabase();
  const dataDir = newDataDir();
  const older = 'sbk_abcdefghijklmnopqrstuv0123456789';
  const before = await start({ dataDir, databaseUrl });
  await before.services.db.query("delete from meta where key like 'admin_key%'");
  await before.services.db.query("insert into meta (key, value) values ('admin_key', $1)", [older]);
  await before.close();
  rmSync(adminKeyFile(dataDir));
  const given = 'operator-chosen-admin-key-0123456789abcdef';
  const engine = await start({ dataDir, databaseUrl, adminKey: given });
  try {
    assert.equal(engine.adminKey, given);
    const meta = await engine.services.db.query("select key, value from meta where key like 'admin_key%'");
    // A shared database keeps the hash for the engines not given a key; a data dir's own keeps it in its file.
    assert.deepEqual(meta, pg ? [{ key: 'admin_key_sha256', value: adminKeyHash(older) }] : []);
    if (!pg) assert.equal(readFileSync(adminKeyFile(dataDir), 'utf8').trim(), older);
    assert.ok(!(await everyRow(engine.services.db)).includes(older));
  } finally {
    await engine.close();
  }
});

test("--memory's scratch database keeps only the hash too", async () => {
  const engine = await start({ memory: true });
  try {
    const rows = await engine.services.db.query<{ key: string }>("select key from meta where key like 'admin_key%'");
    assert.deepEqual(rows, [{ key: 'admin_key_sha256' }]);
    assert.ok(!(await everyRow(engine.services.db)).includes(engine.adminKey!));
    assert.equal((await listSandboxes(engine, engine.adminKey!)).status, 200);
  } finally {
    await engine.close();
  }
});
