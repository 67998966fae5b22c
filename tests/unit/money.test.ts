import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toMajor, toMinor } from '../../src/shared/money.ts';

test('toMajor turns minor units into a number with at most 2 decimals, exactly', () => {
  assert.equal(toMajor(35440), 354.4);
  assert.equal(toMajor(9330), 93.3);
  assert.equal(toMajor(5), 0.05);
  assert.equal(toMajor(0), 0);
  assert.equal(toMajor(-1999), -19.99);
  assert.equal(toMajor(900719925474099), 9007199254740.99);
});

test('toMinor is exact and refuses more than 2 decimals', () => {
  assert.equal(toMinor(0.1), 10);
  assert.equal(toMinor(354.4), 35440);
  assert.equal(toMinor(1.005), null);
  assert.equal(toMinor(-2.5), -250);
  assert.equal(toMinor(Number.NaN), null);
  assert.equal(toMinor(1e21), null);
  for (const minor of [1, 10, 99, 12345, 44990]) assert.equal(toMinor(toMajor(minor)), minor);
});
