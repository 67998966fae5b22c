import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/node/package-root.ts';

export interface Child {
  url: string;
  /** The admin key, for Sandbay itself. */
  adminKey?: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts a server process and waits for the line that carries its URL. */
function startChild(args: string[], pattern: RegExp, nodeArgs: string[] = []): Promise<Child> {
  const extra = process.env.BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? []; // e.g. --cpu-prof, to profile the server
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, ...extra, ...args], {
    cwd: packageRoot(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const exited = (code: number | null) => reject(new Error(`${args.join(' ')} exited with ${code}: ${out}`));
    child.once('exit', exited);
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const m = pattern.exec(out);
      if (!m) return;
      child.removeListener('exit', exited);
      resolve({
        url: m[1],
        adminKey: m[2],
        pid: child.pid!,
        stop: () =>
          new Promise((done) => {
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/** `sandbay serve --memory` on a free port, with more flags if given (e.g. --database-url, --workers). */
export const startSandbay = (flags: string[] = []) =>
  startChild(
    [join('bin', 'sandbay.mjs'), 'serve', '--memory', '--port', '0', '--quiet', ...flags],
    /(http:\/\/127\.0\.0\.1:\d+)\/\?key=(\S+)/,
  );

/**
 * One of the ceiling servers in tests/bench/servers (`nodeArgs`: flags for its Node, e.g.
 * --unhandled-rejections=strict).
 */
export const startCeiling = (name: string, nodeArgs: string[] = []) =>
  startChild(
    ['--import', 'tsx', join('tests', 'bench', 'servers', `${name}.ts`)],
    /ready (http:\/\/127\.0\.0\.1:\d+)/,
    nodeArgs,
  );

/** Runs a script to completion and returns its stdout. */
export function runScript(script: string, args: string[]): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: packageRoot(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${script} exited ${code}`)))),
  );
}
