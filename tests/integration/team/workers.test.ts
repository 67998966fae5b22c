// `serve --workers N`: N engine processes (node:cluster) on one port and one PostgreSQL server.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { readDiscovery, readLock, lockFile } from '../../../src/server/instance-lock.ts';
import { processAlive } from '../../../src/shared/node/process-alive.ts';
import { call, createSandbox } from '../../helpers/engine.ts';
import { waitForReady } from '../../helpers/process.ts';
import { useServeDataDir } from '../../helpers/serve-on-data-dir.ts';

const { dataDir, start: serveProcess } = useServeDataDir('sandbay-workers-');

/** The worker processes of a primary (Linux: its children that are not the PostgreSQL server). */
function workersOf(primaryPid: number): number[] {
  const children = readFileSync(`/proc/${primaryPid}/task/${primaryPid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  return children.filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('sandbay.mjs'));
}

/** A GET on a new connection (the test's pooled ones may lead to a worker that was killed); its status. */
function freshGet(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    }).on('error', reject);
  });
}

async function until<T>(read: () => T, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let value = read(); ; value = read()) {
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('--postgres --workers 2: one port, one lock and discovery file, a killed worker replaced, one clean stop', async () => {
  const primary = serveProcess(['--postgres', '--workers', '2', '--data-dir', dataDir, '--port', '0']);
  const engine = Object.assign(primary, await waitForReady(primary, 120_000));
  assert.match(engine.line, /PostgreSQL in .*; 2 workers/);
  const pid = engine.child.pid!;
  const workers = workersOf(pid);
  assert.equal(workers.length, 2, 'two worker processes');

  // The primary holds the data dir; every worker answers as that one instance, so the lock's probe recognises it.
  const lock = readLock(lockFile(dataDir))!;
  assert.equal(lock.pid, pid);
  assert.deepEqual(readDiscovery(dataDir), {
    url: engine.url,
    pid,
    instanceId: lock.instanceId,
    adminKey: engine.adminKey,
  });
  for (let i = 0; i < 4; i++) assert.equal((await call(engine.url, '/api/v1/health')).body.instanceId, lock.instanceId);
  // Whichever worker answers, the metrics are the run's: the primary sums every worker's.
  const metrics = await call(engine.url, '/api/v1/metrics', { token: engine.adminKey });
  assert.equal(metrics.body.processes, 2);
  assert.ok(metrics.body.databaseRoundTrips > 0);
  const second = serveProcess(['--data-dir', dataDir, '--port', '0']);
  assert.equal((await second.exited).code, 1);
  assert.match(
    second.stderr,
    new RegExp(`Another Sandbay \\(pid ${pid}\\) is already using this data dir at ${engine.url}`),
  );

  // Each worker serves the whole API from the shared database: with one killed, the other answers alone.
  const sandbox = await createSandbox(engine.url, 'shared');
  for (const [round, victim] of workers.entries()) {
    process.kill(victim, 'SIGKILL');
    // Once the primary knows (its connections then go to the live worker; a client's kept-alive one died with it).
    await until(
      () => engine.stderr.match(/exited \(SIGKILL\)/g)?.length ?? 0,
      (n) => n > round,
    );
    for (let i = 0; i < 6; i++) assert.equal(await freshGet(`${engine.url}/api/v1/sandbox`, sandbox.token), 200);
    await until(
      () => engine.stderr.match(/serves in place of worker/g)?.length ?? 0,
      (n) => n > round,
    );
    const now = workersOf(pid);
    assert.ok(now.length === 2 && !now.includes(victim), `a new worker replaced ${victim}: ${now}`);
  }
  assert.match(engine.stderr, /worker \d+ exited \(SIGKILL\); starting another/);

  const postmaster = Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const last = workersOf(pid);
  engine.child.kill('SIGTERM');
  assert.equal((await engine.exited).code, 0);
  assert.equal(engine.stdout.match(/shutting down/g)?.length, 1, 'one shutdown line, from the primary');
  for (const worker of last) assert.ok(!processAlive(worker), `worker ${worker} stopped`);
  assert.ok(!processAlive(postmaster), 'the managed PostgreSQL stopped after its workers');
  assert.ok(
    !existsSync(lockFile(dataDir)) && readDiscovery(dataDir) === undefined,
    'the lock and discovery file are gone',
  );
});

test('--workers without PostgreSQL is refused with what to pass', async () => {
  const proc = serveProcess(['--workers', '2', '--memory', '--port', '0']);
  assert.equal((await proc.exited).code, 1);
  assert.match(proc.stderr, /--workers needs PostgreSQL: pass --postgres .* or --database-url/);
  const bad = serveProcess(['--workers', 'many', '--postgres', '--memory', '--port', '0']);
  assert.equal((await bad.exited).code, 1);
  assert.match(bad.stderr, /--workers must be 1–64, not many/);
});
