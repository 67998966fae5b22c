// The response validator every test's HTTP client goes through (tests/helpers/openapi-contract.ts)
// must refuse what the document does not describe, or the suite could drift from the document.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RouteDef } from '../../../src/server/route.ts';
import { call, createSandbox, useEngine } from '../../helpers/engine.ts';
import { rawRequest } from '../../helpers/http.ts';
import { assertDocumented, type ObservedResponse } from '../../helpers/openapi-contract.ts';

const engine = useEngine();

const json = 'application/json; charset=utf-8';
const problemJson = 'application/problem+json; charset=utf-8';
const problem = (status: number, code: string, extra: object = {}) => ({
  type: `https://sandbay.dev/problems/${code}`,
  title: 'T',
  status,
  detail: 'D',
  code,
  ...extra,
});
const seen = (over: Partial<ObservedResponse>): ObservedResponse => ({
  method: 'GET',
  path: '/api/v1/orders/ord_0001',
  status: 200,
  contentType: json,
  body: {},
  ...over,
});
const refused = (over: Partial<ObservedResponse>, message: RegExp) =>
  assert.rejects(assertDocumented(engine.url, seen(over)), message);

test('a response the document does not describe throws, naming the operation, the status and the schema error', async () => {
  await refused(
    { status: 418 },
    /getOrder \(GET \/api\/v1\/orders\/\{id\}\) answered 418: status 418 is not documented/,
  );
  await refused(
    { status: 200, body: { id: 1 } },
    /getOrder .* answered 200: the 200 application\/json body does not match its schema: body must have required property/,
  );
  await refused(
    { status: 404, contentType: 'text/html', body: '<h1>gone</h1>' },
    /answered 404: 404 came as text\/html; documented: application\/problem\+json/,
  );
  await refused(
    { status: 404, contentType: problemJson, body: problem(404, 'order_gone') },
    /body\/code must be equal to one of the allowed values/,
  );
  await refused(
    { status: 404, contentType: problemJson, body: problem(409, 'not_found') },
    /body\/status must be equal to constant/,
  );
  await refused(
    { method: 'POST', path: '/api/v1/orders', status: 422, contentType: problemJson, body: problem(422, 'made_up') },
    /createOrder .* body\/code/,
  );
  await refused(
    { method: 'DELETE', path: '/api/v1/offers/off_1', status: 204, contentType: 'text/plain', body: 'bye' },
    /documented without a body/,
  );
  // /oauth/token's errors are RFC 6749 JSON, never problem details.
  await refused(
    {
      method: 'POST',
      path: '/oauth/token',
      status: 400,
      contentType: problemJson,
      body: problem(400, 'malformed_json'),
    },
    /oauthToken .* 400 came as application\/problem\+json/,
  );
  await refused(
    {
      method: 'POST',
      path: '/oauth/token',
      status: 400,
      contentType: json,
      body: { error: 'invalid_client', error_description: 'x' },
    },
    /body\/error must be equal to one of the allowed values/,
  );
  // No operation: only the pre-routing answers (404, 405, a guard's 403) as problem details.
  await refused(
    { path: '/api/v1/nothing-here', status: 200 },
    /GET \/api\/v1\/nothing-here \(no operation\) answered 200: status 200 is not documented/,
  );
  await refused(
    { path: '/api/v1/nothing-here', status: 404, contentType: json, body: { message: 'no' } },
    /404 came as application\/json/,
  );
});

test('what the document describes passes, the inspector UI is not its business, and a real fault is told apart', async () => {
  await assertDocumented(engine.url, seen({ status: 404, contentType: problemJson, body: problem(404, 'not_found') }));
  await assertDocumented(
    engine.url,
    seen({ path: '/api/v1/nothing-here', status: 404, contentType: problemJson, body: problem(404, 'not_found') }),
  );
  await assertDocumented(
    engine.url,
    seen({
      method: 'PUT',
      path: '/api/v1/orders',
      status: 405,
      contentType: problemJson,
      body: problem(405, 'method_not_allowed'),
    }),
  );
  await assertDocumented(
    engine.url,
    seen({ path: '/sandboxes/sbx_1/deliveries', status: 200, contentType: 'text/html', body: '<!doctype html>' }),
  );
  await refused(
    { status: 500, contentType: problemJson, body: problem(500, 'internal_error') },
    /status 500 is not documented/,
  );
  await assertDocumented(
    engine.url,
    seen({ status: 500, contentType: problemJson, body: problem(500, 'internal_error'), faultInjected: true }),
  );
  await refused(
    { status: 500, contentType: json, body: { oops: true }, faultInjected: true },
    /500 came as application\/json/,
  );
});

test("the tests' HTTP clients go through it: a route answering off its document fails the call", async () => {
  const health = engine.running.routes.find((r) => r.operationId === 'health') as RouteDef;
  const original = health.handler;
  health.handler = () => ({ body: { ok: 'yes' } });
  try {
    await assert.rejects(
      call(engine.url, '/api/v1/health'),
      /health \(GET \/api\/v1\/health\) answered 200: .*body\/ok must be equal to constant/,
    );
    await assert.rejects(rawRequest(engine.url, '/api/v1/health'), /OpenAPI mismatch: health/);
    const sb = await createSandbox(engine.url);
    await assert.rejects(sb.api('/api/v1/health'), /OpenAPI mismatch: health/);
  } finally {
    health.handler = original;
  }
  assert.equal((await call(engine.url, '/api/v1/health')).status, 200);
});
