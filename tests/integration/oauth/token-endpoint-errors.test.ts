import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSandbox, useEngine } from '../../helpers/engine.ts';
import { checkedFetch } from '../../helpers/http.ts';
import { oauthError, tokenRequest } from '../../helpers/oauth.ts';

const engine = useEngine();

async function raw(
  body: string | Buffer,
  contentType?: string,
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await checkedFetch(`${engine.url}/oauth/token`, {
    method: 'POST',
    body,
    headers: contentType ? { 'content-type': contentType } : {},
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: JSON.parse(text) };
}

test('malformed /oauth/token bodies answer in RFC 6749 §5.2 form, never problem+json', async () => {
  const cases: [string | Buffer, string | undefined][] = [
    ['{"grant_type":', 'application/json'],
    ['["client_credentials"]', 'application/json'],
    ['42', 'application/json'],
    ['grant_type=client_credentials', 'text/plain'],
    ['grant_type=client_credentials', undefined],
    ['{"grant_type":"client_credentials","client_id":{"a":1}}', 'application/json'],
    ['{"grant_type":["client_credentials"]}', 'application/json'],
    [Buffer.alloc(1024 * 1024 + 10, 'a'), 'application/x-www-form-urlencoded'],
    ['', 'application/x-www-form-urlencoded'],
  ];
  for (const [body, type] of cases) {
    const res = await raw(body, type);
    const err = oauthError(res, 400, 'invalid_request');
    assert.deepEqual(Object.keys(err).sort(), ['error', 'error_description'], String(body).slice(0, 40));
  }
});

test('unknown parameters are ignored (RFC 6749 §3.2) and numbers are accepted in JSON', async () => {
  const sb = await createSandbox(engine.url);
  const res = await tokenRequest(
    engine.url,
    {
      grant_type: 'client_credentials',
      client_id: sb.clientId,
      client_secret: sb.clientSecret,
      audience: 'x',
      expires_in: 60 as unknown as string,
    },
    { json: true },
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.expires_in, 60);
});

test('GET /oauth/token is a 405 problem, not a token', async () => {
  const res = await checkedFetch(`${engine.url}/oauth/token`);
  assert.equal(res.status, 405);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
});
