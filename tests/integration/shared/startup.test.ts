import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { StartupError } from '../../../src/server/auth/shared-server.ts';
import { startSandbox } from '../../../src/server/start.ts';
import { call, createSandbox } from '../../helpers/engine.ts';
import { rawRequest } from '../../helpers/http.ts';
import { operatorKey } from '../../helpers/session.ts';

const quiet = { port: 0, logRequests: false } as const;

test('binding beyond loopback without an explicit admin key is refused, and leaves nothing behind', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbay-shared-'));
  try {
    await assert.rejects(startSandbox({ ...quiet, host: '0.0.0.0', dataDir }), (err: Error) => {
      assert.ok(err instanceof StartupError);
      assert.match(err.message, /binds 0\.0\.0\.0, beyond loopback/);
      assert.match(err.message, /--admin-key KEY \(or set SANDBAY_ADMIN_KEY; at least 32 characters/);
      return true;
    });
    assert.equal(existsSync(join(dataDir, 'sandbay.lock')), false, 'refused before taking the data dir');
    await assert.rejects(
      startSandbox({ ...quiet, memory: true, publicUrl: 'https://sandbay.example.com' }),
      /published at https:\/\/sandbay\.example\.com/,
    );
    await assert.rejects(
      startSandbox({ ...quiet, memory: true, host: '0.0.0.0', adminKey: 'too-short' }),
      /at least 32 characters/,
    );
    await assert.rejects(
      startSandbox({ ...quiet, memory: true, publicUrl: 'https://sandbay.example.com/app', adminKey: operatorKey }),
      /no path, query or fragment/,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('on a shared server the ready URL, the page and its cookies never carry the admin key; the discovery file adds the public URL', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbay-shared-'));
  const running = await startSandbox({
    ...quiet,
    host: '0.0.0.0',
    dataDir,
    adminKey: operatorKey,
    publicUrl: 'https://sandbay.example.com',
  });
  try {
    assert.equal(running.shared, true);
    assert.equal(running.readyUrl, 'https://sandbay.example.com/');
    assert.equal(running.publicUrl, 'https://sandbay.example.com');
    assert.equal(running.adminKey, operatorKey, 'the explicit key replaces the generated one');
    const discovery = JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8'));
    assert.equal(discovery.publicUrl, 'https://sandbay.example.com');
    assert.equal(
      discovery.url,
      running.url,
      "the engine's own address, for the CLI here and the lock's liveness probe",
    );

    const page = await rawRequest(running.url, `/?key=${operatorKey}`);
    assert.equal(page.status, 200);
    assert.equal(page.headers['set-cookie'], undefined, 'opening ?key= sets no admin cookie on a shared server');
    assert.ok(!page.body.includes(operatorKey));

    const sb = await createSandbox(running.url, undefined, operatorKey);
    const viaCookie = await rawRequest(running.url, `/api/v1/sandbox?sandbox=${sb.id}`, {
      headers: { cookie: `sandbay_admin_443=${operatorKey}` },
    });
    assert.equal(viaCookie.status, 401, 'an admin cookie is not honoured either');
    const viaHeader = await call(running.url, '/api/v1/sandboxes', { token: operatorKey });
    assert.equal(viaHeader.status, 200, 'the operator uses the key in the Authorization header');
    assert.ok(viaHeader.body.data.some((s: any) => s.id === sb.id));
    const acting = await call(running.url, '/api/v1/sandbox', {
      token: operatorKey,
      headers: { 'sandbay-sandbox': sb.id },
    });
    assert.equal(acting.body.id, sb.id, 'with Sandbay-Sandbox, on any sandbox');
  } finally {
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('on loopback nothing changes: an explicit key is used, carried in the ready URL and set as the admin cookie', async () => {
  const running = await startSandbox({
    ...quiet,
    memory: true,
    adminKey: operatorKey,
    publicUrl: 'http://localhost:8080',
  });
  try {
    assert.equal(running.shared, false);
    assert.equal(running.readyUrl, `http://localhost:8080/?key=${operatorKey}`);
    const page = await rawRequest(running.url, `/?key=${operatorKey}`);
    assert.match(String(page.headers['set-cookie']), new RegExp(`^sandbay_admin_8080=${operatorKey};`));
  } finally {
    await running.close();
  }
});
