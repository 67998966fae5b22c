import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../shared/node/process-alive.ts';

/**
 * A Sandbay killed with SIGKILL leaves its PostgreSQL server running, holding the cluster dir
 * (postmaster.pid), so the next start could not start one. Sandbay's data-dir lock guarantees no
 * live Sandbay owns that server any more: stop it ("fast" shutdown) and wait until it is gone.
 */
export async function stopOrphanedServer(dir: string, timeoutMs = 15_000): Promise<void> {
  const pidFile = join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isPostgres(pid)) return; // stale file: postgres itself copes
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + timeoutMs;
  while (processAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`a PostgreSQL server left running on ${dir} (pid ${pid}) did not stop`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Whether pid is a PostgreSQL server (on Linux by its command line; elsewhere, any live process). */
function isPostgres(pid: number): boolean {
  if (!processAlive(pid)) return false;
  try {
    return /postgres/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return process.platform !== 'linux';
  }
}
