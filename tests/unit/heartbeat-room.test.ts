import assert from 'node:assert/strict';
import { test } from 'node:test';
import { beatSlackMs, heartbeatAliveMs } from '../../src/webhooks/liveness.ts';

// On a shared database an engine beats every tenth of its heartbeat's life, and starts an attempt only while its
// last beat still vouches for the attempt's whole timeout and the slack (DeliveryLeases.readyToSend). The room left
// just before the next beat must cover that, or attempts wait for beats: every attempt timeout, not only the default.
test('just before its next beat, a heartbeat still covers a whole attempt, for every attempt timeout', () => {
  for (const attemptMs of [1_000, 10_000, 16_000, 17_000, 30_000, 120_000, 600_000]) {
    const aliveMs = heartbeatAliveMs(20_000, attemptMs);
    const roomBeforeNextBeat = aliveMs - aliveMs / 10;
    assert.ok(
      roomBeforeNextBeat >= attemptMs + beatSlackMs,
      `attempt timeout ${attemptMs} ms: heartbeat ${aliveMs} ms leaves ${roomBeforeNextBeat} ms before the next beat`,
    );
  }
});

test('the heartbeat asked for stands when it is already long enough', () => {
  assert.equal(heartbeatAliveMs(20_000, 10_000), 20_000);
  assert.equal(heartbeatAliveMs(60_000, 120_000), Math.ceil((124_000 * 10) / 9));
});
