import { closeSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../shared/node/process-alive.ts';

export const lockFile = (dataDir: string) => join(dataDir, 'sandbay.lock');
export const discoveryFile = (dataDir: string) => join(dataDir, 'server.json');

/** What the discovery file holds, so the CLI finds the running app without --url. */
export interface Discovery {
  url: string;
  pid: number;
  /** The admin key, so the CLI on this machine can act on any sandbox (file mode 0600). */
  adminKey: string;
}

export class DataDirLockedError extends Error {
  constructor(readonly holder: { pid: number; url?: string }) {
    super(
      `Another Sandbay (pid ${holder.pid}) is already using this data dir${holder.url ? ` at ${holder.url}` : ''}. ` +
        'Open that one, stop it, or pass --data-dir / --memory.',
    );
  }
}

/** Takes the data dir's lock (a stale one, left by a process that died, is taken over). */
export function acquireLock(dataDir: string): () => void {
  const file = lockFile(dataDir);
  for (let tries = 0; tries < 2; tries++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (pid && pid !== process.pid && processAlive(pid)) throw new DataDirLockedError({ pid, url: readDiscovery(dataDir)?.url });
      rmSync(file, { force: true });
    }
  }
  throw new Error(`cannot lock ${file}`);
}

export function writeDiscovery(dataDir: string, discovery: Discovery): () => void {
  const file = discoveryFile(dataDir);
  writeFileSync(file, JSON.stringify(discovery, null, 2) + '\n', { mode: 0o600 });
  return () => {
    if (readDiscovery(dataDir)?.pid === process.pid) rmSync(file, { force: true });
  };
}

export function readDiscovery(dataDir: string): Discovery | undefined {
  try {
    return JSON.parse(readFileSync(discoveryFile(dataDir), 'utf8')) as Discovery;
  } catch {
    return undefined;
  }
}
