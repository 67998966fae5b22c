// The chaos form checks what is typed in its own units (a percentage, milliseconds), so a user who
// types 250 % reads "a percentage from 0 to 100", not the API's "expected number to be <=1".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chaosOf, chaosProblems, draftOf } from '../../src/renderer/views/endpoints/chaos-draft.ts';

const draft = (over: Partial<ReturnType<typeof draftOf>> = {}) => ({ ...draftOf(null), ...over });

test('a duplicate percentage is judged as a percentage: 0 to 100, decimals allowed', () => {
  assert.deepEqual(chaosProblems(draft({ duplicatePercent: '250' })), {
    duplicatePercent: 'A percentage from 0 to 100.',
  });
  assert.deepEqual(chaosProblems(draft({ duplicatePercent: '-1' })), {
    duplicatePercent: 'A percentage from 0 to 100.',
  });
  assert.deepEqual(chaosProblems(draft({ duplicatePercent: 'lots' })), {
    duplicatePercent: 'A percentage from 0 to 100.',
  });
  assert.deepEqual(chaosProblems(draft({ duplicatePercent: '12.5' })), {});
  assert.deepEqual(chaosOf(draft({ duplicatePercent: '12.5' })), {
    duplicateRate: 0.125,
    reorderWindowMs: 0,
    delayMs: 0,
  });
});

test('windows are whole milliseconds up to an hour, and a seed a whole number the API accepts', () => {
  assert.deepEqual(chaosProblems(draft({ reorderMs: '1.5', delayMs: '3600001', seed: '-3' })), {
    reorderMs: 'Whole milliseconds from 0 to 3600000 (1 hour).',
    delayMs: 'Whole milliseconds from 0 to 3600000 (1 hour).',
    seed: 'A whole number from 0 to 2147483647, or empty for a random one.',
  });
  assert.deepEqual(
    chaosProblems(draft({ reorderMs: '3600000', delayMs: '', seed: '' })),
    {},
    'empty means 0, or a random seed',
  );
});

test('a draft read back from an endpoint has nothing wrong with it', () => {
  assert.deepEqual(chaosProblems(draftOf({ duplicateRate: 0.3, reorderWindowMs: 2000, delayMs: 500, seed: 42 })), {});
});
