// Redocly CLI lints the document the engine serves with its `recommended` ruleset (and the one
// rule redocly.yaml replaces, with its reason): 0 errors, 0 warnings.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { packageRoot } from '../../../src/shared/node/package-root.ts';
import { call, useEngine } from '../../helpers/engine.ts';

const engine = useEngine();

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

/** Runs `redocly lint` on a document with the project's redocly.yaml; returns its JSON report. */
async function lint(doc: unknown): Promise<LintReport> {
  const dir = await mkdtemp(join(tmpdir(), 'sandbay-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(doc));
    const root = packageRoot();
    const cli = join(root, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    // Exit code 1 means problems were found: the report says which.
    const run = promisify(execFile)(
      process.execPath,
      [cli, 'lint', '--config', join(root, 'redocly.yaml'), '--format=json', '--max-problems=1000', file],
      {
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    );
    const { stdout } = await run.catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
    return JSON.parse(stdout) as LintReport;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const listed = (report: LintReport) =>
  report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);

test('the served OpenAPI document passes Redocly lint (recommended): 0 errors, 0 warnings', async () => {
  const doc = (await call(engine.url, '/api/v1/openapi.json')).body;
  const report = await lint(doc);
  assert.deepEqual(listed(report), []);
  assert.deepEqual(report.totals, { ...report.totals, errors: 0, warnings: 0 });
});

test('the lint bites: an operation without its 4xx responses, and one without a 2xx, are reported', async () => {
  const doc = structuredClone((await call(engine.url, '/api/v1/openapi.json')).body);
  const health = doc.paths['/api/v1/health'].get;
  for (const status of Object.keys(health.responses)) if (status.startsWith('4')) delete health.responses[status];
  delete doc.paths['/api/v1/orders'].post.responses['201'];
  const rules = (await lint(doc)).problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}`).sort();
  assert.deepEqual(rules, [
    'operation-4xx-response #/paths/~1api~1v1~1health/get/responses',
    'rule/operation-2xx-response #/paths/~1api~1v1~1orders/post/responses',
  ]);
});
