import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SandboxClock } from '../../src/schedule/clock.ts';

const day = 86_400_000;

test("an announced offset is taken as it is for a sandbox this engine holds none for, below zero too (an import's clock)", () => {
  const clock = new SandboxClock(() => 1_000_000_000_000);
  clock.heard('sbx_imported', -day);
  assert.equal(clock.offsetMs('sbx_imported'), -day);
  assert.equal(clock.nowMs('sbx_imported'), 1_000_000_000_000 - day);
  clock.heard('sbx_fresh', 90_000);
  assert.equal(clock.offsetMs('sbx_fresh'), 90_000);
});

test('an announced offset never sets a known one back (an older step heard after a later one of this engine)', () => {
  const clock = new SandboxClock(() => 0);
  clock.heard('sbx_a', 120_000);
  clock.heard('sbx_a', 60_000);
  assert.equal(clock.offsetMs('sbx_a'), 120_000);
  clock.heard('sbx_b', -day);
  clock.heard('sbx_b', -day + 30_000);
  assert.equal(clock.offsetMs('sbx_b'), -day + 30_000, 'an imported sandbox advanced moves forward from below zero');
});
