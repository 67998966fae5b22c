#!/usr/bin/env node
// Runs every tests/**/*.test.ts with node's test runner (Node 20 does not expand globs).
// Usage: node scripts/run-tests.mjs [dir-or-file ...]   (default: tests/)
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

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
// Each file starts its own engine (~0.5 s, ~300 MB); a few at a time keeps 2 cores busy
// without making the webhook timing tests flaky.
const concurrency = process.env.TEST_CONCURRENCY ?? '3';
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
