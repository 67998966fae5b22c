// One data dir keeps one admin key whichever database it runs on: PGlite, --postgres, and --postgres
// with --workers all print the same key, kept in the data dir's file alone (tests/integration/server/
// data-at-rest.test.ts: an install whose database held it adopts it);
// on --database-url the key is that database's, shared by every engine on it (which keeps only its hash).
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { after, test } from 'node:test';
import { adminKeyFile } from '../../../src/server/admin-key.ts';
import { call } from '../../helpers/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/postgres.ts';
import { waitForReady, type ServeProcess } from '../../helpers/process.ts';
import { useServeDataDir } from '../../helpers/serve-on-data-dir.ts';

const { dataDir, start } = useServeDataDir('sandbay-admin-key-');
const databases: TestDatabase[] = [];
after(async () => {
  for (const d of databases) await d.drop();
});

/** `sandbay serve` until ready, then stopped: the admin key its ready line printed, and what it logged. */
async function serveOnce(args: string[]): Promise<{ adminKey?: string; stderr: string }> {
  const proc: ServeProcess = start([...args, '--port', '0']);
  const { adminKey } = await waitForReady(proc, 120_000);
  proc.child.kill('SIGTERM');
  assert.equal((await proc.exited).code, 0, proc.stderr);
  return { adminKey, stderr: proc.stderr };
}

const keyOf = async (args: string[]) => (await serveOnce(args)).adminKey!;
const notices = (stderr: string) => stderr.match(/admin key was made by another engine/g)?.length ?? 0;

test('PGlite, --postgres and --postgres --workers 2 on one data dir: one admin key, kept in the data dir (0600)', async () => {
  const pglite = await keyOf(['--data-dir', dataDir]);
  assert.match(pglite, /^sbk_\w{32}$/);
  assert.equal(readFileSync(adminKeyFile(dataDir), 'utf8').trim(), pglite);
  assert.equal(statSync(adminKeyFile(dataDir)).mode & 0o777, 0o600);
  assert.equal(
    await keyOf(['--data-dir', dataDir, '--postgres']),
    pglite,
    '--postgres: its own database, the same key',
  );
  assert.equal(await keyOf(['--data-dir', dataDir, '--postgres', '--workers', '2']), pglite, 'every worker too');
  assert.equal(await keyOf(['--data-dir', dataDir]), pglite, 'and back on PGlite');
});

test("the key file is the key's one home: its database keeps no copy, so a data dir that lost the file gets a new key", async () => {
  const before = await keyOf(['--data-dir', dataDir]);
  rmSync(adminKeyFile(dataDir));
  const after = await keyOf(['--data-dir', dataDir]);
  assert.notEqual(after, before);
  assert.equal(readFileSync(adminKeyFile(dataDir), 'utf8').trim(), after);
});

test("on --database-url the key is the database's own: the engine that made it shows it, another accepts it; --admin-key overrides both", async () => {
  const database = await createTestDatabase();
  databases.push(database);
  const shared = await keyOf(['--memory', '--database-url', database.url]);
  assert.match(shared, /^sbk_\w{32}$/);
  // This data dir keeps another key (its PGlite one): the database keeps only its key's hash, so this engine
  // accepts the database's key without being able to show it.
  const other = start(['--data-dir', dataDir, '--database-url', database.url, '--port', '0']);
  const ready = await waitForReady(other, 120_000);
  assert.equal(ready.adminKey, undefined, ready.line);
  assert.match(other.stderr, /admin key was made by another engine/);
  assert.equal((await call(ready.url, '/api/v1/sandboxes', { token: shared })).status, 200);
  other.child.kill('SIGTERM');
  assert.equal((await other.exited).code, 0, other.stderr);
  assert.notEqual(shared, readFileSync(adminKeyFile(dataDir), 'utf8').trim());
  // A database that has no key yet takes the data dir's, every worker of --workers too (the primary hands them
  // its data dir); with no data dir, the worker that made the key is the one whose ready line the primary prints.
  const fresh = await createTestDatabase();
  databases.push(fresh);
  assert.equal(
    await keyOf(['--data-dir', dataDir, '--database-url', fresh.url, '--workers', '2']),
    readFileSync(adminKeyFile(dataDir), 'utf8').trim(),
  );
  const scratch = await createTestDatabase();
  databases.push(scratch);
  const workers = await serveOnce(['--memory', '--database-url', scratch.url, '--workers', '2']);
  assert.match(workers.adminKey!, /^sbk_\w{32}$/);
  assert.equal(notices(workers.stderr), 0, 'the worker that did not make the key says nothing: its sibling shows it');
  const later = await serveOnce(['--memory', '--database-url', scratch.url, '--workers', '2']);
  assert.equal(later.adminKey, undefined);
  assert.equal(notices(later.stderr), 1, 'no worker made the key: the notice, once');
  const chosen = 'operator-chosen-admin-key-0123456789abcdef';
  assert.equal(await keyOf(['--data-dir', dataDir, '--admin-key', chosen]), chosen);
});
