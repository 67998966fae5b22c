// Data at rest is the user's alone (SPEC §7, issue 28): a data dir and everything the engine and its
// database write there is owner-only, after start and after an import; a data dir others could read is
// tightened on open with one log line; the admin key is nowhere in the database in plain text. On the
// pg driver the database is the PostgreSQL server --postgres runs in the data dir (the one PostgreSQL
// whose files are the data dir's).
import assert from 'node:assert/strict';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  lstatSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { adminKeyFile } from '../../../src/server/admin-key.ts';
import { startSandbox, type SandboxOptions } from '../../../src/server/start.ts';
import { createSandbox } from '../../helpers/engine.ts';
import { exportBytes, importBytes } from '../../helpers/portable.ts';
import { testDriver } from '../../helpers/postgres.ts';

const parent = mkdtempSync(join(tmpdir(), 'sandbay-at-rest-'));
// As root, the managed server's `postgres` user must pass through the folders above a data dir.
chmodSync(parent, 0o755);
after(() => rmSync(parent, { recursive: true, force: true }));
let dirs = 0;
const newDataDir = () => join(parent, `data-${++dirs}`);

const lines: string[] = [];
const start = (dataDir: string, extra: SandboxOptions = {}) =>
  startSandbox({
    dataDir,
    port: 0,
    logRequests: false,
    postgres: testDriver() === 'pg',
    logger: { info: () => {}, warn: (line) => lines.push(line), error: (line) => lines.push(line) },
    ...extra,
  });

/** Every file (and folder) under root that others may read (or list, or write), and how many files it holds. */
function exposed(root: string): { open: string[]; files: number } {
  const open: string[] = [];
  let files = 0;
  const visit = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    const mode = stat.mode & 0o777;
    if (stat.isDirectory()) {
      if (mode & 0o066) open.push(`${path} ${mode.toString(8)}`);
      for (const name of readdirSync(path)) visit(join(path, name));
    } else {
      files++;
      if (mode & 0o077) open.push(`${path} ${mode.toString(8)}`);
    }
  };
  visit(root);
  return { open, files };
}

/** Every file under root whose bytes contain `secret`. */
function filesHolding(root: string, secret: string): string[] {
  const found: string[] = [];
  const needle = Buffer.from(secret);
  const visit = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else if (stat.isFile() && readFileSync(path).includes(needle)) found.push(path);
  };
  visit(root);
  return found;
}

test('a new data dir is owner-only after start and after an import', async () => {
  const dataDir = newDataDir();
  const engine = await start(dataDir);
  try {
    assert.equal(lstatSync(dataDir).mode & 0o066, 0);
    const started = exposed(dataDir);
    assert.deepEqual(started.open, [], 'after start');
    assert.ok(started.files > 10, `the database's files are there (${started.files})`);
    const sb = await createSandbox(engine.url);
    const imported = await importBytes(engine.url, await exportBytes(engine.url, sb));
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    assert.deepEqual(exposed(dataDir).open, [], 'after an import');
  } finally {
    await engine.close();
  }
  assert.deepEqual(exposed(dataDir).open, [], 'after close');
});

test('a data dir others could read is tightened on open, with one log line', async () => {
  const dataDir = newDataDir();
  mkdirSync(join(dataDir, 'notes'), { recursive: true });
  writeFileSync(join(dataDir, 'notes', 'todo.txt'), 'mine\n');
  for (const [path, mode] of [
    [dataDir, 0o755],
    [join(dataDir, 'notes'), 0o777],
    [join(dataDir, 'notes', 'todo.txt'), 0o644],
  ] as const)
    chmodSync(path, mode);
  lines.length = 0;
  const engine = await start(dataDir);
  await engine.close();
  assert.deepEqual(exposed(dataDir).open, []);
  const told = lines.filter((line) => line.includes(dataDir));
  assert.equal(told.length, 1, lines.join('\n'));
  assert.match(told[0], /3 files and folders other users could read are now yours alone/);
  lines.length = 0;
  await (await start(dataDir)).close();
  assert.deepEqual(
    lines.filter((line) => line.includes(dataDir)),
    [],
    'nothing to say once it is private',
  );
});

test("the admin key is nowhere in the database's files; an install's plain copy is adopted, then removed", async () => {
  const dataDir = newDataDir();
  const first = await start(dataDir);
  const key = first.adminKey!;
  assert.deepEqual(await first.services.db.query("select key from meta where key like 'admin_key%'"), []);
  // An install from before: the key in the database, no key file.
  const older = 'sbk_0123456789abcdefghijklmnopqrstuv';
  await first.services.db.query("insert into meta (key, value) values ('admin_key', $1)", [older]);
  await first.close();
  rmSync(adminKeyFile(dataDir));
  const second = await start(dataDir);
  try {
    assert.equal(second.adminKey, older, 'the install keeps its key');
    assert.equal(readFileSync(adminKeyFile(dataDir), 'utf8').trim(), older);
    assert.deepEqual(await second.services.db.query("select key from meta where key = 'admin_key'"), []);
  } finally {
    await second.close();
  }
  const database = join(dataDir, testDriver() === 'pg' ? 'postgres' : 'pgdata');
  assert.deepEqual(filesHolding(database, key), [], 'a new install never wrote its key there');
});
