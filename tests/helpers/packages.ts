import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/node/package-root.ts';
import { withFileLock } from './file-lock.ts';

const root = packageRoot();
// Beside dist/, not in it: npm pack ships all of dist/.
const stamp = join(root, 'node_modules', '.cache', 'sandbay', 'packages.built');
const lock = join(root, 'node_modules', '.cache', 'sandbay', 'packages.lock');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Builds the published packages (sandbay/receiver and sandbay/testing: `npm run build:testing`,
 * what `npm ci` runs as prepare) from the current sources, once for all test files: a lock keeps
 * two files from writing dist/ at once, and a stamp skips the build when nothing changed.
 */
export async function buildPackages(): Promise<void> {
  await withFileLock(lock, () => {
    if (existsSync(stamp) && statSync(stamp).mtimeMs > newestSource(join(root, 'src'))) return;
    rmSync(join(root, 'dist'), { recursive: true, force: true }); // no stale files of moved sources get packed
    execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.testing.json'], { cwd: root, stdio: 'pipe' });
    writeFileSync(stamp, '');
  });
}
