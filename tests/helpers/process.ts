import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/node/package-root.ts';
import { isolatedStateHome } from './isolated-state.ts';

export interface ServeProcess {
  child: ChildProcess;
  /** Everything the process printed so far. */
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns a command, collecting its output as it comes. */
export function spawnCollecting(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): ServeProcess {
  // SANDBAY_DATABASE_URL dropped: a developer's own must not send every test engine to their database.
  const child = spawn(command, args, {
    cwd: options.cwd ?? packageRoot(),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: options.env ?? { ...process.env, NO_COLOR: '1', SANDBAY_DATABASE_URL: undefined },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    exited,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
  };
}

/**
 * Runs `node bin/sandbay.mjs <args>` as a child process, collecting its output (a server registers in this test
 * process's registry).
 */
export function runCli(args: string[], env: Record<string, string> = {}): ServeProcess {
  return spawnCollecting(process.execPath, [join(packageRoot(), 'bin', 'sandbay.mjs'), ...args], {
    env: { ...process.env, NO_COLOR: '1', XDG_STATE_HOME: isolatedStateHome, ...env },
  });
}

/**
 * Waits for the ready line; returns it with the base URL and admin key it carries (an engine on a shared
 * database that did not make its key prints none). A process that is not ready in time is killed: one left
 * running would keep the test file from exiting. The bound is generous because a loaded 2-core machine can
 * take tens of seconds to start one.
 */
export async function waitForReady(
  proc: ServeProcess,
  timeoutMs = 90_000,
): Promise<{ line: string; url: string; adminKey?: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match =
      /^.*(http:\/\/127\.0\.0\.1:(\d+))\/\?key=(\S+).*$/m.exec(proc.stdout) ??
      /^Sandbay ready: (http:\/\/127\.0\.0\.1:(\d+))\/ .*$/m.exec(proc.stdout);
    if (match) return { line: match[0], url: match[1], adminKey: match[3] };
    if (proc.child.exitCode !== null || Date.now() > deadline) {
      proc.child.kill('SIGKILL');
      throw new Error(`no ready line (exit ${proc.child.exitCode}): ${proc.stdout}\n${proc.stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `sandbay serve` with the given flags, once it is ready. */
export async function serveReady(
  args: string[],
): Promise<ServeProcess & { url: string; adminKey?: string; line: string }> {
  const proc = runCli(['serve', '--quiet', ...args]);
  const ready = await waitForReady(proc);
  return Object.assign(proc, ready);
}
