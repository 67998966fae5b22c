// `serve --workers 2`: a worker killed with -9 leaves no client hanging. Connections it had taken are reset
// by the kernel as it dies, and the ones it had not taken yet are served by the other worker. (With node:
// cluster's round-robin, the primary accepted each connection and passed it to a worker; one passed to a
// worker that died before saying it took it stayed open in the primary, answered by no one, until the
// client gave up.)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { after, test } from 'node:test';
import { createTestDatabase } from '../../helpers/postgres.ts';
import { serveReady } from '../../helpers/process.ts';

/** The worker processes of a primary (Linux: its children running the CLI). */
function workersOf(primaryPid: number): number[] {
  return readFileSync(`/proc/${primaryPid}/task/${primaryPid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number)
    .filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('sandbay.mjs'));
}

/**
 * A GET on a connection of its own: its status, or the error that ended it (a reset). Only a connection
 * nobody answers nor closes reaches the client's timeout, the 10 s the client had.
 */
function get(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
      res.on('error', (err) => resolve((err as NodeJS.ErrnoException).code ?? err.message));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('hung: neither answered nor reset')));
    req.on('error', (err) => resolve((err as NodeJS.ErrnoException).code ?? err.message));
    req.end();
  });
}

test('requests in flight when a worker is killed with -9 are answered or reset, never left hanging', async () => {
  const database = await createTestDatabase();
  after(() => database.drop());
  const engine = await serveReady(['--database-url', database.url, '--workers', '2', '--memory', '--port', '0']);
  after(() => {
    engine.child.kill('SIGTERM');
    return engine.exited;
  });
  const [victim] = workersOf(engine.child.pid!);
  // Stopped, the victim takes no connection and answers none: whatever reaches it is in flight when it dies.
  process.kill(victim, 'SIGSTOP');
  const answers = Array.from({ length: 6 }, () => get(`${engine.url}/api/v1/health`));
  // Once a connection has been taken by the live worker, others are on their way to the victim (or waiting).
  await Promise.race(answers);
  process.kill(victim, 'SIGKILL');
  const settled = await Promise.all(answers);
  assert.deepEqual(
    settled.filter((s) => s !== 200 && s !== 'ECONNRESET'),
    [],
    `each request is answered (200) or reset: ${settled.join(', ')}`,
  );
});
