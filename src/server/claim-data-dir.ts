import { mkdirSync } from 'node:fs';
import { basename } from 'node:path';
import { binariesCopyPrefix } from '../db/postgres-binaries.ts';
import { makePrivate } from '../shared/node/private-files.ts';
import { startSandboxPostgres } from './database.ts';
import { acquireLock } from './instance-lock.ts';

/** What an engine run owns before its database opens. */
export interface DataDirClaim {
  /** The database to use: the --database-url given, the managed server --postgres started, or none (PGlite). */
  databaseUrl?: string;
  /** The one line to log when an existing data dir others could read was made owner-only. */
  tightened?: string;
}

/**
 * Takes the data dir for one engine run (or one cluster of workers): its lock, and with --postgres
 * the PostgreSQL server Sandbay manages there. Each release goes onto `cleanups` (run in reverse).
 */
export async function claimDataDir(
  options: { dataDir?: string; instanceId: string; databaseUrl?: string; postgres?: boolean },
  cleanups: (() => void | Promise<void>)[],
): Promise<DataDirClaim> {
  let tightened: string | undefined;
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    // A copy of PostgreSQL's binaries (as root, for the `postgres` user) is programs, not data.
    const changed = makePrivate(options.dataDir, (path) => basename(path).startsWith(binariesCopyPrefix));
    if (changed)
      tightened = `data dir ${options.dataDir}: ${changed} files and folders other users could read are now yours alone (0700 folders, 0600 files)`;
    cleanups.push(await acquireLock(options.dataDir, options.instanceId));
  }
  if (!options.postgres || options.databaseUrl) return { databaseUrl: options.databaseUrl, tightened };
  const server = await startSandboxPostgres(options.dataDir);
  cleanups.push(() => server.stop());
  return { databaseUrl: server.url, tightened };
}
