import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closest, editDistance, suggestPattern, suggestTopic } from '../../src/shared/suggest.ts';

test('edit distance counts an adjacent swap as one edit', () => {
  assert.equal(editDistance('placed', 'placed'), 0);
  assert.equal(editDistance('plcaed', 'placed'), 1);
  assert.equal(editDistance('plced', 'placed'), 1);
  assert.equal(editDistance('', 'abc'), 3);
});

test('a typo of a topic suggests it; something unlike any topic suggests nothing', () => {
  const cases: [string, string | undefined][] = [
    ['order.plcaed', 'order.placed'], ['Order.Placed', 'order.placed'], ['order_placed', 'order.placed'], ['orders.placed', 'order.placed'],
    ['payment.capture', 'payment.captured'], ['placed', 'order.placed'], ['winner_changed', 'buybox.winner_changed'],
    ['payout.retry.schedule', 'payout.retry.scheduled'], ['order.shipped', undefined], ['nope.nope', undefined], ['x', undefined],
  ];
  for (const [input, expected] of cases) assert.equal(suggestTopic(input), expected, input);
});

test('a subscription pattern may also mean a category wildcard', () => {
  assert.equal(suggestPattern('ordr.*'), 'order.*');
  assert.equal(suggestPattern('security*'), 'security.*');
  assert.equal(closest('trigerr', ['trigger', 'topics', 'token']), 'trigger');
});
