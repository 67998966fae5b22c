import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { call, useEngine } from '../helpers/engine.ts';
import { assertOneLineFailure, runCli } from '../helpers/cli.ts';
import { runCli as runServe, waitForReady } from '../helpers/process.ts';
import { resolveConnection, unreachableMessage } from '../../src/cli/client.ts';

// A Sandbay served from a data dir of its own (serve --data-dir X): its server.json is not where the
// platform data dir (the CLI's default) would have it, so the client verbs need to be told where to look.
const root = mkdtempSync(join(tmpdir(), 'sandbay-data-dir-'));
const dataDir = join(root, 'elsewhere');
const engine = useEngine({ memory: false, dataDir });
after(() => rmSync(root, { recursive: true, force: true }));
// The platform data dir the CLI would search by default: empty.
const env = { XDG_DATA_HOME: join(root, 'xdg') };

async function newSandboxToken(args: string[], extraEnv: Record<string, string> = {}): Promise<string> {
  const created = await runCli(['token', '--new', ...args], { env: { ...env, ...extraEnv } });
  assert.equal(created.code, 0, created.stderr);
  return created.stdout.trim();
}

test('token --new --data-dir DIR finds a Sandbay served with --data-dir DIR, admin key included', async () => {
  const token = await newSandboxToken(['--data-dir', dataDir]);
  assert.equal((await call(engine.url, '/api/v1/sandbox', { token })).status, 200);
  // The admin key came from that server.json too: with one sandbox, the admin verbs need no --sandbox.
  const list = await runCli(['deliveries', '--data-dir', dataDir, '--json'], { env });
  assert.equal(list.code, 0, list.stderr);
});

test('SANDBAY_DATA_DIR does the same as --data-dir', async () => {
  const token = await newSandboxToken([], { SANDBAY_DATA_DIR: dataDir });
  assert.equal((await call(engine.url, '/api/v1/sandbox', { token })).status, 200);
});

test('without it, the failure names where it searched and how to point at another', () => {
  // Port 4400 may be taken on a developer's machine, so the default URL is judged by resolveConnection, not by a
  // request.
  const isolated = { XDG_DATA_HOME: env.XDG_DATA_HOME, XDG_STATE_HOME: join(root, 'state') };
  const connection = resolveConnection({}, isolated);
  assert.deepEqual([connection.url, connection.admin], ['http://127.0.0.1:4400', false]);
  assert.deepEqual(connection.searched, {
    dataDir: join(env.XDG_DATA_HOME, 'sandbay'),
    registry: join(root, 'state', 'sandbay', 'servers'),
    dataDirGiven: false,
  });
  assert.match(
    unreachableMessage(connection),
    /^cannot reach Sandbay at http:\/\/127\.0\.0\.1:4400 — is it running\? \(sandbay serve\); no running Sandbay in the registry .*state.sandbay.servers and no server\.json in .*xdg.sandbay: pass --url, or --data-dir DIR \(or SANDBAY_DATA_DIR\)$/,
  );
  // Found through --data-dir, the URL is the running engine's and the admin key comes along.
  const found = resolveConnection({ dataDir }, isolated);
  assert.deepEqual([found.url, found.searched, found.admin], [engine.url, undefined, true]);
  // A data dir nothing was started with says so.
  const none = resolveConnection({ dataDir: join(root, 'nothing') }, isolated);
  assert.match(
    unreachableMessage(none),
    /; no Sandbay started with --data-dir .*nothing runs \(no server\.json there, none in the registry .*\): pass the data dir it was started with, or --url$/,
  );
});

test('a URL the user gave is not second-guessed: an unreachable one gets the plain message', async () => {
  const given = await runCli(['token', '--new', '--url', 'http://127.0.0.1:9'], { env });
  assertOneLineFailure(
    given,
    /^sandbay: cannot reach Sandbay at http:\/\/127\.0\.0\.1:9 — is it running\? \(sandbay serve\)$/,
  );
});

test('one SANDBAY_DATA_DIR for serve and the client verbs: the server writes its server.json there, the CLI finds it', async () => {
  const shared = join(root, 'from-env');
  const server = runServe(['serve', '--quiet', '--port', '0'], { ...env, SANDBAY_DATA_DIR: shared });
  try {
    const ready = await waitForReady(server);
    assert.match(ready.line, new RegExp(`\\(data: ${shared.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`));
    const token = await newSandboxToken([], { SANDBAY_DATA_DIR: shared });
    assert.equal((await call(ready.url, '/api/v1/sandbox', { token })).status, 200);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
});
