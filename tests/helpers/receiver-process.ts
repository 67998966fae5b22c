// Receivers in other languages, run as real servers on a free loopback port for the receiver check tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

/** Go needs a build cache; a CI shell may have no $HOME to put it under. */
export const receiverEnv = (secret: string) => ({
  ...process.env,
  GOCACHE: process.env.GOCACHE ?? join(tmpdir(), 'sandbay-go-cache'),
  SANDBAY_WEBHOOK_SECRET: secret,
});

export { freePort } from '../../src/shared/node/free-port.ts';

async function listening(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(true)).on('error', () => resolve(false));
      socket.unref();
      setTimeout(() => socket.destroy(), 500);
    });
    if (up) return;
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`the receiver did not listen on ${port}:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Spawns receivers and kills them when the test file ends. */
export function useReceiverProcesses(): (
  cwd: string,
  port: number,
  command: [string, string[]],
  env: NodeJS.ProcessEnv,
) => Promise<{ url: string; output: () => string; stop: () => void }> {
  const children: ChildProcess[] = [];
  after(() => {
    for (const c of children) c.kill('SIGKILL');
  });
  return async (cwd, port, [cmd, args], env) => {
    const child = spawn(cmd, args, { cwd, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (c) => (output += c));
    child.stderr!.on('data', (c) => (output += c));
    await listening(port, child, () => output);
    return { url: `http://127.0.0.1:${port}/hook`, output: () => output, stop: () => child.kill('SIGKILL') };
  };
}
