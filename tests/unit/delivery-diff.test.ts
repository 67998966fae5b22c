import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffHeaders, diffJson } from '../../src/shared/delivery-diff.ts';

test('diffJson: a known pair, by JSON Pointer (objects by key, arrays by index, ~ and / escaped)', () => {
  const a = { topic: 'order.placed', data: { total: 10, items: [{ q: 1 }, { q: 2 }], note: 'x', 'a/b': 1 } };
  const b = { topic: 'order.placed', data: { total: 12.5, items: [{ q: 1 }], coupon: null, 'a/b': 2 } };
  assert.deepEqual(diffJson(a, b), [
    { path: '/data/total', op: 'replace', from: 10, to: 12.5 },
    { path: '/data/items/1', op: 'remove', from: { q: 2 } },
    { path: '/data/note', op: 'remove', from: 'x' },
    { path: '/data/a~1b', op: 'replace', from: 1, to: 2 },
    { path: '/data/coupon', op: 'add', to: null },
  ]);
  assert.deepEqual(diffJson(a, structuredClone(a)), []);
  assert.deepEqual(diffJson({ x: [1] }, { x: { 0: 1 } }), [{ path: '/x', op: 'replace', from: [1], to: { 0: 1 } }]);
});

test('diffHeaders: by lowercase name, sorted, a missing header null on its side', () => {
  assert.deepEqual(
    diffHeaders({ 'Content-Type': 'a', 'x-a': '1', 'x-b': '2' }, { 'content-type': 'a', 'x-a': '3', 'x-c': '4' }),
    [
      { name: 'x-a', from: '1', to: '3' },
      { name: 'x-b', from: '2', to: null },
      { name: 'x-c', from: null, to: '4' },
    ],
  );
});
