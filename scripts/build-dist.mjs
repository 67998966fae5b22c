#!/usr/bin/env node
// `npm run build:dist` (also part of `prepack`): compiles the engine, the CLI, the receiver toolkit
// and sandbay/testing to dist/, the JavaScript a packed install runs (bin/sandbay.mjs, package exports).
//
// Test files and `npm pack` may build while others read dist/, so the output is compiled into
// a staging folder and only files whose bytes changed are swapped in, each by an atomic rename.
// Nothing is compiled when dist/ is newer than every source it is built from.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const dist = join(root, 'dist');
const stamp = join(dist, '.built');
// The Electron-only parts are bundled by electron-vite into out/, not compiled here.
const notCompiled = new Set(['main', 'preload', 'renderer']);

function files(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

function newestSource() {
  const inputs = readdirSync(join(root, 'src'))
    .filter((d) => !notCompiled.has(d))
    .flatMap((d) => files(join(root, 'src', d)));
  inputs.push(
    ...readdirSync(root)
      .filter((f) => /^tsconfig.*\.json$/.test(f))
      .map((f) => join(root, f)),
    import.meta.filename,
  );
  return Math.max(...inputs.map((f) => statSync(f).mtimeMs));
}

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.error('build:dist: TypeScript is a dev dependency: run `npm ci` (without --omit=dev) first');
  process.exit(1);
}

if (existsSync(stamp) && statSync(stamp).mtimeMs >= newestSource() && !process.argv.includes('--force'))
  process.exit(0);

const staging = join(root, '.cache', `dist-${process.pid}`);
try {
  for (const config of ['tsconfig.dist.json', 'tsconfig.testing.json']) {
    execFileSync(process.execPath, [tsc, '-p', config, '--outDir', staging], { cwd: root, stdio: 'inherit' });
  }
  const built = new Set();
  for (const file of files(staging)) {
    const target = join(dist, relative(staging, file));
    built.add(target);
    const bytes = readFileSync(file);
    if (existsSync(target) && readFileSync(target).equals(bytes)) continue;
    mkdirSync(dirname(target), { recursive: true });
    renameSync(file, target);
  }
  for (const file of files(dist)) if (!built.has(file) && file !== stamp) rmSync(file);
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
} finally {
  rmSync(staging, { recursive: true, force: true });
}
