import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { topicCategories, topics } from '../../src/shared/topics.ts';
import { runCli, runCliJson } from '../helpers/cli.ts';

const cliBin = fileURLToPath(new URL('../../bin/sandbay.mjs', import.meta.url));

test('sandbay topics lists the 33 topics by category, with no running Sandbay and no token', async () => {
  const result = await runCli(['topics']);
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.trimEnd().split('\n');
  assert.match(lines[0], /^CATEGORY\s+TOPICS$/);
  for (const [category, names] of Object.entries(topicCategories)) {
    assert.ok(
      lines.includes(`${category.padEnd('saved_report'.length)}  ${names.join(', ')}`),
      `${category} line in\n${result.stdout}`,
    );
  }
  assert.match(lines.at(-1)!, /^33 topics\. /);
});

test('sandbay topics --json is the API list shape: { data: [{ topic, category }] }', async () => {
  const { data } = await runCliJson(['topics']);
  assert.equal(data.length, 33);
  assert.deepEqual(
    data.map((t: { topic: string }) => t.topic),
    topics,
  );
  assert.deepEqual(
    data.find((t: { topic: string }) => t.topic === 'consent.iys.push_due'),
    { topic: 'consent.iys.push_due', category: 'security' },
  );
});

test('a reader that closes the pipe early ends the CLI quietly, exit 0 (sandbay topics | head -1)', async () => {
  const child = spawn(process.execPath, [cliBin, 'topics'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SANDBAY_URL: '', SANDBAY_TOKEN: '' },
  });
  child.stdout.destroy(); // closed before the CLI writes its first line
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const [code] = await once(child, 'exit');
  assert.equal(stderr, '');
  assert.equal(code, 0);
});
