// `npm run build:ui` (also `prepack`): builds the inspector UI and the desktop bundle (out/) with
// electron-vite when their sources are newer than the build, under a lock file, because test
// files and `npm pack` may ask at once and two builds writing out/ together leave a broken UI.
import { closeSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt } from '../src/cli/commands/start.ts';
import { packageRoot } from '../src/shared/node/package-root.ts';

const buildLock = join(packageRoot(), 'out', '.build.lock');

/** ensureBuilt() under out/.build.lock; a lock older than 5 minutes was left by a killed build. */
export async function buildOnce(): Promise<void> {
  mkdirSync(join(packageRoot(), 'out'), { recursive: true });
  for (;;) {
    try {
      closeSync(openSync(buildLock, 'wx'));
      break;
    } catch {
      try {
        if (Date.now() - statSync(buildLock).mtimeMs > 300_000) rmSync(buildLock, { force: true });
      } catch {
        // the holder just released it
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    ensureBuilt();
  } finally {
    rmSync(buildLock, { force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await buildOnce();
