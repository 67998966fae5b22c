import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskSecret } from '../../src/shared/mask-secret.ts';

test('a secret is masked to its first six and last four characters', () => {
  assert.equal(maskSecret('whsec_0123456789abcdefghijklmnopqrstuv'), 'whsec_••••••••stuv');
  assert.equal(maskSecret('sat_abcdefgh12345678'), 'sat_ab••••••••5678');
});

test('a short secret shows nothing of itself: fewer than ten characters would stay hidden', () => {
  for (const secret of ['', 'abc', 'whsec_1234', 'whsec_12345', 'whsec_1234567890abc']) {
    assert.equal(maskSecret(secret), '••••••••', secret);
  }
});
