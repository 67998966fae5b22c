import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { runCli, type ServeProcess } from './process.ts';

/**
 * A scratch data dir for `sandbay serve --postgres` tests, and a way to start serve processes that
 * are stopped (SIGTERM) and the dir removed once the test file ends, even when a test fails midway.
 */
export function useServeDataDir(prefix: string): { dataDir: string; start(args: string[]): ServeProcess } {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  // As root the managed server runs as the postgres user, which must be able to enter the data dir (mkdtemp makes it
  // 0700).
  chmodSync(dataDir, 0o755);
  const processes: ServeProcess[] = [];
  after(async () => {
    for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGTERM');
    await Promise.all(processes.map((p) => p.exited));
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    dataDir,
    start(args) {
      const proc = runCli(['serve', '--quiet', ...args]);
      processes.push(proc);
      return proc;
    },
  };
}
