// A sandbox file holds every area's data (orders, customers, payments, webhooks…): exporting it needs read
// access to all of them, not sandbox:read alone, or a narrowly scoped token would read everything.
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { test } from 'node:test';
import { allScopes } from '../../../src/shared/scopes.ts';
import { call, createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { exportBytes } from '../../helpers/portable.ts';

const engine = useEngine();
const reads = allScopes.filter((s) => s.endsWith(':read'));

test("exporting a sandbox needs every area's read scope; its secrets need webhooks:write besides", async () => {
  const sb = await createSandbox(engine.url);
  const mint = async (scope: string) =>
    (await sb.api('/api/v1/sandbox/tokens', { body: { scope } })).body.accessToken as string;

  const narrow = await call(engine.url, '/api/v1/sandbox/export', { token: await mint('sandbox:read') });
  const p = problem(narrow, 403, 'insufficient_scope');
  assert.match(p.detail, /every area's data.*orders:read/);
  assert.ok(!p.detail.includes('sandbox:read'), 'the scope it has is not asked for');
  assert.match(
    narrow.headers.get('www-authenticate') ?? '',
    /^Bearer error="insufficient_scope", scope="orders:read payments:read /,
  );

  const allReads = await mint(reads.join(' '));
  const file = gunzipSync(await exportBytes(engine.url, { token: allReads })).toString('utf8');
  assert.equal(JSON.parse(file.split('\n')[0]).secrets, 'omitted');
  problem(
    await call(engine.url, '/api/v1/sandbox/export?includeSecrets=true', { token: allReads }),
    403,
    'insufficient_scope',
  );
  const withSecrets = gunzipSync(
    await exportBytes(engine.url, { token: await mint(`${reads.join(' ')} webhooks:write`) }, 'includeSecrets=true'),
  ).toString('utf8');
  assert.equal(JSON.parse(withSecrets.split('\n')[0]).secrets, 'included');
});

test('HEAD of the export answers its headers without writing the file, with the same scope checks', async () => {
  const sb = await createSandbox(engine.url, 'Head start');
  const head = await fetch(`${engine.url}/api/v1/sandbox/export`, {
    method: 'HEAD',
    headers: { authorization: `Bearer ${sb.token}` },
  });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('content-type'), 'application/vnd.sandbay.sandbox+gzip');
  assert.match(
    head.headers.get('content-disposition') ?? '',
    /^attachment; filename="Head-start-\d{4}-\d\d-\d\d\.sandbay"$/,
  );
  // A written file would have its size: HEAD knows none, since it wrote none.
  assert.ok([null, '0'].includes(head.headers.get('content-length')));
  const narrow = (await sb.api('/api/v1/sandbox/tokens', { body: { scope: 'sandbox:read' } })).body.accessToken;
  const refused = await fetch(`${engine.url}/api/v1/sandbox/export`, {
    method: 'HEAD',
    headers: { authorization: `Bearer ${narrow}` },
  });
  assert.equal(refused.status, 403);
});
