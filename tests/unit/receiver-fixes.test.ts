// Fixes in the receiver's language: told from the headers it answers with, said in its framework's words.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectStack, fixFor, fixForFinding, stackFor } from '../../src/shared/receiver-fixes.ts';

test("a receiver's stack is told from the headers its framework answers with", () => {
  const cases: [Record<string, string>, ReturnType<typeof detectStack>][] = [
    [{ server: 'Werkzeug/3.0.1 Python/3.11.7' }, { language: 'python', framework: 'Flask' }],
    [{ server: 'uvicorn' }, { language: 'python', framework: 'FastAPI' }],
    [{ server: 'WSGIServer/0.2 CPython/3.11.7' }, { language: 'python', framework: 'Django' }],
    [{ server: 'BaseHTTP/0.6 Python/3.11.7' }, { language: 'python', framework: 'http.server' }],
    [{ 'x-powered-by': 'Express' }, { language: 'node', framework: 'Express' }],
    [{ 'x-powered-by': 'Next.js' }, { language: 'node', framework: 'Next.js' }],
    [
      { 'x-powered-by': 'PHP/8.2.36', 'set-cookie': 'XSRF-TOKEN=abc; laravel_session=def' },
      { language: 'php', framework: 'Laravel' },
    ],
    [{ 'x-powered-by': 'PHP/8.2.36' }, { language: 'php' }],
    [
      { 'x-runtime': '0.004', 'x-request-id': 'abc' },
      { language: 'ruby', framework: 'Rails' },
    ],
    [{ server: 'WEBrick/1.8.1' }, { language: 'ruby', framework: undefined }],
    [{ 'keep-alive': 'timeout=5' }, { language: 'node' }],
    [
      { 'x-content-type-options': 'nosniff', 'content-type': 'text/plain; charset=utf-8' },
      { language: 'go', framework: 'net/http' },
    ],
    [{ server: 'nginx' }, undefined],
  ];
  for (const [headers, stack] of cases) assert.deepEqual(detectStack(headers), stack, JSON.stringify(headers));
});

test("each fix is said in the framework's words, the language's when the framework has none, everyone's when unknown", () => {
  assert.match(
    fixFor('rawBody', { language: 'python', framework: 'Flask' }),
    /^In Python \(Flask\): verify request\.get_data\(\)/,
  );
  assert.match(fixFor('rawBody', { language: 'python', framework: 'Django' }), /request\.body \(bytes\)/);
  assert.match(fixFor('rawBody', { language: 'php', framework: 'Laravel' }), /\$request->getContent\(\)/);
  assert.match(fixFor('rawBody', { language: 'ruby', framework: 'Rails' }), /request\.raw_post/);
  assert.match(fixFor('rawBody', { language: 'node', framework: 'Fastify' }), /parseAs: 'buffer'/);
  assert.match(fixFor('bodyLimit', { language: 'node', framework: 'Express' }), /limit: '1mb'/);
  assert.match(
    fixFor('key', { language: 'python', framework: 'Flask' }),
    /^In Python \(Flask\): hmac\.new\(secret\.encode\(\)/,
    "the key is the language's, whatever the framework",
  );
  assert.match(fixFor('rawBody'), /Flask request\.get_data\(\), Django request\.body, Express express\.raw\(\)/);
  assert.equal(fixForFinding('stale_timestamp'), undefined, 'a finding whose own words say it');
  assert.deepEqual(
    stackFor({ language: 'node', framework: 'Express' }, 'python'),
    { language: 'python' },
    'the bytes name the language',
  );
  assert.deepEqual(stackFor({ language: 'python', framework: 'Flask' }, 'python'), {
    language: 'python',
    framework: 'Flask',
  });
});
