// docs/receivers.md's four receivers (Node, Python, Go, PHP), run verbatim as servers, pass the whole
// receiver check: what the docs teach is what the battery expects.
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { packageRoot } from '../../../src/shared/node/package-root.ts';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { buildPackages } from '../../helpers/packages.ts';
import { receiverBlocks } from '../../helpers/docs.ts';
import { failedCases, runCheck } from './helpers.ts';

const engine = useEngine();
const root = packageRoot();
const dir = mkdtempSync(join(tmpdir(), 'sandbay-readme-servers-'));
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});
const secret = 'whsec_readmeReceiverSecret0123456789';
// Go needs a build cache; a CI shell may have no $HOME to put it under.
const env = { ...process.env, GOCACHE: process.env.GOCACHE ?? join(tmpdir(), 'sandbay-go-cache'), SANDBAY_WEBHOOK_SECRET: secret };

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function listening(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(true)).on('error', () => resolve(false));
      socket.unref();
      setTimeout(() => socket.destroy(), 500);
    });
    if (up) return;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the receiver did not listen on ${port}:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts the docs' receiver for one language in its own folder and checks it through the API. */
async function checkReadmeReceiver(name: string, prepare: (folder: string) => void, command: (folder: string, port: number) => [string, string[]]): Promise<void> {
  const folder = join(dir, name);
  mkdirSync(folder);
  prepare(folder);
  const port = await freePort();
  const [cmd, args] = command(folder, port);
  const child = spawn(cmd, args, { cwd: folder, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  await listening(port, child, () => output);
  const sb = await createSandbox(engine.url);
  const run = await runCheck(sb, { url: `http://127.0.0.1:${port}/hook`, secret });
  assert.deepEqual(failedCases(run), [], JSON.stringify(run.report.cases.filter((c: any) => !c.ok), null, 1));
  assert.equal(run.report.passed, 15);
}

test('the documented Node receiver (sandbay/receiver on Koa) passes the whole battery', async () => {
  await buildPackages();
  await checkReadmeReceiver('node', (folder) => {
    mkdirSync(join(folder, 'node_modules'));
    symlinkSync(root, join(folder, 'node_modules', 'sandbay'), 'dir');
    symlinkSync(join(root, 'node_modules', 'koa'), join(folder, 'node_modules', 'koa'), 'dir');
    writeFileSync(join(folder, 'receiver.mjs'), receiverBlocks('js')[0]);
  }, () => [process.execPath, ['receiver.mjs']]);
});

test('the documented Python receiver passes the whole battery', async () => {
  const [verify, receiver] = receiverBlocks('python');
  await checkReadmeReceiver('python', (folder) => {
    writeFileSync(join(folder, 'verify_webhook.py'), verify);
    writeFileSync(join(folder, 'receiver.py'), receiver);
  }, () => ['python3', ['receiver.py']]);
});

test('the documented Go receiver passes the whole battery', async () => {
  const [verify, main] = receiverBlocks('go');
  await checkReadmeReceiver('go', (folder) => {
    writeFileSync(join(folder, 'verify.go'), verify);
    writeFileSync(join(folder, 'main.go'), main);
    execFileSync('go', ['build', '-o', 'receiver', 'verify.go', 'main.go'], { cwd: folder, env, stdio: 'pipe' });
  }, (folder) => [join(folder, 'receiver'), []]);
});

test('the documented PHP receiver passes the whole battery', async () => {
  const [verify, receiver] = receiverBlocks('php');
  await checkReadmeReceiver('php', (folder) => {
    writeFileSync(join(folder, 'verify_webhook.php'), verify);
    writeFileSync(join(folder, 'receiver.php'), receiver);
  }, (_folder, port) => ['php', ['-S', `127.0.0.1:${port}`, 'receiver.php']]);
});
