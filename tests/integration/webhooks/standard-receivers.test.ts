// The receiver pages' Standard Webhooks receivers (Node, Python, Go, PHP), run verbatim as servers and sent
// real deliveries: signed ones are accepted (a replay too, processed once), a tampered one is refused.
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
import { useReceiverProcesses } from '../../helpers/receiver-process.ts';
import { requireTool, tools } from '../../helpers/tools.ts';
import { placeOrder, registerEndpoint, waitForDelivery } from '../../helpers/webhooks.ts';

const engine = useEngine();
const dir = mkdtempSync(join(tmpdir(), 'sandbay-standard-servers-'));
const startReceiver = useReceiverProcesses();
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Registers an endpoint with `signature`, starts the docs' receiver on a free port with the
 * endpoint's secret and public key, and sends it an order's delivery, a replay and a tampered copy.
 */
async function exercise(
  name: string,
  signature: string[],
  files: (folder: string) => void,
  command: (port: number) => [string, string[]],
) {
  const folder = join(dir, name);
  mkdirSync(folder);
  files(folder);
  const sb = await createSandbox(engine.url);
  // The receiver needs the endpoint's secret to start, and the endpoint the receiver's port: it is pointed there after.
  const endpoint = await registerEndpoint(sb, 'http://127.0.0.1:9/hook', ['order.placed'], { signature });
  const { url, output, stop } = await startReceiver(folder, command, {
    ...process.env,
    SANDBAY_WEBHOOK_SECRET: endpoint.secret,
    SANDBAY_WEBHOOK_PUBLIC_KEY: endpoint.publicKey ?? '',
  });
  const pointed = await sb.api(`/api/v1/webhooks/endpoints/${endpoint.id}`, { method: 'PATCH', body: { url } });
  assert.equal(pointed.status, 200, JSON.stringify(pointed.body));

  await placeOrder(sb);
  const [{ id }] = (await sb.api('/api/v1/webhooks/deliveries')).body.data;
  const delivered = await waitForDelivery(sb, id, (d) => d.status !== 'pending' || d.attemptCount > 0);
  assert.equal(delivered.attempts[0].responseStatus, 200, `${name}: ${delivered.attempts[0].responseBody} ${output()}`);
  const replayed = (await sb.api(`/api/v1/webhooks/deliveries/${id}/replay`, { body: {} })).body;
  assert.equal(replayed.attempts[1].responseStatus, 200, 'a delivery seen before is acknowledged');

  const signed = (await sb.api(`/api/v1/webhooks/deliveries/${id}/signed-request`)).body;
  const tampered = await fetch(signed.url, {
    method: 'POST',
    headers: signed.headers,
    body: signed.body.replace('"total":', '"total":1'),
  });
  assert.deepEqual([tampered.status, (await tampered.text()).trim()], [400, 'no_matching_signature']);
  const unsigned = await fetch(signed.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: signed.body,
  });
  assert.equal(unsigned.status, 400);
  stop();
}

test('the documented Node Standard Webhooks receiver (the kit reads the scheme off the headers): v1, v1a, and both', async () => {
  await buildPackages();
  const root = packageRoot();
  const files = (folder: string) => {
    mkdirSync(join(folder, 'node_modules'));
    symlinkSync(join(root, 'packages', 'receiver'), join(folder, 'node_modules', 'sandbay-receiver'), 'dir');
    symlinkSync(join(root, 'node_modules', 'koa'), join(folder, 'node_modules', 'koa'), 'dir');
    writeFileSync(join(folder, 'receiver.mjs'), receiverBlocks('js standard-webhooks')[0]);
  };
  const run = (): [string, string[]] => [process.execPath, ['receiver.mjs']];
  await exercise('node', ['standard-webhooks'], files, run);
  await exercise('node-ed25519', ['standard-webhooks-ed25519'], files, run);
  await exercise('node-all', ['sandbay', 'standard-webhooks', 'standard-webhooks-ed25519'], files, run);
});

test('the documented Python Standard Webhooks receiver accepts real v1 deliveries and refuses a tampered one', async () => {
  const [verify, receiver] = receiverBlocks('python standard-webhooks');
  await exercise(
    'python',
    ['standard-webhooks'],
    (folder) => {
      writeFileSync(join(folder, 'verify_standard_webhook.py'), verify);
      writeFileSync(join(folder, 'receiver.py'), receiver);
    },
    () => [requireTool(tools.python), ['receiver.py']],
  );
});

test('the documented Go Standard Webhooks receiver: v1 and v1a deliveries, and ed25519 alone', async () => {
  const [verify, receiver] = receiverBlocks('go standard-webhooks');
  // Built first and run as a binary: `go run` would leave its child behind when killed.
  const env = {
    ...process.env,
    GOCACHE: process.env.GOCACHE ?? join(tmpdir(), 'sandbay-go-cache'),
    GOTOOLCHAIN: 'local',
    GOPROXY: 'off',
  };
  const files = (folder: string) => {
    writeFileSync(join(folder, 'verify_standard.go'), verify);
    writeFileSync(join(folder, 'main.go'), receiver);
    execFileSync(requireTool(tools.go), ['build', '-o', 'receiver', 'verify_standard.go', 'main.go'], {
      cwd: folder,
      env,
      stdio: 'pipe',
    });
  };
  const run = (): [string, string[]] => ['./receiver', []];
  await exercise('go', ['standard-webhooks', 'standard-webhooks-ed25519'], files, run);
  await exercise('go-ed25519', ['standard-webhooks-ed25519'], files, run);
});

test('the documented PHP Standard Webhooks receiver: v1 and v1a deliveries, and ed25519 alone', async () => {
  const [verify, receiver] = receiverBlocks('php standard-webhooks');
  const files = (folder: string) => {
    writeFileSync(join(folder, 'verify_standard_webhook.php'), verify);
    writeFileSync(join(folder, 'receiver.php'), receiver);
  };
  const run = (port: number): [string, string[]] => [
    requireTool(tools.php),
    ['-S', `127.0.0.1:${port}`, 'receiver.php'],
  ];
  await exercise('php', ['sandbay', 'standard-webhooks'], files, run);
  await exercise('php-ed25519', ['standard-webhooks-ed25519'], files, run);
});
