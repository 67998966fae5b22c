#!/usr/bin/env node
// The checks `npm test` runs before the tests: `npm run typecheck` and `npm run lint`, side by side. Each is one
// process on one core (tsc, then Prettier, ESLint and knip), so run one after the other they left CI's second core
// idle for their whole time: about 126 s in a row, 96 s side by side on this 2-core box at load 4.
// Each one's output is printed whole when it ends, never interleaved; the exit code fails if either failed.
import { spawn } from 'node:child_process';

const checks = ['typecheck', 'lint'];

const results = await Promise.all(
  checks.map(
    (script) =>
      new Promise((resolve) => {
        const started = Date.now();
        const child = spawn('npm', ['run', script], { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (chunk) => (output += chunk));
        child.stderr.on('data', (chunk) => (output += chunk));
        child.on('close', (code) => {
          const took = Math.round((Date.now() - started) / 1000);
          process.stdout.write(`${output}# npm run ${script}: ${code === 0 ? 'passed' : 'FAILED'} in ${took} s\n`);
          resolve(code ?? 1);
        });
      }),
  ),
);
process.exit(results.find((code) => code !== 0) ?? 0);
