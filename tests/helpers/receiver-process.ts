// Receivers in other languages, run as real servers on a free loopback port for the receiver check tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { freePort } from '../../src/shared/node/free-port.ts';

/** Go needs a build cache; a CI shell may have no $HOME to put it under. */
export const receiverEnv = (secret: string) => ({
  ...process.env,
  GOCACHE: process.env.GOCACHE ?? join(tmpdir(), 'sandbay-go-cache'),
  SANDBAY_WEBHOOK_SECRET: secret,
});

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => resolve(true)).on('error', () => resolve(false));
    socket.unref();
    setTimeout(() => socket.destroy(), 500);
  });

/** The inodes of the sockets listening on `port` (Linux's /proc/net/tcp*); undefined where there is no /proc. */
function listenerInodes(port: number): Set<string> | undefined {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  try {
    for (const file of ['/proc/net/tcp', '/proc/net/tcp6'])
      for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
        const fields = line.trim().split(/\s+/);
        if (fields[1]?.endsWith(hex) && fields[3] === '0A') inodes.add(fields[9]);
      }
  } catch {
    return undefined;
  }
  return inodes;
}

/** Whether process `pid` holds one of `inodes` open. */
function holds(pid: number, inodes: Set<string>): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return inodes.has(/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? '');
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/**
 * Waits until the child listens on `port`: `taken` when another process listens there (freePort's port was bound
 * by someone else before the child could), so that the test never checks a stranger's server.
 */
async function listening(port: number, child: ChildProcess, output: () => string): Promise<'ours' | 'taken'> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (await accepts(port)) {
      const inodes = listenerInodes(port);
      if (!inodes || holds(child.pid!, inodes)) return 'ours';
    }
    if (child.exitCode !== null || child.signalCode !== null) {
      if (await accepts(port)) return 'taken';
      throw new Error(`the receiver exited before it listened on ${port}:\n${output()}`);
    }
    if (Date.now() > deadline) throw new Error(`the receiver did not listen on ${port}:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Spawns receivers on a free port each, and kills them when the test file ends. `command` gets the port (the
 * receiver also finds it in $PORT); a port another process binds first is given up for a new one.
 */
export function useReceiverProcesses(): (
  cwd: string,
  command: (port: number) => [string, string[]],
  env: NodeJS.ProcessEnv,
) => Promise<{ url: string; output: () => string; stop: () => void }> {
  const children: ChildProcess[] = [];
  after(() => {
    for (const c of children) c.kill('SIGKILL');
  });
  return async (cwd, command, env) => {
    for (let tries = 1; ; tries++) {
      const port = await freePort();
      const [cmd, args] = command(port);
      const child = spawn(cmd, args, { cwd, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let output = '';
      child.stdout!.on('data', (c) => (output += c));
      child.stderr!.on('data', (c) => (output += c));
      if ((await listening(port, child, () => output)) === 'ours')
        return { url: `http://127.0.0.1:${port}/hook`, output: () => output, stop: () => child.kill('SIGKILL') };
      child.kill('SIGKILL');
      if (tries === 3) throw new Error(`three free ports were bound by other processes first:\n${output}`);
    }
  };
}
