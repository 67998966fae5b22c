// docs/receivers/testing.md's own test of the Node receiver ("Replay recorded deliveries in your tests"), run
// verbatim with node --test, as a user's project would: sandbay/testing from the built package, the
// receiver beside it, and a fixtures file recorded from a real sandbox.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, test } from 'node:test';
import { freePort } from '../../../src/shared/node/free-port.ts';
import { packageRoot } from '../../../src/shared/node/package-root.ts';
import { receiverBlocks } from '../../helpers/docs.ts';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { buildPackages } from '../../helpers/packages.ts';
import { Receiver } from '../../helpers/receiver.ts';
import { placeOrder, registerEndpoint } from '../../helpers/webhooks.ts';

const engine = useEngine();
const root = packageRoot();
const dir = mkdtempSync(join(tmpdir(), 'sandbay-docs-receiver-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test("the Node receiver's documented test passes: a delivery it caused answered 200, and recorded fixtures replay re-signed", async () => {
  await buildPackages();
  execFileSync(process.execPath, [join(root, 'scripts', 'build-receiver.mjs')], { cwd: root, stdio: 'pipe' });
  const blocks = receiverBlocks('js');
  const testBlock = blocks.find((b) => b.includes('replayFixtures('));
  assert.ok(testBlock, 'docs/receivers/testing.md has the test');
  // Fixtures as `sandbay fixtures record` writes them, from deliveries of another sandbox (another secret).
  const receiver = await new Receiver().start();
  const sb = await createSandbox(engine.url);
  await registerEndpoint(sb, receiver.url, ['order.*']);
  const order = await placeOrder(sb);
  await sb.api(`/api/v1/orders/${order.id}/cancel`, { method: 'POST' });
  await receiver.waitFor(2);
  await receiver.close();
  const fixtures = await sb.api('/api/v1/webhooks/deliveries/export?format=fixtures&topics=order.*');
  assert.equal(fixtures.body.fixtures.length, 2);

  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules', 'sandbay'), 'dir');
  symlinkSync(join(root, 'packages', 'receiver'), join(dir, 'node_modules', 'sandbay-receiver'), 'dir');
  symlinkSync(join(root, 'node_modules', 'koa'), join(dir, 'node_modules', 'koa'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  writeFileSync(join(dir, 'receiver.mjs'), blocks[0]);
  writeFileSync(join(dir, 'receiver.test.mjs'), testBlock);
  writeFileSync(join(dir, 'fixtures.json'), JSON.stringify(fixtures.body));
  // As a user runs it: not as a child of this test runner (which would change the reporter's protocol).
  const { NODE_TEST_CONTEXT: _child, ...env } = process.env;
  const port = String(await freePort());
  const run = await promisify(execFile)(process.execPath, ['--test', '--test-reporter=tap', 'receiver.test.mjs'], {
    cwd: dir,
    env: { ...env, PORT: port },
  }).catch((err) => err);
  assert.match(run.stdout, /# pass 2\n# fail 0/, `${run.stdout}\n${run.stderr}`);
});
