import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { processStatus } from '../shared/node/process-alive.ts';

/**
 * One running `sandbay serve`, as it registers itself for the CLI and `sandbay/testing` on this
 * machine: whatever its data dir, or none (--memory), they find it without flags.
 */
export interface RegisteredServer {
  /** The engine's own address (what the CLI on this machine calls). */
  url: string;
  /** What users see (--public-url), when it differs. */
  publicUrl?: string;
  port: number;
  pid: number;
  /**
   * The process's start time (processStatus): with the pid it names one process, so a recycled pid is not taken for it.
   */
  startTime?: string;
  instanceId: string;
  /** The data dir it was started with, absolute; null when it was given none and keeps no files (--memory). */
  dataDir: string | null;
  /** It keeps its data in memory (--memory), even when a data dir was named. */
  memory: boolean;
  /** The admin key, so the CLI of the same user can act on any sandbox (0600 file, 0700 folder), if known. */
  adminKey?: string;
  startedAt: string;
}

/**
 * Where running servers register, per user: Linux $XDG_STATE_HOME/sandbay/servers (default
 * ~/.local/state/sandbay/servers), macOS ~/Library/Application Support/Sandbay/servers, Windows
 * %LOCALAPPDATA%\Sandbay\servers. State, not data: it describes processes, never a sandbox.
 */
export function serverRegistryDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home = homedir(),
): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Sandbay', 'servers');
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'Sandbay', 'servers');
  return join(env.XDG_STATE_HOME || join(home, '.local', 'state'), 'sandbay', 'servers');
}

const entryFile = (dir: string, instanceId: string) => join(dir, `${instanceId}.json`);

/** Registers a running server (one file named by its instance id); returns its removal, for a clean stop. */
export function registerServer(
  server: Omit<RegisteredServer, 'startTime' | 'startedAt'>,
  env: NodeJS.ProcessEnv = process.env,
): () => void {
  const dir = serverRegistryDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const entry: RegisteredServer = {
    ...server,
    startTime: processStatus(server.pid).startTime,
    startedAt: new Date().toISOString(),
  };
  const file = entryFile(dir, server.instanceId);
  writeFileSync(file, JSON.stringify(entry, null, 2) + '\n', { mode: 0o600 });
  return () => rmSync(file, { force: true });
}

/** Whether a registered process still runs: a dead pid, or a pid now another process's, does not. */
function alive(entry: RegisteredServer): boolean {
  const status = processStatus(entry.pid);
  return status.running && (!entry.startTime || !status.startTime || status.startTime === entry.startTime);
}

/**
 * The servers registered and still running, oldest first. An entry whose process is gone (killed,
 * crashed: it could not remove its file) is removed on the way; an unreadable one is skipped.
 */
export function runningServers(env: NodeJS.ProcessEnv = process.env): RegisteredServer[] {
  const dir = serverRegistryDir(env);
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const servers: RegisteredServer[] = [];
  for (const name of names) {
    let entry: RegisteredServer;
    try {
      entry = JSON.parse(readFileSync(join(dir, name), 'utf8')) as RegisteredServer;
    } catch {
      continue; // being written, or not ours
    }
    if (alive(entry)) servers.push(entry);
    else rmSync(join(dir, name), { force: true });
  }
  return servers.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}
