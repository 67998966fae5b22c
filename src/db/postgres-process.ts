import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { RunAs } from './postgres-binaries.ts';

/** What a server run needs: its binaries, its cluster dir, and (as root) the user it runs as. */
export interface ClusterPlace {
  binDir: string;
  dir: string;
  runAs?: RunAs;
}

// English messages whatever the machine's locale: start-up is recognised by one of them.
const env = () => ({ ...process.env, LC_MESSAGES: 'C' });

function run(child: ChildProcess, what: string, remember: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk) => remember(String(chunk)));
    child.stderr?.on('data', (chunk) => remember(String(chunk)));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${what} exited with code ${code}`))));
  });
}

/** initdb on place.dir: a cluster whose `postgres` user has `password` (scram-sha-256). */
export async function initCluster(
  place: ClusterPlace,
  password: string,
  remember: (line: string) => void,
): Promise<void> {
  mkdirSync(place.dir, { recursive: true, mode: 0o700 });
  const pwfile = join(dirname(place.dir), `.sandbay-initdb-${process.pid}`);
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (place.runAs) for (const path of [place.dir, pwfile]) chownSync(path, place.runAs.uid, place.runAs.gid);
  try {
    const child = spawn(
      join(place.binDir, 'initdb'),
      [
        `--pgdata=${place.dir}`,
        '--auth=scram-sha-256',
        '--username=postgres',
        `--pwfile=${pwfile}`,
        '--encoding=UTF8',
        '--lc-messages=C',
      ],
      { ...place.runAs, env: env() },
    );
    await run(child, 'initdb', remember);
  } finally {
    rmSync(pwfile, { force: true });
  }
}

/** A running postgres process, a child of this one. */
export interface PostgresProcess {
  pid: number;
  stop(): Promise<void>;
}

/** Starts postgres on place.dir (loopback only, no Unix socket) and resolves once it accepts connections. */
export function startCluster(
  place: ClusterPlace,
  port: number,
  settings: string[],
  remember: (line: string) => void,
): Promise<PostgresProcess> {
  const child = spawn(
    join(place.binDir, 'postgres'),
    [
      '-D',
      place.dir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      ...settings,
    ],
    // A process group of its own: a signal to Sandbay's whole group (Ctrl-C, a service manager's SIGTERM)
    // reaches Sandbay alone, which closes its connections and then stops the server (`stop`, or its exit
    // handler). Had the server got it too, its backends would end under the pool mid-shutdown, logged as
    // "database connection lost: terminating connection due to administrator command".
    { ...place.runAs, env: env(), stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout.on('data', (chunk) => remember(String(chunk)));
    child.stderr.on('data', (chunk) => {
      remember(String(chunk));
      if (String(chunk).includes('database system is ready to accept connections')) {
        resolve({
          pid: child.pid!,
          async stop() {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT'); // "fast" shutdown
            await exited;
          },
        });
      }
    });
    // Cannot reject: exited only resolves (on close).
    void exited.then(() =>
      reject(new Error(`postgres exited with code ${child.exitCode} before accepting connections`)),
    );
  });
}
