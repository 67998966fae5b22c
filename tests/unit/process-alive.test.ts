import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeScratchDir, scratchBase } from '../../src/db/template.ts';
import { processAlive, processStatus, type StatusSource } from '../../src/shared/node/process-alive.ts';

/**
 * A zombie: `sh` backgrounds a child, then becomes `sleep`, which never reaps it. The child exits a moment
 * later, not at once: one that ended before the `exec` could be reaped by `sh` itself (then no pid is left).
 */
async function withZombie(use: (pid: number) => void | Promise<void>): Promise<void> {
  const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 600'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const pid = await new Promise<number>((resolve) =>
      parent.stdout.once('data', (d) => resolve(Number(String(d).trim()))),
    );
    for (let i = 0; i < 250 && processStatus(pid).running; i++) await new Promise((r) => setTimeout(r, 20));
    await use(pid);
  } finally {
    parent.kill('SIGKILL');
  }
}

const sources: StatusSource[][] = [['proc'], ['ps']];

test('a zombie is not running, though signal 0 still finds its pid (/proc and ps alike)', async () => {
  await withZombie((pid) => {
    assert.doesNotThrow(() => process.kill(pid, 0), 'the pid still exists as a zombie');
    for (const s of sources) assert.equal(processStatus(pid, s).running, false, s.join());
    assert.equal(processAlive(pid), false, 'what the scratch-dir sweep and the lock ask');
  });
});

test('a running process has a start time that tells it from another process with a recycled pid', () => {
  for (const s of sources) {
    const own = processStatus(process.pid, s);
    const parent = processStatus(process.ppid, s);
    assert.equal(own.running, true);
    assert.match(own.startTime ?? '', new RegExp(`^${s[0]}:`));
    assert.equal(processStatus(process.pid, s).startTime, own.startTime, 'stable from one call to the next');
    assert.equal(parent.running, true);
    assert.ok(parent.startTime, s.join());
  }
  // /proc counts ticks since boot (1/100 s) and names the boot: two processes, two tokens.
  assert.notEqual(processStatus(process.ppid, ['proc']).startTime, processStatus(process.pid, ['proc']).startTime);
  assert.match(processStatus(process.pid, ['proc']).startTime!, /^proc:[0-9a-f-]{36}:\d+$/);
});

test('a pid that is gone, or no pid at all, is not running', async () => {
  const done = spawnSync('true');
  assert.equal(done.status, 0);
  for (const s of [...sources, ['signal'] as StatusSource[]])
    assert.equal(processStatus(done.pid!, s).running, false, s.join());
  for (const pid of [0, -1, Number.NaN, 2 ** 40]) assert.equal(processStatus(pid).running, false, String(pid));
});

test('the scratch-dir sweep removes the dir of a process killed and left a zombie', async () => {
  await withZombie(async (pid) => {
    const dir = join(scratchBase(), `sandbay-mem-${pid}-zombie-test`);
    mkdirSync(dir, { recursive: true });
    try {
      makeScratchDir();
      assert.equal(existsSync(dir), false, 'a zombie will never come back for its data');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
