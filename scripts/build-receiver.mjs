#!/usr/bin/env node
// `npm run build:receiver`: builds the receiver kit, `sandbay-receiver` (packages/receiver), from
// src/receiver and the shared modules it uses: one ES module and one CommonJS file, minified (the
// package stays a few kB), and declarations for each (.d.ts, and .d.cts for require). Nothing is
// bundled in but the project's own code: node:crypto is the only import, so it has no dependencies.
//
// Test files may build while others read the kit: the output is built into a staging folder and
// only changed files are swapped in, each by an atomic rename (as scripts/build-dist.mjs does).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..');
const dist = join(root, 'packages', 'receiver', 'dist');
const stamp = join(dist, '.built');
const entry = join(root, 'src', 'receiver', 'index.ts');

const files = (dir) =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name))
    : [];
const inputs = [
  ...files(join(root, 'src', 'receiver')),
  ...files(join(root, 'src', 'shared')),
  join(root, 'tsconfig.kit.json'),
  join(root, 'tsconfig.receiver.json'),
  import.meta.filename,
];
if (
  existsSync(stamp) &&
  statSync(stamp).mtimeMs >= Math.max(...inputs.map((f) => statSync(f).mtimeMs)) &&
  !process.argv.includes('--force')
)
  process.exit(0);

const staging = join(root, '.cache', `receiver-${process.pid}`);
try {
  const common = {
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: 'node22',
    minify: true,
    keepNames: true,
    legalComments: 'none',
    logLevel: 'warning',
  };
  await build({ ...common, format: 'esm', outfile: join(staging, 'index.js') });
  await build({ ...common, format: 'cjs', outfile: join(staging, 'index.cjs') });

  // Declarations: tsc's tree for import, kept to the files the public types reach, and the same
  // files as .d.cts (their imports pointing at .cjs) for require.
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const types = join(staging, 'types');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.kit.json', '--outDir', types], { cwd: root, stdio: 'inherit' });
  // tsc keeps the sources' .ts specifiers in declarations: .js for import, .cjs for require.
  const relativeImports = /((?:from\s+|import\()['"])(\.{1,2}\/[^'"]+)\.(?:ts|js)(['"])/g;
  const reached = new Set();
  const visit = (file) => {
    if (reached.has(file)) return;
    reached.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(relativeImports)) visit(join(dirname(file), `${m[2]}.d.ts`));
  };
  visit(join(types, 'receiver', 'index.d.ts'));
  for (const from of files(types)) {
    if (!reached.has(from)) {
      rmSync(from);
      continue;
    }
    const text = readFileSync(from, 'utf8');
    const to = join(staging, 'types-cjs', relative(types, from)).replace(/\.d\.ts$/, '.d.cts');
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(from, text.replace(relativeImports, '$1$2.js$3'));
    writeFileSync(to, text.replace(relativeImports, '$1$2.cjs$3'));
  }

  const built = new Set();
  for (const file of files(staging)) {
    const target = join(dist, relative(staging, file));
    built.add(target);
    if (existsSync(target) && readFileSync(target).equals(readFileSync(file))) continue;
    mkdirSync(dirname(target), { recursive: true });
    renameSync(file, target);
  }
  for (const file of files(dist)) if (!built.has(file) && file !== stamp) rmSync(file);
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
} finally {
  rmSync(staging, { recursive: true, force: true });
}
