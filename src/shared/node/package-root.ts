import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root (the folder holding package.json), found from this module's own
 * location so it works from src/ under tsx, from the electron-vite bundle in out/,
 * and inside a packaged app.asar alike.
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'sandbay') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the sandbay package root');
    dir = parent;
  }
}

/** The version in the package's own package.json (what `sandbay --version` and GET /api/v1/health say). */
export const packageVersion = (): string =>
  JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).version;
