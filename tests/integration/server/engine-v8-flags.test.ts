// `sandbay serve` runs the engine with the V8 flags package.json lists (bin/sandbay.mjs): V8 reads them only
// when a process starts, so the launcher replaces its process with one started with them, keeping its pid.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { packageRoot } from '../../../src/shared/node/package-root.ts';
import { runCli, waitForReady, type ServeProcess } from '../../helpers/process.ts';

const { engineV8Flags } = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).sandbay as {
  engineV8Flags: string[];
};
const running: ServeProcess[] = [];
after(() => {
  for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
});

/** `sandbay serve --memory` once ready, and the command line its process (the pid spawned) now runs. */
async function serveAndReadCommandLine(env: Record<string, string> = {}): Promise<string[]> {
  const proc = runCli(['serve', '--memory', '--port', '0'], env);
  running.push(proc);
  await waitForReady(proc);
  const commandLine = readFileSync(`/proc/${proc.child.pid}/cmdline`, 'utf8').replace(/\0$/, '').split('\0');
  proc.child.kill('SIGTERM');
  assert.equal((await proc.exited).code, 0);
  assert.equal(proc.stderr, '', 'no warning from the replacement');
  return commandLine;
}

test('the engine process sandbay serve starts runs with the V8 flags package.json lists, under the same pid', async () => {
  assert.ok(engineV8Flags.length > 0);
  const commandLine = await serveAndReadCommandLine();
  for (const flag of engineV8Flags) assert.ok(commandLine.includes(flag), `${flag} in ${commandLine.join(' ')}`);
  assert.deepEqual(commandLine.slice(-4), ['serve', '--memory', '--port', '0'], 'the user’s own arguments kept');
});

test('a V8 flag the user set in NODE_OPTIONS is theirs: the launcher adds none of its own for it', async () => {
  const theirs = engineV8Flags.map((flag) => `${flag.split('=')[0]}=8`);
  const commandLine = await serveAndReadCommandLine({ NODE_OPTIONS: theirs.join(' ') });
  for (const flag of engineV8Flags) assert.ok(!commandLine.includes(flag), `${flag} not in ${commandLine.join(' ')}`);
});
