import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson } from '../../src/server/middleware/idempotency.ts';

test('canonical JSON sorts object keys at every depth and keeps array order', () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } }),
    '{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}',
  );
  assert.equal(canonicalJson({ a: 1, b: 2 }), canonicalJson({ b: 2, a: 1 }));
  assert.notEqual(canonicalJson([1, 2]), canonicalJson([2, 1]));
  assert.equal(canonicalJson({ é: 'ü' }), '{"é":"ü"}');
});
