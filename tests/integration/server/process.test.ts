import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { packageRoot } from '../../../src/shared/node/package-root.ts';
import { processStatus } from '../../../src/shared/node/process-alive.ts';
import { call } from '../../helpers/engine.ts';
import { orderBody } from '../../helpers/orders.ts';
import { runCli, serveReady, spawnCollecting, waitForReady, type ServeProcess } from '../../helpers/process.ts';

const dirs: string[] = [];
const running: ServeProcess[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbay-proc-'));
  dirs.push(dir);
  return dir;
};
after(async () => {
  for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function serve(args: string[]) {
  const proc = await serveReady(args);
  running.push(proc);
  return proc;
}

test('serve --port 0 --memory prints one ready line with the key URL, serves, and stops cleanly on SIGINT', async () => {
  const proc = await serve(['--port', '0', '--memory']);
  assert.match(proc.line, /^Sandbay ready: http:\/\/127\.0\.0\.1:\d+\/\?key=sbk_[A-Za-z0-9]+ /);
  assert.notEqual(new URL(proc.url).port, '0');
  assert.equal(proc.stdout.trim().split('\n').length, 1, 'exactly one line once ready');
  assert.equal((await call(proc.url, '/api/v1/health')).status, 200);
  proc.child.kill('SIGINT');
  const { code } = await proc.exited;
  assert.equal(code, 0);
  assert.match(proc.stdout, /SIGINT: shutting down/);
  assert.equal(proc.stderr, '');
});

test('with a data dir: discovery file and lock while running; a second process exits naming the first; SIGTERM cleans up', async () => {
  const dataDir = tempDir();
  const first = await serve(['--port', '0', '--data-dir', dataDir]);
  const discovery = JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8'));
  assert.deepEqual(discovery, {
    url: first.url,
    pid: first.child.pid,
    instanceId: discovery.instanceId,
    adminKey: first.adminKey,
  });
  // One id for this run in the discovery file, the lock and the health route: what a second process checks.
  assert.match(discovery.instanceId, /^ins_\w+$/);
  assert.equal(JSON.parse(readFileSync(join(dataDir, 'sandbay.lock'), 'utf8')).instanceId, discovery.instanceId);
  const health = await call(first.url, '/api/v1/health');
  assert.deepEqual(health.body, {
    ok: true,
    instanceId: discovery.instanceId,
    version: JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).version,
    database: 'ok',
  });
  assert.equal(statSync(join(dataDir, 'server.json')).mode & 0o777, 0o600, 'the admin key is for this user only');
  assert.ok(existsSync(join(dataDir, 'sandbay.lock')));

  const second = runCli(['serve', '--port', '0', '--data-dir', dataDir]);
  running.push(second);
  const { code } = await second.exited;
  assert.notEqual(code, 0);
  const message = second.stderr.trim();
  assert.equal(message.split('\n').length, 1, `one line: ${message}`);
  assert.ok(message.includes(first.url), message);
  assert.ok(!message.includes(first.adminKey!), 'the key stays out of the message');
  assert.equal(second.stdout, '');

  first.child.kill('SIGTERM');
  assert.equal((await first.exited).code, 0);
  assert.ok(!existsSync(join(dataDir, 'server.json')), 'discovery file removed on exit');
  assert.ok(!existsSync(join(dataDir, 'sandbay.lock')), 'lock released');
});

test('PGlite data dir: data survives a restart on the same data dir: the sandbox, its order, its token and the admin key', async () => {
  const dataDir = tempDir();
  const first = await serve(['--port', '0', '--data-dir', dataDir]);
  const created = await call(first.url, '/api/v1/sandboxes', { method: 'POST' });
  const token = created.body.credentials.accessToken;
  const order = await call(first.url, '/api/v1/orders', { token, body: orderBody() });
  assert.equal(order.status, 201);
  first.child.kill('SIGTERM');
  await first.exited;

  const second = await serve(['--port', '0', '--data-dir', dataDir]);
  assert.equal(second.adminKey, first.adminKey, 'the per-install admin key is kept');
  const again = await call(second.url, `/api/v1/orders/${order.body.id}`, { token });
  assert.equal(again.status, 200);
  assert.deepEqual(again.body, order.body);
  assert.equal((await call(second.url, '/api/v1/sandbox', { token })).body.counts.orders, 201);
  second.child.kill('SIGTERM');
  assert.equal((await second.exited).code, 0);
});

test('a stale lock left by a killed process is taken over', async () => {
  const dataDir = tempDir();
  const first = await serve(['--port', '0', '--data-dir', dataDir]);
  first.child.kill('SIGKILL');
  await first.exited;
  assert.ok(existsSync(join(dataDir, 'sandbay.lock')), 'the killed process left its lock');
  const second = await serve(['--port', '0', '--data-dir', dataDir]);
  assert.equal((await call(second.url, '/api/v1/health')).status, 200);
  second.child.kill('SIGTERM');
  assert.equal((await second.exited).code, 0);
});

test('a holder killed with -9 and never reaped (a zombie) is taken over at once', async () => {
  const dataDir = tempDir();
  // sh starts the engine in the background, then becomes `sleep`, which never reaps its child.
  const script = '"$0" bin/sandbay.mjs serve --quiet --port 0 --data-dir "$1" & echo "engine pid $!"; exec sleep 600';
  const holder = spawnCollecting('sh', ['-c', script, process.execPath, dataDir]);
  const enginePid = () => Number(/engine pid (\d+)/.exec(holder.stdout)?.[1]);
  try {
    await waitForReady(holder);
    const pid = enginePid();
    assert.equal(JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8')).pid, pid);
    process.kill(pid, 'SIGKILL');
    while (processStatus(pid).running) await new Promise((r) => setTimeout(r, 20));
    assert.doesNotThrow(() => process.kill(pid, 0), 'a zombie: its pid still answers signal 0');
    assert.match(readFileSync(`/proc/${pid}/stat`, 'utf8'), /\) Z /);

    const second = await serve(['--port', '0', '--data-dir', dataDir]);
    assert.equal((await call(second.url, '/api/v1/health')).status, 200);
    second.child.kill('SIGTERM');
    assert.equal((await second.exited).code, 0);
  } finally {
    // The engine is sh's child, not ours: if the test failed before killing it, nobody else will.
    try {
      if (enginePid()) process.kill(enginePid(), 'SIGKILL');
    } catch {
      // already gone
    }
    holder.child.kill('SIGKILL');
  }
});

test('bad flags exit non-zero with a one-line reason', async () => {
  for (const args of [
    ['--port', 'abc'],
    ['--port', '70000'],
  ]) {
    const proc = runCli(['serve', '--memory', ...args]);
    running.push(proc);
    const { code } = await proc.exited;
    assert.notEqual(code, 0);
    assert.match(proc.stderr.trim(), /^sandbay: --port must be 0–65535/);
    assert.equal(proc.stderr.trim().split('\n').length, 1);
  }
});
