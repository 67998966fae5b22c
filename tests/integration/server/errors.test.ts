import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { call, createSandbox, problem, useEngine } from '../../helpers/engine.ts';
import { orderBody, orderCount } from '../../helpers/orders.ts';

const engine = useEngine();

test('malformed JSON is 400 malformed_json; so is a JSON array, number, string or null', async () => {
  const sb = await createSandbox(engine.url);
  for (const body of [
    '{"customerId":',
    '{customerId: 1}',
    '[]',
    '[{"customerId":"cus_0001"}]',
    '42',
    '"order"',
    'null',
    '\u0000',
  ]) {
    const res = problem(await sb.api('/api/v1/orders', { body }), 400, 'malformed_json');
    assert.ok(res.detail.length > 0);
  }
  assert.equal(await orderCount(engine.running, sb.id), 200);
});

test('malformed JSON says where (line and column) in its own words, without echoing the body', async () => {
  const sb = await createSandbox(engine.url);
  const cases: [string, string][] = [
    ['{"customerId":', 'The body is not valid JSON: it ends early (line 1, column 15).'],
    [
      '{\n  "customerId": "cus_0001",\n  "items": [}\n',
      'The body is not valid JSON: expected a value at line 3, column 13.',
    ],
    [
      '{"customerId": "secret-looking-value" "items": []}',
      'The body is not valid JSON: expected a comma at line 1, column 39.',
    ],
    [
      "{\n  'a': 1\n}",
      'The body is not valid JSON: unexpected character "\'" (JSON strings take double quotes) at line 2, column 3.',
    ],
    ['{"a":1,}', 'The body is not valid JSON: expected a double-quoted property name at line 1, column 8.'],
    ['{"a":"x\u0001"}', 'The body is not valid JSON: unescaped control character in a string at line 1, column 6.'],
  ];
  for (const [body, detail] of cases) {
    const res = problem(await sb.api('/api/v1/orders', { body }), 400, 'malformed_json');
    assert.equal(res.detail, detail, body);
    assert.ok(!res.detail.includes('secret-looking') && !/is not valid JSON"|position/.test(res.detail), res.detail);
  }
});

test('JSON nested deeper than 64 levels is 400 malformed_json, with or without an Idempotency-Key', async () => {
  const sb = await createSandbox(engine.url);
  const deep = `{"a":${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
  problem(await sb.api('/api/v1/orders', { body: deep }), 400, 'malformed_json');
  problem(
    await sb.api('/api/v1/orders', { body: deep, headers: { 'idempotency-key': 'deep' } }),
    400,
    'malformed_json',
  );
  problem(
    await sb.api('/api/v1/sandbox/reset', {
      body: `{"scope":${'{"a":'.repeat(65)}1${'}'.repeat(65)}}`,
      headers: { 'idempotency-key': 'deep' },
    }),
    400,
    'malformed_json',
  );
  const ok = await sb.api('/api/v1/sandbox/reset', { body: `{"scope":${'{"a":'.repeat(10)}1${'}'.repeat(10)}}` });
  problem(ok, 422, 'validation_failed');
});

test('a body that is not JSON is 415 unsupported_media_type', async () => {
  const sb = await createSandbox(engine.url);
  for (const type of [
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
  ]) {
    problem(
      await sb.api('/api/v1/orders', { body: JSON.stringify(orderBody()), headers: { 'content-type': type } }),
      415,
      'unsupported_media_type',
    );
  }
  const res = await fetch(`${engine.url}/api/v1/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sb.token}` },
    body: new Uint8Array(Buffer.from(JSON.stringify(orderBody()))),
  });
  assert.equal(res.status, 415, 'a body without Content-Type');
  const ok = await sb.api('/api/v1/orders', {
    body: JSON.stringify(orderBody()),
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
  assert.equal(ok.status, 201, 'parameters on application/json are fine');
});

test('a body over 1 MiB is 413 payload_too_large', async () => {
  const sb = await createSandbox(engine.url);
  const big = JSON.stringify({ ...orderBody(), pad: 'x'.repeat(1024 * 1024) });
  problem(await sb.api('/api/v1/orders', { body: big }), 413, 'payload_too_large');
  problem(await call(engine.url, '/api/v1/sandboxes', { body: big }), 413, 'payload_too_large');
  assert.equal(await orderCount(engine.running, sb.id), 200);
});

/** Streams 2 MiB of body in 64 KiB chunks over a raw socket with the given headers; resolves with the response head. */
function streamBig(path: string, token: string, lengthHeader: string): Promise<{ status: number; head: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(engine.url).port), '127.0.0.1');
    let received = '';
    socket.on('data', (d) => {
      received += d.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end >= 0 && !socket.destroyed) {
        socket.destroy();
        resolve({ status: Number(received.split(' ')[1]), head: received });
      }
    });
    socket.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err),
    );
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n${lengthHeader}\r\n\r\n`,
    );
    const chunked = /chunked/i.test(lengthHeader);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < 2 * 1024 * 1024 && !socket.destroyed) {
        sent += chunk.length;
        const framed = chunked
          ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])
          : chunk;
        if (!socket.write(framed)) return void socket.once('drain', pump);
      }
      if (chunked && !socket.destroyed) socket.write('0\r\n\r\n');
    };
    pump();
  });
}

