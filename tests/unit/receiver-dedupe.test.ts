import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createDeliveryDeduper } from '../../src/receiver/index.ts';

function fakeClock(start = 1_000) {
  const clock = { now: start, read: () => clock.now };
  return clock;
}

test('an id is seen only after it is marked', () => {
  const dedupe = createDeliveryDeduper();
  assert.equal(dedupe.seen('dlv_1'), false);
  dedupe.mark('dlv_1');
  assert.equal(dedupe.seen('dlv_1'), true);
  assert.equal(dedupe.seen('dlv_2'), false);
});

test('ids are forgotten after the TTL, not before', () => {
  const clock = fakeClock();
  const dedupe = createDeliveryDeduper({ ttlSeconds: 60, now: clock.read });
  dedupe.mark('dlv_1');
  clock.now += 59;
  assert.equal(dedupe.seen('dlv_1'), true);
  clock.now += 1;
  assert.equal(dedupe.seen('dlv_1'), false);
  assert.equal(dedupe.size, 0);
});

test('marking again renews the TTL', () => {
  const clock = fakeClock();
  const dedupe = createDeliveryDeduper({ ttlSeconds: 60, now: clock.read });
  dedupe.mark('dlv_1');
  clock.now += 50;
  dedupe.mark('dlv_2');
  dedupe.mark('dlv_1');
  clock.now += 20;
  assert.equal(dedupe.seen('dlv_1'), true);
  assert.equal(dedupe.seen('dlv_2'), true);
});

test('memory is bounded: past maxEntries the oldest id goes first', () => {
  const dedupe = createDeliveryDeduper({ maxEntries: 3 });
  for (const id of ['a', 'b', 'c', 'd']) dedupe.mark(id);
  assert.equal(dedupe.size, 3);
  assert.equal(dedupe.seen('a'), false);
  assert.deepEqual(
    ['b', 'c', 'd'].map((id) => dedupe.seen(id)),
    [true, true, true],
  );
  for (let i = 0; i < 10_000; i++) dedupe.mark(`dlv_${i}`);
  assert.equal(dedupe.size, 3);
});

test('bad options are TypeErrors', () => {
  assert.throws(() => createDeliveryDeduper({ ttlSeconds: 0 }), TypeError);
  assert.throws(() => createDeliveryDeduper({ maxEntries: 0 }), TypeError);
  assert.throws(() => createDeliveryDeduper({ maxEntries: 1.5 }), TypeError);
});
