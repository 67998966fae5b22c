// `serve --postgres`: a PostgreSQL server Sandbay runs itself in <dataDir>/postgres.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { startManagedPostgres } from '../../../src/db/managed-postgres.ts';
import { embeddedBinDir, isRoot } from '../../../src/db/postgres-binaries.ts';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { scratchBase } from '../../../src/db/template.ts';
import { processAlive } from '../../../src/shared/node/process-alive.ts';
import { call, createSandbox } from '../../helpers/engine.ts';
import { waitForReady, type ServeProcess } from '../../helpers/process.ts';
import { useServeDataDir } from '../../helpers/serve-on-data-dir.ts';
import { isolatedStateHome } from '../../helpers/isolated-state.ts';

const { dataDir, start } = useServeDataDir('sandbay-managed-pg-');
const bin = fileURLToPath(new URL('../../../bin/sandbay.mjs', import.meta.url));

const postmasterPid = () => Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
// Zombie-aware: a server whose Sandbay was killed is re-parented, and once stopped may linger unreaped.
const isAlive = processAlive;

/** `sandbay serve` with args, once ready (killed after the file if a test fails before it stops it). */
async function serve(args: string[]): Promise<ServeProcess & { url: string }> {
  const proc = start(args);
  return Object.assign(proc, await waitForReady(proc, 120_000));
}

test('--postgres keeps its data across restarts, stops its server with Sandbay, and takes over a server a killed Sandbay left', async () => {
  let engine = await serve(['--postgres', '--data-dir', dataDir, '--port', '0']);
  assert.match(engine.stdout, new RegExp(`data: PostgreSQL in ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  assert.doesNotMatch(
    engine.stdout + engine.stderr,
    /postgres:\/\/|sandbay-password/,
    'the server password is never printed',
  );
  const sandbox = await createSandbox(engine.url, 'kept');
  const server = postmasterPid();
  assert.ok(isAlive(server));

  engine.child.kill('SIGTERM');
  assert.equal((await engine.exited).code, 0);
  assert.ok(!isAlive(server), 'stopping Sandbay stops its PostgreSQL server');
  assert.ok(!existsSync(join(dataDir, 'postgres', 'postmaster.pid')));

  engine = await serve(['--postgres', '--data-dir', dataDir, '--port', '0']);
  const kept = await call(engine.url, '/api/v1/sandbox', { token: sandbox.token });
  assert.equal(kept.status, 200);
  assert.equal(kept.body.name, 'kept');

  // SIGKILL leaves the server running; the next start stops that orphan and starts afresh on the same data.
  const orphan = postmasterPid();
  engine.child.kill('SIGKILL');
  await engine.exited;
  assert.ok(isAlive(orphan));
  engine = await serve(['--postgres', '--data-dir', dataDir, '--port', '0']);
  assert.ok(!isAlive(orphan), 'the orphaned server was stopped');
  assert.equal((await call(engine.url, '/api/v1/sandbox', { token: sandbox.token })).status, 200);
  engine.child.kill('SIGTERM');
  assert.equal((await engine.exited).code, 0);
});

test('--postgres --memory runs on a scratch server that leaves nothing behind', async () => {
  const engine = await serve(['--postgres', '--memory', '--port', '0']);
  assert.match(engine.stdout, /data: PostgreSQL in memory/);
  const sandbox = await createSandbox(engine.url);
  assert.equal((await call(engine.url, '/api/v1/sandbox', { token: sandbox.token })).status, 200);
  const scratch = readdirSync(scratchBase()).filter((name) => name.startsWith(`sandbay-mem-${engine.child.pid}-`));
  assert.equal(scratch.length, 1, 'one scratch dir holds the server');
  assert.ok(existsSync(join(scratchBase(), scratch[0], 'postgres', 'PG_VERSION')));
  engine.child.kill('SIGTERM');
  assert.equal((await engine.exited).code, 0);
  assert.ok(!existsSync(join(scratchBase(), scratch[0])), 'the scratch dir was removed');
});

test("a SIGTERM or Ctrl-C's SIGINT to Sandbay's whole process group stops it cleanly: no error logged, its server stopped", async () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    // The leader of a group of its own, as a shell's job or a service is: the signal goes to the group.
    const child = spawn(process.execPath, [bin, 'serve', '--postgres', '--memory', '--port', '0', '--quiet'], {
      env: { ...process.env, NO_COLOR: '1', XDG_STATE_HOME: isolatedStateHome, SANDBAY_DATABASE_URL: undefined },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const ready = await waitForReady(
      {
        child,
        exited: exited.then((code) => ({ code, signal: null })),
        get stdout() {
          return stdout;
        },
        get stderr() {
          return stderr;
        },
      },
      120_000,
    );
    assert.equal((await call(ready.url, '/api/v1/health')).status, 200);
    const scratch = readdirSync(scratchBase()).find((name) => name.startsWith(`sandbay-mem-${child.pid}-`))!;
    const server = Number(
      readFileSync(join(scratchBase(), scratch, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    process.kill(-child.pid!, signal);
    assert.equal(await exited, 0, stderr);
    assert.equal(stderr, '', `${signal}: nothing on stderr`);
    assert.match(stdout, new RegExp(`${signal}: shutting down; pending deliveries stay queued\n$`));
    assert.ok(!isAlive(server), 'its PostgreSQL server stopped with it');
  }
});

test('binaries in a folder the postgres user cannot enter (a checkout in mktemp -d) are copied where it can, and the server starts', async () => {
  const checkout = mkdtempSync(join(tmpdir(), 'sandbay-checkout-')); // 0700, like `mktemp -d`
  try {
    cpSync(dirname(await embeddedBinDir()), join(checkout, 'native'), { recursive: true, verbatimSymlinks: true });
    const dir = join(dataDir, 'hidden-binaries', 'postgres');
    const server = await startManagedPostgres(dir, { binDir: join(checkout, 'native', 'bin') });
    try {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      assert.deepEqual((await client.query('select 1 as one')).rows, [{ one: 1 }]);
      await client.end();
      const copies = readdirSync(dirname(dir)).filter((name) => name.startsWith('postgres-binaries-'));
      // As root the server runs as `postgres`, which cannot enter the checkout: it runs a copy beside the cluster.
      assert.equal(copies.length, isRoot() ? 1 : 0);
      if (isRoot()) assert.ok(existsSync(join(dirname(dir), copies[0], 'bin', 'postgres')));
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(checkout, { recursive: true, force: true });
  }
});
