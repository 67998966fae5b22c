import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonChanges } from '../../src/shared/json-changes.ts';

test('jsonChanges lists each changed leaf by JSON Pointer: objects key by key, arrays index by index', () => {
  const before = { total: 10, items: [{ qty: 1 }, { qty: 2 }], 'a/b': 'x', gone: true };
  const after = { total: 10.5, items: [{ qty: 1 }, { qty: 3 }, { qty: 4 }], 'a/b': 'x', added: null };
  assert.deepEqual(jsonChanges(before, after), [
    { path: '/total', kind: 'changed', before: 10, after: 10.5 },
    { path: '/items/1/qty', kind: 'changed', before: 2, after: 3 },
    { path: '/items/2', kind: 'added', after: { qty: 4 } },
    { path: '/gone', kind: 'removed', before: true },
    { path: '/added', kind: 'added', after: null },
  ]);
  assert.deepEqual(jsonChanges(before, structuredClone(before)), []);
  assert.deepEqual(jsonChanges({ a: [1] }, { a: { 0: 1 } }), [
    { path: '/a', kind: 'changed', before: [1], after: { 0: 1 } },
  ]);
});
