import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { desktopArgs, electronBinary, electronV8Switch, headlessNote } from '../../src/cli/commands/start.ts';
import { desktopOptions } from '../../src/main/flags.ts';
import { packageRoot } from '../../src/shared/node/package-root.ts';

const root = mkdtempSync(join(tmpdir(), 'sandbay-electron-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('electronBinary() finds the binary through path.txt and dist/, without importing electron', () => {
  const pkg = join(root, 'node_modules', 'electron');
  assert.equal(electronBinary(root), undefined, 'no electron package');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'path.txt'), 'electron\n');
  assert.equal(electronBinary(root), undefined, 'path.txt but no downloaded dist/');
  mkdirSync(join(pkg, 'dist'));
  writeFileSync(join(pkg, 'dist', 'electron'), '');
  assert.equal(electronBinary(root), join(pkg, 'dist', 'electron'));
});

test('here the Electron binary cannot be downloaded, so npm start runs headless and says why', () => {
  assert.equal(electronBinary(), undefined);
  const note = headlessNote(false, electronBinary());
  assert.match(note ?? '', /^Running headless: no Electron binary/);
  assert.ok(!note!.includes('\n'), 'one line');
});

test('--headless forces headless even with a binary; a binary alone opens the desktop window', () => {
  assert.match(headlessNote(true, '/opt/electron') ?? '', /--headless given/);
  assert.equal(headlessNote(false, '/opt/electron'), undefined);
});

test('npm start -- flags reach the desktop app, which reads them with the same meaning', () => {
  const flags = { port: '0', host: '127.0.0.1', allowHost: [], memory: true };
  assert.deepEqual(desktopArgs(flags), ['--port', '0', '--memory']);
  assert.deepEqual(desktopOptions(desktopArgs(flags)), { port: 0, memory: true, dataDir: undefined });
  const onDisk = desktopOptions(desktopArgs({ port: '4500', host: '127.0.0.1', allowHost: [], dataDir: '/tmp/sb' }));
  assert.deepEqual(onDisk, { port: 4500, memory: false, dataDir: '/tmp/sb' });
});

test("Electron's main process, where the desktop app's engine runs, gets the V8 flags `sandbay serve` gets", () => {
  const { engineV8Flags } = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).sandbay;
  assert.ok(engineV8Flags.length > 0);
  assert.equal(electronV8Switch(), `--js-flags=${engineV8Flags.join(' ')}`);
  const withIt = ['--js-flags=--max-semi-space-size=4', '/opt/sandbay', '--port', '0', '--memory'];
  assert.deepEqual(desktopOptions(withIt), { port: 0, memory: true, dataDir: undefined }, 'the switch is no app flag');
});
