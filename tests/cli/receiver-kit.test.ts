// The receiver kit as its own package: `npm run pack:receiver` packs sandbay-receiver, which installs
// into an empty project with nothing else (no dependencies, no install scripts, well under 1 MB), works
// from ESM and CommonJS with types, and verifies a real delivery in a receiver built on it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import ts from 'typescript';
import { packageRoot } from '../../src/shared/node/package-root.ts';
import { createSandbox, useEngine } from '../helpers/engine.ts';
import { useReceiverProcesses } from '../helpers/receiver-process.ts';
import { placeOrder, registerEndpoint, waitForDelivery } from '../helpers/webhooks.ts';

const root = packageRoot();
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'sandbay-receiver-kit-')));
const app = join(scratch, 'app');
after(() => rmSync(scratch, { recursive: true, force: true }));
const engine = useEngine();
const start = useReceiverProcesses();

// npm test's own npm_* variables (lifecycle, config) must not steer the npm runs inside it.
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
const run = promisify(execFile);
const npm = (args: string[], cwd: string) => run('npm', args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });

let tarball = '';
let installOutput = '';
before(async () => {
  await npm(['run', 'build:receiver'], root);
  await npm(['pack', './packages/receiver', '--pack-destination', scratch], root);
  tarball = join(
    scratch,
    readdirSync(scratch).find((f) => f.endsWith('.tgz'))!,
  );
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'empty-project', private: true, type: 'module' }));
  // --offline: the kit has no dependencies, so nothing may need the registry.
  const installed = await npm(['install', '--offline', '--no-audit', '--no-fund', tarball], app);
  installOutput = installed.stdout + installed.stderr;
});

test(`the tarball is sandbay-receiver ${version}: bundled ESM and CommonJS, declarations for both, no dependencies, no scripts`, async () => {
  const { stdout } = await run('tar', ['-tzf', tarball]);
  const files = stdout
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ''))
    .sort();
  for (const needed of [
    'package.json',
    'README.md',
    'dist/index.js',
    'dist/index.cjs',
    'dist/types/receiver/index.d.ts',
    'dist/types-cjs/receiver/index.d.cts',
  ]) {
    assert.ok(files.includes(needed), `${needed} is in the package`);
  }
  assert.deepEqual(
    files.filter(
      (f) =>
        !/^(package\.json|README\.md|dist\/index\.c?js|dist\/types\/.+\.d\.ts|dist\/types-cjs\/.+\.d\.cts)$/.test(f),
    ),
    [],
  );
  const manifest = JSON.parse(readFileSync(join(app, 'node_modules', 'sandbay-receiver', 'package.json'), 'utf8'));
  assert.equal(manifest.name, 'sandbay-receiver');
  assert.equal(manifest.version, version, 'versioned with the main package');
  assert.equal(manifest.dependencies, undefined);
  assert.deepEqual(
    Object.keys(manifest.scripts),
    ['prepack'],
    'no install scripts: prepack runs only where it is packed',
  );
  assert.doesNotMatch(installOutput, /install-scripts|EBADENGINE|deprecated|WARN/i, installOutput);
});

test('it installs into an empty project with nothing else: node_modules holds only it, under 1 MB by du', async () => {
  assert.deepEqual(
    readdirSync(join(app, 'node_modules')).filter((f) => !f.startsWith('.')),
    ['sandbay-receiver'],
  );
  const { stdout } = await run('du', ['-sk', join(app, 'node_modules')]);
  const kb = Number(stdout.split('\t')[0]);
  assert.ok(kb < 1024, `node_modules is ${kb} kB by du`);
});

test('import and require give the same API; the main package re-exports it as sandbay/receiver', async () => {
  const esm = await run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "const k = await import('sandbay-receiver'); console.log(Object.keys(k).sort().join())",
    ],
    { cwd: app, env },
  );
  const cjs = await run(
    process.execPath,
    [
      '--input-type=commonjs',
      '-e',
      "const k = require('sandbay-receiver'); console.log(Object.keys(k).filter((n) => n !== '__esModule').sort().join())",
    ],
    { cwd: app, env },
  );
  const names = esm.stdout.trim();
  assert.equal(cjs.stdout.trim(), names);
  assert.deepEqual(names.split(','), [
    'WebhookVerificationError',
    'createDeliveryDeduper',
    'echoHeaderName',
    'sandbayScheme',
    'schemes',
    'signTestHeader',
    'signTestHeaders',
    'signatureHeaderName',
    'standardEd25519Scheme',
    'standardScheme',
    'verifyWebhook',
  ]);
  const main = await import('../../src/receiver/index.ts');
  assert.deepEqual(Object.keys(main).sort().join(), names, 'sandbay/receiver is the same kit');
});

