import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { call, createSandbox, useEngine } from '../helpers/engine.ts';
import { assertOneLineFailure, runCli, runCliJson } from '../helpers/cli.ts';

// An engine with a real data dir, where the CLI's default resolver (XDG_DATA_HOME) finds its server.json.
const home = mkdtempSync(join(tmpdir(), 'sandbay-discovery-'));
const engine = useEngine({ memory: false, dataDir: join(home, 'sandbay') });
after(() => rmSync(home, { recursive: true, force: true }));
const env = { XDG_DATA_HOME: home };

test("with only one sandbox, the discovery file's URL and admin key reach it with no flags at all", async () => {
  const sb = await createSandbox(engine.url);
  const page = await runCliJson(['deliveries'], { env });
  assert.deepEqual(page, { data: [], nextCursor: null });
  const token = (await runCli(['token'], { env })).stdout.trim();
  assert.equal((await call(engine.url, '/api/v1/sandbox', { token })).body.id, sb.id);
});

test('token --sandbox mints a token; --json prints every credential the API shows again (the client secret only as its hint)', async () => {
  const sb = await createSandbox(engine.url);
  assertOneLineFailure(
    await runCli(['deliveries'], { env }),
    /several sandboxes; choose one with --sandbox ID or SANDBAY_SANDBOX \(sbx_\w+, sbx_\w+\)/,
  );
  const creds = await runCliJson(['token', '--sandbox', sb.id, '--expires-in', '60', '--scope', 'orders:read'], {
    env,
  });
  assert.equal(creds.sandboxId, sb.id);
  assert.equal(creds.clientId, sb.clientId);
  assert.equal(creds.clientSecret, undefined, 'shown once, at creation');
  assert.equal(creds.clientSecretHint, `cs_…${sb.clientSecret.slice(-4)}`);
  assert.equal(creds.webhookTestSecret, sb.webhookTestSecret);
  assert.equal(creds.expiresIn, 60);
  assert.equal(creds.scope, 'orders:read');
  assert.equal((await call(engine.url, '/api/v1/orders?limit=1', { token: creds.accessToken })).status, 200);
  assert.equal((await call(engine.url, '/api/v1/webhooks/deliveries', { token: creds.accessToken })).status, 403);
  const viaEnv = await runCli(['token'], { env: { ...env, SANDBAY_SANDBOX: sb.id } });
  assert.equal((await call(engine.url, '/api/v1/sandbox', { token: viaEnv.stdout.trim() })).body.id, sb.id);
});

test('token works with a sandbox token too, and token --new creates a seeded sandbox', async () => {
  const sb = await createSandbox(engine.url);
  const creds = await runCliJson(['token', '--url', engine.url, '--token', sb.token]);
  assert.equal(creds.sandboxId, sb.id);
  const created = await runCli(['token', '--new', '--name', 'from the CLI'], { env });
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stderr, /^Created sandbox sbx_\w+ /);
  const sandbox = (await call(engine.url, '/api/v1/sandbox', { token: created.stdout.trim() })).body;
  assert.equal(sandbox.name, 'from the CLI');
  assert.equal(sandbox.counts.orders, 200);
});

test("the admin key is never sent to a URL other than the discovery file's", async () => {
  const seen: IncomingHttpHeaders[] = [];
  const other = createServer((req, res) => {
    seen.push(req.headers);
    res
      .writeHead(404, { 'content-type': 'application/problem+json' })
      .end(JSON.stringify({ detail: 'elsewhere', code: 'not_found' }));
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
  try {
    const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    assertOneLineFailure(
      await runCli(['deliveries', '--url', url, '--sandbox', 'sbx_x'], { env }),
      /no token|elsewhere/,
    );
    assert.ok(
      seen.every((h) => !h.authorization),
      'no Authorization header went to the other server',
    );
  } finally {
    other.close();
  }
});
