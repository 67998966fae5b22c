// How a receiver check quotes a receiver's answer in a cause: a framework's HTML error page is quoted as
// the text a person reads on it, not as markup (Flask's abort(400, "invalid signature") is the usual case).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answered, type Answer } from '../../src/webhooks/check/verdicts.ts';

const answer = (status: number, body: string, contentType = 'text/html; charset=utf-8'): Answer => ({
  deliveryId: 'dlv_x',
  url: 'http://127.0.0.1:9/hook',
  status,
  ms: 1,
  error: null,
  body,
  headers: { 'content-type': contentType },
  sent: { body: '{}', timestamp: 0 },
});

test("an HTML error page is quoted by its text: Flask's, Express's, PHP's", () => {
  const flask =
    '<!doctype html>\n<html lang=en>\n<title>400 Bad Request</title>\n<h1>Bad Request</h1>\n<p>invalid signature</p>\n';
  assert.equal(answered(answer(400, flask)), '400 "Bad Request invalid signature"');
  const express =
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot POST /hook</pre>\n</body>\n</html>\n';
  assert.equal(answered(answer(404, express)), '404 "Cannot POST /hook"');
  const styled =
    '<html><head><style>body { color: red }</style><script>var x = "<b>";</script></head><body><h1>Signature &amp; timestamp &lt;bad&gt;</h1></body></html>';
  assert.equal(answered(answer(400, styled)), '400 "Signature & timestamp <bad>"');
});

test('plain text and JSON answers are quoted as they are, whitespace folded and cut at 80 characters', () => {
  assert.equal(answered(answer(400, 'invalid signature\n', 'text/plain')), '400 "invalid signature"');
  assert.equal(answered(answer(400, '{"error": "<b>bad</b>"}', 'application/json')), '400 "{"error": "<b>bad</b>"}"');
  assert.equal(answered(answer(400, `${'x'.repeat(100)}`, 'text/plain')), `400 "${'x'.repeat(80)}"`);
  assert.equal(answered(answer(500, '')), '500');
});
