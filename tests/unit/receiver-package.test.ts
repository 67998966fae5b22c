import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, test } from 'node:test';
import ts from 'typescript';
import { packageRoot } from '../../src/shared/node/package-root.ts';
import { buildPackages } from '../helpers/packages.ts';
import { signatureVectors } from '../helpers/vectors.ts';

type ReceiverModule = typeof import('../../src/receiver/index.ts');

const root = packageRoot();
// A variable specifier keeps `tsc --noEmit` from needing dist/ before it is built.
const packageName = 'sandbay/receiver';

// Build from the current sources (what `npm pack` does through `prepack`), swapped in atomically.
before(() => buildPackages());

test('the built package is importable by its name and verifies the reference vectors', async () => {
  const receiver = (await import(packageName)) as ReceiverModule;
  for (const c of signatureVectors.cases) {
    assert.deepEqual(
      receiver.verifyWebhook({ payload: c.body, header: c.header, secret: c.secret, now: c.t }),
      JSON.parse(c.body),
    );
  }
  assert.throws(
    () => receiver.verifyWebhook({ payload: '{}', header: undefined, secret: 's' }),
    (err: unknown) => err instanceof receiver.WebhookVerificationError && err.reason === 'no_header',
  );
  assert.equal(typeof receiver.createDeliveryDeduper, 'function');
  assert.equal(receiver.signatureHeaderName, 'X-Service-Signature');
  assert.equal((await import('sandbay' as string)).verifyWebhook, receiver.verifyWebhook);
});

test('its .d.ts types resolve through package exports for a NodeNext consumer', () => {
  const consumer = join(root, '__receiver_consumer__.ts');
  const source = [
    "import { verifyWebhook, createDeliveryDeduper, type WebhookEnvelope } from 'sandbay/receiver';",
    "const envelope: WebhookEnvelope<{ orderId: string }> = verifyWebhook<{ orderId: string }>({ payload: Buffer.from('{}'), header: 'h', secret: ['a', 'b'] });",
    'const orderId: string = envelope.data.orderId;',
    'createDeliveryDeduper({ ttlSeconds: 60 }).mark(envelope.deliveryId + orderId);',
    '// @ts-expect-error the types are real, not any',
    'const wrong: number = envelope.topic;',
  ].join('\n');
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    types: ['node'],
  };
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (f) => f === consumer || fileExists(f);
  host.readFile = (f) => (f === consumer ? source : readFile(f));
  host.getSourceFile = (f, lang, ...rest) =>
    f === consumer ? ts.createSourceFile(f, source, lang) : getSourceFile(f, lang, ...rest);
  const program = ts.createProgram([consumer], options, host);
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  assert.deepEqual(diagnostics, []);
  assert.ok(
    program.getSourceFiles().some((f) => f.fileName.endsWith('dist/receiver/index.d.ts')),
    'resolved to the built declarations',
  );
});
