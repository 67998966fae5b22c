// `npm pack` (or `npm publish`) run inside packages/receiver builds the kit first (its prepack), so a
// package packed there is never without dist/; and the sizes docs/receivers/node.md gives are the packed kit's.
// The pack runs in a copy of what the build reads, with no dist/ yet: the tree's own dist/ is left alone
// for the tests that read it meanwhile.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { packageRoot } from '../../src/shared/node/package-root.ts';

const root = packageRoot();
const copy = realpathSync(mkdtempSync(join(tmpdir(), 'sandbay-receiver-pack-')));
after(() => rmSync(copy, { recursive: true, force: true }));

// npm test's own npm_* variables (lifecycle, config) must not steer the npm run inside it.
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

interface PackedFile {
  path: string;
  size: number;
}
let packed: { size: number; unpackedSize: number; files: PackedFile[] };

before(async () => {
  for (const path of [
    'src/receiver',
    'src/shared',
    'scripts/build-receiver.mjs',
    'package.json', // "type": "module", which tsc reads the sources by
    'tsconfig.base.json',
    'tsconfig.receiver.json',
    'tsconfig.kit.json',
    'packages/receiver/package.json',
    'packages/receiver/README.md',
  ])
    cpSync(join(root, path), join(copy, path), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  mkdirSync(join(copy, 'out'));
  const { stdout } = await promisify(execFile)('npm', ['pack', '--json', '--pack-destination', join(copy, 'out')], {
    cwd: join(copy, 'packages', 'receiver'),
    env,
    maxBuffer: 16 * 1024 * 1024,
  });
  // npm prints the prepack script's own output before the JSON.
  packed = JSON.parse(stdout.slice(stdout.indexOf('[')))[0];
});

test('npm pack in packages/receiver builds dist/ first: ESM, CommonJS and both declarations are in the tarball', () => {
  const paths = packed.files.map((f) => f.path);
  for (const needed of [
    'dist/index.js',
    'dist/index.cjs',
    'dist/types/receiver/index.d.ts',
    'dist/types-cjs/receiver/index.d.cts',
  ])
    assert.ok(paths.includes(needed), `${needed} is packed (${paths.join(', ')})`);
});

test("the sizes docs/receivers/node.md states are the packed kit's, within 10 %", () => {
  const docs = readFileSync(join(root, 'docs', 'receivers', 'node.md'), 'utf8').replace(/\s+/g, ' ');
  const stated =
    /about ([\d.]+) kB of minified JavaScript per format \(([\d.]+) kB gzipped\), a ([\d.]+) kB tarball, ([\d.]+) kB unpacked/.exec(
      docs,
    );
  assert.ok(stated, 'docs/receivers.md states the sizes in the sentence this test reads');
  const esm = packed.files.find((f) => f.path === 'dist/index.js')!;
  const measured = {
    'minified JavaScript per format': esm.size,
    gzipped: gzipSync(readFileSync(join(copy, 'packages', 'receiver', 'dist', 'index.js'))).length,
    tarball: packed.size,
    unpacked: packed.unpackedSize,
  };
  Object.entries(measured).forEach(([what, bytes], i) => {
    const kB = Number(stated[i + 1]) * 1000;
    assert.ok(Math.abs(bytes - kB) <= kB / 10, `${what}: the docs say ${stated[i + 1]} kB, the kit is ${bytes} bytes`);
  });
});
