import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

/**
 * The layering of docs/decisions/imports-run-one-way.md: each top-level folder of src/ and the folders of src/
 * it may import. Imports run one way; a folder missing here is a layer nobody has placed yet.
 */
const mayImport: Record<string, readonly string[]> = {
  main: ['server', 'preload', 'shared'],
  cli: ['server', 'receiver', 'shared'],
  testing: ['server', 'webhooks', 'receiver', 'shared'],
  server: ['domain', 'webhooks', 'schedule', 'db', 'receiver', 'shared'],
  domain: ['webhooks', 'schedule', 'db', 'receiver', 'shared'],
  webhooks: ['schedule', 'db', 'receiver', 'shared'],
  schedule: ['db', 'receiver', 'shared'],
  db: ['receiver', 'shared'],
  receiver: ['shared'],
  renderer: ['shared'],
  preload: ['shared'],
  shared: [],
};
/** Only the Electron glue may load Electron: everything else runs in plain Node and in tests. */
const mayImportElectron = new Set(['main', 'preload']);
/** src/shared/node holds the shared code that needs Node; the browser side never loads it. */
const nodeOnlyShared = join('shared', 'node') + sep;
const browserLayers = new Set(['renderer', 'preload']);

const src = resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts)$/.test(entry.name) ? [path] : [];
  });
}

const layerOf = (file: string) => relative(src, file).split(sep)[0];

/** Every import, re-export and literal dynamic import of each file under src/, as "file -> specifier" problems. */
function layeringViolations(): string[] {
  const problems: string[] = [];
  for (const file of sourceFiles(src)) {
    const layer = layerOf(file);
    const where = relative(src, file);
    const allowed = mayImport[layer];
    if (!allowed) {
      problems.push(`${where}: src/${layer} has no place in the layering`);
      continue;
    }
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName: spec } of importedFiles) {
      if (spec === 'electron' || spec.startsWith('electron/')) {
        if (!mayImportElectron.has(layer)) problems.push(`${where} -> ${spec} (only main and preload load Electron)`);
        continue;
      }
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      const targetLayer = target.startsWith(src + sep) ? layerOf(target) : undefined;
      if (browserLayers.has(layer) && relative(src, target).startsWith(nodeOnlyShared)) {
        problems.push(`${where} -> ${spec} (src/shared/node is for Node only)`);
        continue;
      }
      if (targetLayer === layer) continue;
      if (!targetLayer || !allowed.includes(targetLayer)) {
        problems.push(`${where} -> ${spec} (${layer} may import ${allowed.join(', ') || 'nothing of the project'})`);
      }
    }
  }
  return problems;
}

test('imports under src/ run one way, as the layering in docs/decisions/imports-run-one-way.md says', () => {
  assert.deepEqual(layeringViolations(), []);
});

test('the layering check sees static, type-only, re-exported and dynamic imports', () => {
  const seen = ts
    .preProcessFile(
      [
        "import type { A } from '../server/a.ts';",
        "export { b } from '../db/b.ts';",
        "const c = await import('../domain/c.ts');",
        "import '../webhooks/d.ts';",
      ].join('\n'),
      true,
      true,
    )
    .importedFiles.map((f) => f.fileName);
  assert.deepEqual(seen, ['../server/a.ts', '../db/b.ts', '../domain/c.ts', '../webhooks/d.ts']);
});
