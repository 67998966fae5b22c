import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { packageRoot } from '../../../src/shared/node/package-root.ts';
import {
  acquireLock,
  DataDirLockedError,
  discoveryFile,
  lockFile,
  readLock,
  type LockRecord,
} from '../../../src/server/instance-lock.ts';
import { processStatus } from '../../../src/shared/node/process-alive.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbay-lock-'));
  dirs.push(dir);
  return dir;
};
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const writeLock = (dir: string, record: LockRecord | string) =>
  writeFileSync(lockFile(dir), typeof record === 'string' ? record : JSON.stringify(record));
const writeDiscoveryFor = (dir: string, record: LockRecord, url: string) =>
  writeFileSync(
    discoveryFile(dir),
    JSON.stringify({ url, pid: record.pid, instanceId: record.instanceId, adminKey: 'sbk_x' }),
  );

/** The lock a Sandbay would have written, naming `pid` (the test runner: alive, and not a Sandbay). */
const lockNaming = (dir: string, pid: number, extra: Partial<LockRecord> = {}): LockRecord => ({
  pid,
  instanceId: 'ins_earlier',
  dataDir: realpathSync(dir),
  since: new Date().toISOString(),
  ...extra,
});

/** Acquires, checks the lock is now ours, and releases. */
async function takesOver(dir: string): Promise<void> {
  const release = await acquireLock(dir, 'ins_me');
  assert.equal(readLock(lockFile(dir))?.instanceId, 'ins_me');
  assert.equal(readLock(lockFile(dir))?.pid, process.pid);
  release();
  assert.ok(!existsSync(lockFile(dir)), 'released');
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

test('a lock whose pid now belongs to a live process that is not Sandbay (a recycled pid) is taken over', async () => {
  const dir = tempDir();
  const parent = processStatus(process.ppid);
  assert.equal(parent.running, true);
  // The start time the lock records is not the live process's: the pid was reused since.
  writeLock(
    dir,
    lockNaming(dir, process.ppid, {
      startTime: parent.startTime!.replace(/\d+$/, (ticks) => String(Number(ticks) + 1)),
    }),
  );
  await takesOver(dir);
});

test('a lock from an older Sandbay (its pid only) naming a live non-Sandbay process is taken over', async () => {
  const dir = tempDir();
  writeLock(dir, String(process.ppid));
  await takesOver(dir);
});

test('without start times to compare, the discovery URL is asked which instance it is', async (t) => {
  const dir = tempDir();
  const record = lockNaming(dir, process.ppid);
  await t.test('nothing listens there any more: taken over', async () => {
    const { server, url } = await listen(() => {});
    server.close();
    writeLock(dir, record);
    writeDiscoveryFor(dir, record, url);
    await takesOver(dir);
  });
  await t.test('another program answers there: taken over', async () => {
    const { server, url } = await listen((_req, res) => res.writeHead(404).end('not here'));
    writeLock(dir, record);
    writeDiscoveryFor(dir, record, url);
    await takesOver(dir);
    server.close();
  });
  await t.test('another Sandbay run answers there: taken over', async () => {
    const { server, url } = await listen((_req, res) => res.end(JSON.stringify({ ok: true, instanceId: 'ins_other' })));
    writeLock(dir, record);
    writeDiscoveryFor(dir, record, url);
    await takesOver(dir);
    server.close();
  });
  await t.test('the holder itself answers: refused, naming its URL', async () => {
    const { server, url } = await listen((_req, res) =>
      res.end(JSON.stringify({ ok: true, instanceId: record.instanceId })),
    );
    writeLock(dir, record);
    writeDiscoveryFor(dir, record, url);
    await assert.rejects(
      acquireLock(dir, 'ins_me'),
      (err: Error) => err instanceof DataDirLockedError && err.message.includes(url),
    );
    server.close();
  });
  await t.test('it accepts the connection but does not answer in time: alive but busy, refused', async () => {
    const { server, url } = await listen(() => {});
    writeLock(dir, record);
    writeDiscoveryFor(dir, record, url);
    await assert.rejects(acquireLock(dir, 'ins_me'), DataDirLockedError);
    server.closeAllConnections();
    server.close();
  });
  await t.test('no discovery file yet (the holder is starting): refused', async () => {
    rmSync(discoveryFile(dir));
    writeLock(dir, record);
    await assert.rejects(acquireLock(dir, 'ins_me'), /starting or stopping/);
  });
});

test('a live holder with the recorded start time keeps its lock; a copy of its data dir does not inherit it', async () => {
  const original = tempDir();
  const holder = lockNaming(original, process.ppid, { startTime: processStatus(process.ppid).startTime });
  writeLock(original, holder);
  await assert.rejects(acquireLock(original, 'ins_me'), DataDirLockedError);
  const copy = tempDir();
  cpSync(original, copy, { recursive: true });
  await takesOver(copy);
  assert.deepEqual(readLock(lockFile(original)), holder, 'the original stays locked');
});

test('two engines in one process: the second is refused until the first releases', async () => {
  const dir = tempDir();
  const release = await acquireLock(dir, 'ins_first');
  await assert.rejects(acquireLock(dir, 'ins_second'), /pid \d+/);
  release();
  await takesOver(dir);
});

interface Racer {
  child: ChildProcessWithoutNullStreams;
  output: string;
}

function startRacer(dir: string): Racer {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(packageRoot(), 'tests', 'helpers', 'lock-racer.ts'), dir],
    { cwd: packageRoot() },
  );
  const racer = { child, output: '' };
  child.stdout.on('data', (d) => (racer.output += d));
  return racer;
}

async function untilEvery(racers: Racer[], pattern: RegExp): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!racers.every((r) => pattern.test(r.output))) {
    if (Date.now() > deadline) throw new Error(`racers: ${racers.map((r) => r.output).join(' | ')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function race(dir: string, count: number): Promise<void> {
  const racers = Array.from({ length: count }, () => startRacer(dir));
  try {
    await untilEvery(racers, /ready/);
    for (const r of racers) r.child.stdin.write('go\n');
    await untilEvery(racers, /won|lost/);
    const winners = racers.filter((r) => r.output.includes('won'));
    assert.equal(winners.length, 1, racers.map((r) => r.output.trim()).join(' | '));
    assert.equal(readLock(lockFile(dir))?.pid, winners[0].child.pid);
    for (const r of racers) if (r !== winners[0]) assert.match(r.output, /lost: Another Sandbay \(pid \d+\)/);
  } finally {
    for (const r of racers) r.child.stdin.end();
    await Promise.all(
      racers.map(
        (r) => new Promise((resolve) => (r.child.exitCode !== null ? resolve(null) : r.child.once('exit', resolve))),
      ),
    );
  }
  assert.ok(!existsSync(lockFile(dir)), 'the winner released it');
}

test('processes racing for a free data dir: exactly one wins', async () => {
  await race(tempDir(), 4);
});

test('processes racing to take over a stale lock: exactly one wins', async () => {
  const dir = tempDir();
  const gone = spawnSync('true').pid!;
  writeLock(dir, lockNaming(dir, gone, { startTime: 'proc:x:1' }));
  await race(dir, 4);
});
