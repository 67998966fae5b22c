import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StartupError } from '../../../src/server/auth/shared-server.ts';
import { startSandbox } from '../../../src/server/start.ts';
import { call, createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { runCliJson } from '../../helpers/cli.ts';
import { operatorKey } from '../../helpers/session.ts';

// Who creates sandboxes on a shared server: its operator (the admin key), unless the operator opens it.
const closed = useEngine({ publicUrl: 'https://sandbay.example.com', adminKey: operatorKey });
const open = useEngine({ publicUrl: 'https://sandbay.example.com', adminKey: operatorKey, openSandboxCreation: true });

test('a shared server creates sandboxes for its operator only: anonymous or with a sandbox token it is 403 sandbox_creation_closed', async () => {
  const refused = problem(
    await call(closed.url, '/api/v1/sandboxes', { method: 'POST' }),
    403,
    'sandbox_creation_closed',
  );
  assert.match(refused.detail, /created by its operator .*admin key.*sandbay token --new.*client ID and secret/);
  const sb = await createSandbox(closed.url, 'for a teammate', operatorKey);
  assert.match(sb.clientSecret, /^cs_/, 'the operator gets the credentials to hand over');
  problem(
    await call(closed.url, '/api/v1/sandboxes', { method: 'POST', token: sb.token }),
    403,
    'sandbox_creation_closed',
  );
  assert.equal(
    (await call(closed.url, '/api/v1/session')).body.openSandboxCreation,
    false,
    'the inspector says whom to ask',
  );
});

test('importing a sandbox file makes a sandbox too: on a closed shared server only with the admin key', async () => {
  const upload = (token?: string) =>
    call(closed.url, '/api/v1/sandboxes/import', {
      method: 'POST',
      body: 'not a sandbox file',
      token,
      headers: { 'content-type': 'application/gzip' },
    });
  problem(await upload(), 403, 'sandbox_creation_closed');
  const asOperator = await upload(operatorKey);
  assert.equal(asOperator.status, 422, 'past the gate, the file itself is judged');
  assert.equal(asOperator.body.code, 'import_not_sandbox_file');
});

test("the operator's CLI creates one with the admin key it is given (sandbay token --new)", async () => {
  const created = await runCliJson(['token', '--new', '--name', 'alice', '--url', closed.url, '--token', operatorKey]);
  assert.match(created.sandboxId, /^sbx_/);
  assert.match(created.clientSecret, /^cs_/);
  const me = await call(closed.url, '/api/v1/sandbox', { token: created.accessToken });
  assert.equal(me.body.name, 'alice');
});

test('an operator who opens sandbox creation lets anyone create one', async () => {
  const anyone = await call(open.url, '/api/v1/sandboxes', { method: 'POST' });
  assert.equal(anyone.status, 201);
  assert.equal((await call(open.url, '/api/v1/session')).body.openSandboxCreation, true);
});

test('a bad --allow-receivers entry stops the start with a message saying what is wrong', async () => {
  await assert.rejects(
    startSandbox({ memory: true, port: 0, logRequests: false, allowReceivers: ['10.0.0.0/8', 'intranet'] }),
    (err: Error) => {
      assert.ok(err instanceof StartupError);
      assert.equal(
        err.message,
        '--allow-receivers: "intranet" is not an IP address or CIDR block (e.g. 10.0.0.0/8 or fd00::/8)',
      );
      return true;
    },
  );
});
