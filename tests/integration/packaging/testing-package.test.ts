// sandbay/testing used the way a user's project uses it: packed with `npm pack`, installed
// into a scratch project outside the repo, and run from a test there.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { packageRoot } from '../../../src/shared/node/package-root.ts';
import { buildPackages } from '../../helpers/packages.ts';

const root = packageRoot();
const scratch = mkdtempSync(join(tmpdir(), 'sandbay-scratch-project-'));
after(() => process.env.KEEP_SCRATCH || rmSync(scratch, { recursive: true, force: true }));
const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_loglevel: 'error', npm_config_fund: 'false', npm_config_audit: 'false' } });

// The user's test, as the README shows it: a receiver built on sandbay/receiver, checked by sandbay/testing.
const userTest = `
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { createDeliveryDeduper, verifyWebhook } from 'sandbay/receiver';
import { checkReceiver, signTestHeader, startSandbox } from 'sandbay/testing';

const secret = 'whsec_scratchProjectSecret000000000';
let processed = 0;
const deliveries = createDeliveryDeduper();
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let event;
    try {
      event = verifyWebhook({ payload: Buffer.concat(chunks), header: req.headers['x-service-signature'], secret });
    } catch {
      return res.writeHead(400).end();
    }
    if (!deliveries.seen(event.deliveryId)) {
      processed++;
      deliveries.mark(event.deliveryId);
    }
    res.writeHead(200).end('ok');
  });
});

test('my receiver passes the Sandbay receiver check', async () => {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = 'http://127.0.0.1:' + server.address().port + '/hook';
  const sandbox = await startSandbox();
  try {
    const me = await fetch(sandbox.url + '/api/v1/sandbox', { headers: { authorization: 'Bearer ' + sandbox.token } });
    assert.equal((await me.json()).id, sandbox.sandboxId);
    const report = await checkReceiver({ url, secret, effects: () => processed, sandbox });
    assert.equal(report.failed, 0, JSON.stringify(report.cases.filter((c) => !c.ok)));
    assert.equal(report.cases.length, 15);
    const header = signTestHeader({ payload: '{"deliveryId":"dlv_x"}', secret });
    assert.equal(verifyWebhook({ payload: '{"deliveryId":"dlv_x"}', header, secret }).deliveryId, 'dlv_x');
  } finally {
    await sandbox.close();
    server.close();
  }
});
`;

test('a scratch project installs the packed tarball; its own test starts a sandbox, checks a receiver and passes', async () => {
  // What `npm pack` runs as prepare, done first so the pack itself needs no scripts.
  await buildPackages();
  const tarball = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], root))[0];
  const files: string[] = tarball.files.map((f: { path: string }) => f.path);
  for (const needed of ['dist/testing/index.js', 'dist/testing/index.d.ts', 'dist/receiver/index.js', 'src/db/migrations/031-receiver-check.sql', 'seed/products.json']) {
    assert.ok(files.includes(needed), `the tarball ships ${needed}`);
  }
  assert.ok(!files.some((f) => f.startsWith('tests/') || f.startsWith('node_modules/')), 'no tests or node_modules in the tarball');
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'scratch-receiver', private: true, type: 'module' }));
  npm(['install', '--prefer-offline', '--no-save', join(scratch, tarball.filename)], scratch);
  const shipped = readdirSync(join(scratch, 'node_modules', 'sandbay', 'dist'));
  for (const layer of ['receiver', 'testing', 'server', 'webhooks', 'db']) assert.ok(shipped.includes(layer), `dist/${layer} installed`);
  writeFileSync(join(scratch, 'receiver.test.mjs'), userTest);
  // Run as a user would: not as a child of this test runner (which would change the reporter's protocol).
  const { NODE_TEST_CONTEXT: _child, ...env } = process.env;
  const output = execFileSync(process.execPath, ['--test', 'receiver.test.mjs'], { cwd: scratch, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env });
  assert.match(output, /# pass 1\n# fail 0/);
});