test('its declarations type-check for an ESM and a CommonJS consumer (NodeNext)', () => {
  const consumers: Record<string, string> = {
    [join(app, 'esm-consumer.mts')]: "import { verifyWebhook, type WebhookEnvelope } from 'sandbay-receiver';\n",
    [join(app, 'cjs-consumer.cts')]:
      "import kit = require('sandbay-receiver');\nconst verifyWebhook = kit.verifyWebhook;\ntype WebhookEnvelope<D> = kit.WebhookEnvelope<D>;\n",
  };
  const body = [
    "const envelope: WebhookEnvelope<{ orderId: string }> = verifyWebhook<{ orderId: string }>({ payload: Buffer.from('{}'), headers: { 'x-service-signature': 't=1,v1=a' }, secret: 'whsec_x' });",
    'const orderId: string = envelope.data.orderId;',
    '// @ts-expect-error the types are real, not any',
    'const wrong: number = envelope.topic + orderId;',
    'export {};',
  ].join('\n');
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    types: ['node'],
    typeRoots: [join(root, 'node_modules', '@types')],
  };
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  const sources = Object.fromEntries(Object.entries(consumers).map(([f, head]) => [f, head + body]));
  host.fileExists = (f) => f in sources || fileExists(f);
  host.readFile = (f) => sources[f] ?? readFile(f);
  host.getSourceFile = (f, lang, ...rest) =>
    f in sources ? ts.createSourceFile(f, sources[f], lang) : getSourceFile(f, lang, ...rest);
  const program = ts.createProgram(Object.keys(sources), options, host);
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  assert.deepEqual(diagnostics, []);
  const resolved = program.getSourceFiles().map((f) => f.fileName);
  assert.ok(
    resolved.some((f) => f.endsWith('sandbay-receiver/dist/types/receiver/index.d.ts')),
    'import resolves to the .d.ts',
  );
  assert.ok(
    resolved.some((f) => f.endsWith('sandbay-receiver/dist/types-cjs/receiver/index.d.cts')),
    'require resolves to the .d.cts',
  );
});

// A user's receiver in that project, as the receivers docs write it: raw body, verifyWebhook, dedupe.
const receiver = `
import { createServer } from 'node:http';
import { createDeliveryDeduper, verifyWebhook, WebhookVerificationError } from 'sandbay-receiver';

const secret = process.env.SANDBAY_WEBHOOK_SECRET;
const deliveries = createDeliveryDeduper();
const seen = [];
createServer((req, res) => {
  if (req.method === 'GET') return res.end(JSON.stringify(seen));
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let event;
    try {
      event = verifyWebhook({ payload: Buffer.concat(chunks), headers: req.headers, secret });
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      return res.writeHead(400, { 'Sandbay-Echo': err.echo }).end(err.reason);
    }
    if (!deliveries.seen(event.deliveryId)) {
      seen.push(event.topic + ' ' + event.data.orderId);
      deliveries.mark(event.deliveryId);
    }
    res.writeHead(200).end('ok');
  });
}).listen(Number(process.env.PORT), '127.0.0.1');
`;

test('a receiver built on the installed kit verifies a real delivery from Sandbay, and rejects one with another secret', async () => {
  writeFileSync(join(app, 'receiver.mjs'), receiver);
  const sb = await createSandbox(engine.url);
  const endpoint = await registerEndpoint(sb, 'http://127.0.0.1:9/placeholder', ['order.placed']);
  const { url } = await start(app, () => [process.execPath, ['receiver.mjs']], {
    ...env,
    SANDBAY_WEBHOOK_SECRET: endpoint.secret,
  });
  await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}`, { method: 'PATCH', body: { url } });
  const order = await placeOrder(sb);
  const list = await sb.api(`/api/v1/webhooks/deliveries?endpointId=${endpoint.id}`);
  const delivered = await waitForDelivery(sb, list.body.data[0].id, (d) => d.status !== 'pending');
  assert.equal(delivered.status, 'succeeded', JSON.stringify(delivered.attempts));
  assert.deepEqual(JSON.parse(await (await fetch(url)).text()), [`order.placed ${order.id}`]);

  // Signed with the sandbox's test secret instead: rejected, with an echo of what it verified.
  const test = await sb.api('/api/v1/webhooks/test', {
    body: { topic: 'order.placed', endpoint: url.replace('/hook', '/other') },
  });
  const rejected = await waitForDelivery(sb, test.body.deliveryId, (d) => d.attempts.length > 0);
  assert.equal(rejected.attempts[0].responseStatus, 400);
  assert.equal(rejected.attempts[0].responseBody, 'no_matching_signature');
  assert.match(
    rejected.attempts[0].responseHeaders['sandbay-echo'],
    /^length=\d+,sha256=[0-9a-f]{64},v1=[0-9a-f]{64},t=\d+,body=/,
  );
});
