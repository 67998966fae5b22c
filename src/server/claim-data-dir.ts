import { mkdirSync } from 'node:fs';
import { startSandboxPostgres } from './database.ts';
import { acquireLock } from './instance-lock.ts';

/** What an engine run owns before its database opens. */
export interface DataDirClaim {
  /** The database to use: the --database-url given, the managed server --postgres started, or none (PGlite). */
  databaseUrl?: string;
}

/**
 * Takes the data dir for one engine run (or one cluster of workers): its lock, and with --postgres
 * the PostgreSQL server Sandbay manages there. Each release goes onto `cleanups` (run in reverse).
 */
export async function claimDataDir(
  options: { dataDir?: string; instanceId: string; databaseUrl?: string; postgres?: boolean },
  cleanups: (() => void | Promise<void>)[],
): Promise<DataDirClaim> {
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    cleanups.push(await acquireLock(options.dataDir, options.instanceId));
  }
  if (!options.postgres || options.databaseUrl) return { databaseUrl: options.databaseUrl };
  const server = await startSandboxPostgres(options.dataDir);
  cleanups.push(() => server.stop());
  return { databaseUrl: server.url };
}
