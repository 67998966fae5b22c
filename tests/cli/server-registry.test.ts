import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, test } from 'node:test';
import { call } from '../helpers/engine.ts';
import { assertOneLineFailure, runCli, runCliJson } from '../helpers/cli.ts';
import { packageRoot } from '../../src/shared/node/package-root.ts';
import { deliveries } from '../../src/testing/index.ts';
import { runCli as runServe, waitForReady, type ServeProcess } from '../helpers/process.ts';

// Each test has a registry of its own (XDG_STATE_HOME), so servers of other tests and files stay out of it;
// the platform data dir (XDG_DATA_HOME) is empty, so only the registry can name a server.
const root = mkdtempSync(join(tmpdir(), 'sandbay-registry-'));
const started: ServeProcess[] = [];
after(() => {
  for (const p of started) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

let isolation = 0;
function isolatedEnv(): Record<string, string> {
  const dir = join(root, `t${++isolation}`);
  return { XDG_STATE_HOME: join(dir, 'state'), XDG_DATA_HOME: join(dir, 'data') };
}

async function serve(args: string[], env: Record<string, string>) {
  const proc = runServe(['serve', '--quiet', '--port', '0', ...args], env);
  started.push(proc);
  return Object.assign(proc, await waitForReady(proc));
}

const registryOf = (env: Record<string, string>) => join(env.XDG_STATE_HOME, 'sandbay', 'servers');

test('serve --memory --data-dir X is found with no flags, and with --data-dir X; a clean stop unregisters it', async () => {
  const env = isolatedEnv();
  const dataDir = join(root, 'memory-named');
  const server = await serve(['--memory', '--data-dir', dataDir], env);
  assert.equal(existsSync(join(dataDir, 'server.json')), false, '--memory keeps no files');
  // The team-mode walkthrough's step, as written: no --url, no --data-dir.
  for (const args of [
    ['token', '--new'],
    ['token', '--new', '--data-dir', dataDir],
  ]) {
    const created = await runCli(args, { env });
    assert.equal(created.code, 0, created.stderr);
    assert.equal((await call(server.url, '/api/v1/sandbox', { token: created.stdout.trim() })).status, 200);
  }
  server.child.kill('SIGTERM');
  assert.equal((await server.exited).code, 0);
  assert.deepEqual(readdirSync(registryOf(env)), [], 'its entry is gone');
  assert.deepEqual((await runCliJson(['status'], { env })).data, []);
});

test('status lists every running server; with two, a verb without --url or --data-dir fails listing them', async () => {
  const env = isolatedEnv();
  const dataDir = join(root, 'on-disk');
  const onDisk = await serve(['--data-dir', dataDir], env);
  const inMemory = await serve(['--memory'], env);
  const status = await runCliJson(['status'], { env });
  const byUrl = Object.fromEntries(status.data.map((s: { url: string }) => [s.url, s]));
  assert.deepEqual(Object.keys(byUrl).sort(), [onDisk.url, inMemory.url].sort());
  assert.deepEqual(
    [byUrl[onDisk.url].dataDir, byUrl[onDisk.url].memory, byUrl[onDisk.url].pid],
    [dataDir, false, onDisk.child.pid],
  );
  assert.deepEqual([byUrl[inMemory.url].dataDir, byUrl[inMemory.url].memory], [null, true]);
  assert.ok(!JSON.stringify(status).includes(onDisk.adminKey!), 'status never prints an admin key');
  const table = await runCli(['status'], { env });
  assert.match(table.stdout, /^URL +DATA +PID +STARTED\n/);
  assert.match(table.stdout, new RegExp(`${inMemory.url} +memory +${inMemory.child.pid} `));
  assert.match(table.stdout, /2 servers: the other verbs need --url URL or --data-dir DIR to pick one\.\n$/);

  const ambiguous = await runCli(['token', '--new'], { env });
  assertOneLineFailure(
    ambiguous,
    /^sandbay: 2 Sandbays are running: http:\/\/127\.0\.0\.1:\d+ \(.+, pid \d+\), http:\/\/127\.0\.0\.1:\d+ \(.+, pid \d+\); pick one with --url URL or --data-dir DIR \(or SANDBAY_URL \/ SANDBAY_DATA_DIR\)$/,
  );
  for (const s of [onDisk, inMemory]) assert.ok(ambiguous.stderr.includes(`${s.url} (`), ambiguous.stderr);
  // Either way of picking works, and takes that server's admin key along.
  const picked = await runCli(['token', '--new', '--data-dir', dataDir], { env });
  assert.equal((await call(onDisk.url, '/api/v1/sandbox', { token: picked.stdout.trim() })).status, 200);
  const byFlag = await runCli(['token', '--new', '--url', inMemory.url], { env });
  assert.equal(byFlag.code, 0, byFlag.stderr);
  assert.equal((await call(inMemory.url, '/api/v1/sandbox', { token: byFlag.stdout.trim() })).status, 200);
});

test("a dead server's entry is ignored and removed; one whose pid now runs another program too", async () => {
  const env = isolatedEnv();
  const registry = registryOf(env);
  mkdirSync(registry, { recursive: true });
  // A pid that ran and ended: a child this test waited for.
  const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!;
  const entry = (instanceId: string, pid: number, startTime?: string) =>
    writeFileSync(
      join(registry, `${instanceId}.json`),
      JSON.stringify({
        url: 'http://127.0.0.1:9',
        port: 9,
        pid,
        ...(startTime ? { startTime } : {}),
        instanceId,
        dataDir: null,
        memory: true,
        adminKey: 'sbk_stale',
        startedAt: '2026-01-01T00:00:00.000Z',
      }),
    );
  entry('ins_dead', deadPid);
  entry('ins_recycled', process.pid, 'proc:another-boot:1');
  const live = await serve(['--memory'], env);
  const status = await runCliJson(['status'], { env });
  assert.deepEqual(
    status.data.map((s: { url: string }) => s.url),
    [live.url],
  );
  const { instanceId } = (await call(live.url, '/api/v1/health')).body;
  assert.deepEqual(readdirSync(registry), [`${instanceId}.json`], 'the stale entries are removed');
  const created = await runCli(['token', '--new'], { env });
  assert.equal((await call(live.url, '/api/v1/sandbox', { token: created.stdout.trim() })).status, 200);
});

test('a registry it cannot write (a read-only home) does not stop the server: it says so, and --url still works', async () => {
  const env = isolatedEnv();
  mkdirSync(join(env.XDG_STATE_HOME, '..'), { recursive: true });
  writeFileSync(env.XDG_STATE_HOME, 'a file where the state dir would be');
  const server = await serve(['--memory'], env);
  assert.match(
    server.stderr,
    new RegExp(
      `^sandbay: not registered in ${env.XDG_STATE_HOME}/sandbay/servers \\(.+\\): the CLI will need --url ${server.url}\n$`,
    ),
  );
  const created = await runCli(['token', '--new', '--url', server.url, '--token', server.adminKey!], { env });
  assert.equal(created.code, 0, created.stderr);
});

test('a relative --data-dir is registered as the absolute path the CLI compares', async () => {
  const env = isolatedEnv();
  const dataDir = join(root, 'relative-data');
  // Relative to the server's working directory (the package root), as a user types it.
  const server = await serve(['--data-dir', relative(packageRoot(), dataDir)], env);
  const [entry] = (await runCliJson(['status'], { env })).data;
  assert.deepEqual([entry.url, entry.dataDir], [server.url, dataDir]);
  const created = await runCli(['token', '--new', '--data-dir', dataDir], { env });
  assert.equal(created.code, 0, created.stderr);
});

test('sandbay/testing finds the server as the CLI does: the registry, SANDBAY_DATA_DIR, and the same error for several', async () => {
  const env = isolatedEnv();
  const dataDir = join(root, 'testing-data');
  const onDisk = await serve(['--data-dir', dataDir], env);
  const created = await runCliJson(['token', '--new', '--data-dir', dataDir], { env });
  const saved = { ...process.env };
  try {
    Object.assign(process.env, env, { SANDBAY_SANDBOX: created.sandboxId });
    for (const name of ['SANDBAY_URL', 'SANDBAY_TOKEN', 'SANDBAY_DATA_DIR']) delete process.env[name];
    // One server running: found with its admin key, no url or token given.
    assert.deepEqual(await deliveries({ since: 0 }), []);
    await serve(['--memory'], env);
    await assert.rejects(
      deliveries({}),
      /^Error: sandbay\/testing: 2 Sandbays are running: .*; pick one with --url URL or --data-dir DIR \(or SANDBAY_URL \/ SANDBAY_DATA_DIR\)$/,
    );
    process.env.SANDBAY_DATA_DIR = dataDir;
    assert.deepEqual(await deliveries({}), []);
    assert.equal(onDisk.url, (await runCliJson(['status'], { env })).data.find((s: any) => s.dataDir === dataDir).url);
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
});
