import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

// The entry point refuses a Node older than package.json's engines before it loads anything else.
// The Node running it is stubbed by a preload that rewrites process.versions.node (no download).
const bin = fileURLToPath(new URL('../../bin/sandbay.mjs', import.meta.url));
const needed = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).engines.node;

/** `node bin/sandbay.mjs --version` as if Node were `version`. */
function runAs(version: string, node = process.execPath) {
  const stub = `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '${version}' } });`;
  return runWith(node, ['--import', `data:text/javascript,${encodeURIComponent(stub)}`]);
}

function runWith(node: string, flags: string[] = []) {
  const result = spawnSync(node, [...flags, bin, '--version'], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const refusal = (found: string) =>
  `sandbay: Node ${found} is too old: Sandbay needs Node ${needed} (https://nodejs.org)\n`;

test('package.json names the minimum this test stubs around', () => {
  assert.equal(needed, '>=22.12');
});

test('a Node older than engines fails at once with the version found and the one needed', () => {
  for (const version of ['20.20.0', '22.11.9', '22.9.0', '18.0.0']) {
    const result = runAs(version);
    assert.deepEqual(result, { code: 1, stdout: '', stderr: refusal(version) }, version);
  }
});

test('engines itself and anything newer run', () => {
  for (const version of ['22.12.0', '22.13.1', '24.0.0', '100.0.0']) {
    const result = runAs(version);
    assert.equal(result.code, 0, `${version}: ${result.stderr}`);
    assert.match(result.stdout, /^\d+\.\d+\.\d+/);
  }
});

test("this machine's own older Node, when it has one, gets the same refusal", () => {
  // CI's image has /usr/bin/node 20 beside the Node 24 that runs the suite; elsewhere there may be none.
  const system = '/usr/bin/node';
  if (!existsSync(system)) return;
  const version = spawnSync(system, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
  const major = Number(version.split('.')[0]);
  const result = runWith(system);
  if (major < 22) assert.deepEqual(result, { code: 1, stdout: '', stderr: refusal(version) });
  else assert.equal(result.code, 0, result.stderr);
});
