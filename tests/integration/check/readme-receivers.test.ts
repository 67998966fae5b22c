// The receiver pages' four receivers (Node, Python, Go, PHP), run verbatim as servers, pass the whole
// receiver check: what the docs teach is what the battery expects.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { packageRoot } from '../../../src/shared/node/package-root.ts';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { buildPackages } from '../../helpers/packages.ts';
import { receiverBlocks } from '../../helpers/docs.ts';
import { receiverEnv, useReceiverProcesses } from '../../helpers/receiver-process.ts';
import { failedCases, runCheck } from './helpers.ts';

const engine = useEngine();
const root = packageRoot();
const dir = mkdtempSync(join(tmpdir(), 'sandbay-readme-servers-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const secret = 'whsec_readmeReceiverSecret0123456789';
const env = receiverEnv(secret);
const start = useReceiverProcesses();

/** Starts the docs' receiver for one language in its own folder and checks it through the API. */
async function checkReadmeReceiver(
  name: string,
  prepare: (folder: string) => void,
  command: (folder: string, port: number) => [string, string[]],
): Promise<void> {
  const folder = join(dir, name);
  mkdirSync(folder);
  prepare(folder);
  const { url } = await start(folder, (port) => command(folder, port), env);
  const sb = await createSandbox(engine.url);
  const run = await runCheck(sb, { url, secret });
  assert.deepEqual(
    failedCases(run),
    [],
    JSON.stringify(
      run.report.cases.filter((c: any) => !c.ok),
      null,
      1,
    ),
  );
  assert.equal(run.report.passed, 15);
}

test('the documented Node receiver (the sandbay-receiver kit on Koa) passes the whole battery', async () => {
  await buildPackages();
  execFileSync(process.execPath, [join(root, 'scripts', 'build-receiver.mjs')], { cwd: root, stdio: 'pipe' });
  await checkReadmeReceiver(
    'node',
    (folder) => {
      mkdirSync(join(folder, 'node_modules'));
      symlinkSync(root, join(folder, 'node_modules', 'sandbay'), 'dir');
      symlinkSync(join(root, 'packages', 'receiver'), join(folder, 'node_modules', 'sandbay-receiver'), 'dir');
      symlinkSync(join(root, 'node_modules', 'koa'), join(folder, 'node_modules', 'koa'), 'dir');
      writeFileSync(join(folder, 'receiver.mjs'), receiverBlocks('js')[0]);
    },
    () => [process.execPath, ['receiver.mjs']],
  );
});

test('the documented Python receiver passes the whole battery', async () => {
  const [verify, receiver] = receiverBlocks('python');
  await checkReadmeReceiver(
    'python',
    (folder) => {
      writeFileSync(join(folder, 'verify_webhook.py'), verify);
      writeFileSync(join(folder, 'receiver.py'), receiver);
    },
    () => ['python3', ['receiver.py']],
  );
});

test('the documented Go receiver passes the whole battery', async () => {
  const [verify, main] = receiverBlocks('go');
  await checkReadmeReceiver(
    'go',
    (folder) => {
      writeFileSync(join(folder, 'verify.go'), verify);
      writeFileSync(join(folder, 'main.go'), main);
      execFileSync('go', ['build', '-o', 'receiver', 'verify.go', 'main.go'], { cwd: folder, env, stdio: 'pipe' });
    },
    (folder) => [join(folder, 'receiver'), []],
  );
});

test('the documented PHP receiver passes the whole battery', async () => {
  const [verify, receiver] = receiverBlocks('php');
  await checkReadmeReceiver(
    'php',
    (folder) => {
      writeFileSync(join(folder, 'verify_webhook.php'), verify);
      writeFileSync(join(folder, 'receiver.php'), receiver);
    },
    (_folder, port) => ['php', ['-S', `127.0.0.1:${port}`, 'receiver.php']],
  );
});
