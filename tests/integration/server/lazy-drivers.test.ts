// An engine loads only the database driver it runs on (src/server/database.ts imports each once chosen): on
// PGlite, pg and its kin are never loaded; importing the engine loads neither driver.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const start = fileURLToPath(new URL('../../../src/server/start.ts', import.meta.url));

/** The modules a child process resolves while importing the engine, and after starting one in memory and closing it. */
function modulesLoaded(): { imported: string[]; ran: string[] } {
  const probe = `
    import { registerHooks } from 'node:module';
    const loaded = [];
    registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); loaded.push(r.url); return r; } });
    const { startSandbox } = await import(${JSON.stringify(start)});
    const imported = [...loaded];
    const engine = await startSandbox({ memory: true, port: 0, logRequests: false, logger: { info() {}, warn() {}, error() {} } });
    await engine.close();
    process.stdout.write(JSON.stringify({ imported, ran: loaded }));`;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', probe], {
    encoding: 'utf8',
    env: { ...process.env, SANDBAY_DATABASE_URL: undefined },
  });
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout);
}

const pgDriver = (url: string) => /\/node_modules\/(pg|pg-listen|pg-format|pg-protocol|pg-pool)\//.test(url);
const pgliteDriver = (url: string) => /\/node_modules\/@electric-sql\/pglite\//.test(url);

test('an engine on PGlite never loads pg; importing the engine loads neither driver', () => {
  const { imported, ran } = modulesLoaded();
  assert.ok(
    imported.some((u) => u.endsWith('/src/server/start.ts')),
    'the probe saw the imports',
  );
  assert.deepEqual(imported.filter(pgDriver), [], 'pg on import');
  assert.deepEqual(imported.filter(pgliteDriver), [], 'PGlite on import');
  assert.ok(ran.some(pgliteDriver), 'PGlite once the engine runs on it');
  assert.deepEqual(ran.filter(pgDriver), [], 'pg while running on PGlite');
});
