import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../shared/node/package-root.ts';
import { CliError } from '../errors.ts';
import { serve, type ServeFlags } from './serve.ts';

/**
 * The Electron binary, found the way the `electron` package finds it (path.txt + dist/)
 * without importing the package, whose index would try to download it.
 */
export function electronBinary(root = packageRoot()): string | undefined {
  const pkg = join(root, 'node_modules', 'electron');
  const pathFile = join(pkg, 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const binary = join(pkg, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : undefined;
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** Builds main, preload and renderer with electron-vite when the sources are newer than the build. */
export function ensureBuilt(root = packageRoot()): void {
  const marker = join(root, 'out', 'renderer', 'index.html');
  const sources = ['src/main', 'src/preload', 'src/renderer', 'src/shared']
    .map((d) => join(root, d))
    .filter(existsSync);
  if (existsSync(marker) && sources.every((d) => newestMtime(d) <= statSync(marker).mtimeMs)) return;
  process.stdout.write('Building the inspector UI (electron-vite build)…\n');
  const result = spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'],
    {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  if (result.status !== 0) throw new CliError('electron-vite build failed (see above)');
}

/** The one-line note `npm start` prints when it runs headless, or undefined to open the desktop window. */
export function headlessNote(headless: boolean | undefined, binary: string | undefined): string | undefined {
  if (!headless && binary) return undefined;
  const why = headless
    ? '--headless given'
    : 'no Electron binary in node_modules/electron (it cannot be downloaded here)';
  return `Running headless: ${why}. Open the URL below in a browser.`;
}

/** The flags the desktop app understands (src/main/flags.ts), passed on from `npm start -- …`. */
export function desktopArgs(flags: ServeFlags): string[] {
  return [
    '--port',
    flags.port,
    ...(flags.memory ? ['--memory'] : []),
    ...(flags.dataDir ? ['--data-dir', flags.dataDir] : []),
    ...(flags.otlpEndpoint ? ['--otlp-endpoint', flags.otlpEndpoint] : []),
  ];
}

/**
 * Electron's switch giving its main process, where the engine runs, the V8 flags `sandbay serve` gets from
 * bin/sandbay.mjs (package.json's sandbay.engineV8Flags): V8 reads them only at start-up.
 */
export function electronV8Switch(root = packageRoot()): string {
  const flags: string[] = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).sandbay.engineV8Flags;
  return `--js-flags=${flags.join(' ')}`;
}

/** `npm start`: the desktop window where Electron is installed, else the same UI headless. */
export async function start(flags: ServeFlags & { headless?: boolean }): Promise<void> {
  ensureBuilt();
  const binary = flags.headless ? undefined : electronBinary();
  const note = headlessNote(flags.headless, binary);
  if (note || !binary) return serve(flags, note);
  const child = spawn(binary, [electronV8Switch(), packageRoot(), ...desktopArgs(flags)], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
}