test('an oversized streamed body is refused whatever the Content-Length says, and never with a 5xx', async () => {
  const sb = await createSandbox(engine.url);
  const chunked = await streamBig('/api/v1/orders', sb.token, 'Transfer-Encoding: chunked');
  assert.equal(chunked.status, 413, 'no Content-Length: counted while streaming');
  assert.match(chunked.head, /application\/problem\+json/i);
  const claimsHuge = await streamBig('/api/v1/orders', sb.token, `Content-Length: ${2 * 1024 * 1024}`);
  assert.equal(claimsHuge.status, 413, 'refused from the header, before reading');
  // A Content-Length that lies small ends the body early; the rest is not a request at all.
  const liesSmall = await streamBig('/api/v1/orders', sb.token, 'Content-Length: 10');
  assert.ok(liesSmall.status >= 400 && liesSmall.status < 500, String(liesSmall.status));
  assert.equal((await sb.api('/api/v1/sandbox')).status, 200, 'the server is fine afterwards');
  assert.equal(await orderCount(engine.running, sb.id), 200);
});

test('an unknown route is a 404 problem; a known path with the wrong method is a 405 problem', async () => {
  const sb = await createSandbox(engine.url);
  problem(await sb.api('/api/v1/nope'), 404, 'not_found');
  problem(await call(engine.url, '/api/v2/orders'), 404, 'not_found');
  problem(await sb.api('/api/v1/orders/ord_0001', { method: 'DELETE' }), 405, 'method_not_allowed');
  problem(await sb.api('/api/v1/sandboxes', { method: 'PUT', body: {} }), 405, 'method_not_allowed');
  const res = await sb.api('/api/v1/orders', { method: 'PATCH', body: {} });
  problem(res, 405, 'method_not_allowed');
  assert.match(res.headers.get('allow') ?? '', /GET/);
});

test('malformed percent-encoding in the path is a 4xx problem, not a 5xx', async () => {
  const sb = await createSandbox(engine.url);
  for (const path of [
    '/api/v1/orders/%E0%A4%A',
    '/api/v1/orders/%',
    '/api/v1/orders/%zz/cancel',
    '/%E0%A4%A',
    '/api/v1/%',
  ]) {
    const res = await sb.api(path);
    assert.ok(res.status >= 400 && res.status < 500, `${path} → ${res.status}`);
    if (path.startsWith('/api/')) assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  }
});

test('every error carries type, title, status, detail and code, as application/problem+json', async () => {
  const sb = await createSandbox(engine.url);
  const cases = [
    await sb.api('/api/v1/orders', { body: '{' }),
    await sb.api('/api/v1/orders', { body: { x: 1 } }),
    await sb.api('/api/v1/orders', { body: {} }),
    await call(engine.url, '/api/v1/orders'),
    await sb.api('/api/v1/orders/ord_x'),
    await sb.api('/api/v1/orders', { body: 'a', headers: { 'content-type': 'text/plain' } }),
  ];
  for (const res of cases) {
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    for (const field of ['type', 'title', 'status', 'detail', 'code'])
      assert.ok(res.body[field] !== undefined, `${res.body.code} lacks ${field}`);
    assert.equal(res.body.status, res.status);
    assert.match(res.body.code, /^[a-z]+(_[a-z]+)*$/);
    assert.equal(res.body.type, `https://sandbay.dev/problems/${res.body.code}`);
  }
});
