import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hmacSha256Hex } from '../../src/shared/hmac.ts';
import { breakDownSignature } from '../../src/shared/signature-breakdown.ts';
import { signatureVectors } from '../helpers/vectors.ts';

const vectors = signatureVectors;

test('WebCrypto HMAC reproduces every reference vector', async () => {
  for (const v of vectors.cases) assert.equal(await hmacSha256Hex(v.secret, v.signedString), v.v1);
});

test('the breakdown splits the header, shows the signed string and its bytes, and marks the match', async () => {
  const v = vectors.cases[1]; // non-ASCII body: bytes differ from characters
  const result = await breakDownSignature({
    header: v.header,
    body: v.body,
    secrets: ['whsec_other', v.secret],
    now: v.t + 10,
  });
  assert.ok(result.ok);
  const b = result.breakdown;
  assert.equal(b.timestamp, v.t);
  assert.equal(b.signedString, v.signedString);
  assert.equal(b.bytes.body, Buffer.byteLength(v.body, 'utf8'));
  assert.ok(b.bytes.body > v.body.length, 'counts UTF-8 bytes, not characters');
  assert.equal(b.bytes.total, Buffer.byteLength(v.signedString, 'utf8'));
  assert.deepEqual(b.v1, [{ value: v.v1, matchedSecret: 1 }]);
  assert.equal(b.expected[1], v.v1);
  assert.equal(b.ageSeconds, 10);
  assert.equal(b.standing, 'within_tolerance');
});

test('after a rotation each v1 is matched to its own secret', async () => {
  const r = vectors.rotation;
  const result = await breakDownSignature({ header: r.header, body: r.body, secrets: r.secrets, now: r.t });
  assert.ok(result.ok);
  assert.deepEqual(
    result.breakdown.v1.map((v) => v.matchedSecret),
    [0, 1],
  );
});

test('timestamps outside ±300 s are stale or future; bad headers say why', async () => {
  const v = vectors.cases[0];
  const stale = await breakDownSignature({ header: v.header, body: v.body, secrets: [v.secret], now: v.t + 301 });
  const future = await breakDownSignature({ header: v.header, body: v.body, secrets: [v.secret], now: v.t - 301 });
  assert.ok(stale.ok && future.ok);
  assert.equal(stale.breakdown.standing, 'stale');
  assert.equal(future.breakdown.standing, 'future');
  assert.deepEqual(await breakDownSignature({ header: '', body: '{}', secrets: [], now: 0 }), {
    ok: false,
    reason: 'no_header',
  });
  assert.deepEqual(await breakDownSignature({ header: 't=abc,v1=00', body: '{}', secrets: [], now: 0 }), {
    ok: false,
    reason: 'malformed_header',
  });
});

test('a v1 that no secret reproduces has no match', async () => {
  const v = vectors.cases[0];
  const result = await breakDownSignature({ header: v.header, body: v.body, secrets: ['whsec_wrong'], now: v.t });
  assert.ok(result.ok);
  assert.equal(result.breakdown.v1[0].matchedSecret, null);
});
