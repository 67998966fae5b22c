// Which span an attempt's span links to (docs/decisions/a-resend-s-trace-links-to-the-original-s.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linkedSpan } from '../../src/webhooks/tracing/attempt-tracer.ts';
import { attemptTrace } from '../../src/webhooks/tracing/trace-context.ts';

const attempt = (number: number, resentFrom: { id: string; attempt: number | null } | null) => ({
  tenantId: 'sbx_1',
  deliveryId: 'dlv_resend',
  topic: 'order.placed',
  number,
  trigger: number === 1 ? 'initial' : 'retry',
  url: 'http://127.0.0.1:3001/hook',
  resentFrom,
});

test("a resend's first attempt links to the original's last attempt then; its retries to the attempt before", () => {
  const own = attemptTrace('sbx_1', 'dlv_resend', 1).traceId;
  const original = attemptTrace('sbx_1', 'dlv_original', 3);
  assert.deepEqual(linkedSpan(attempt(1, { id: 'dlv_original', attempt: 3 }), own), {
    traceId: original.traceId,
    spanId: original.spanId,
  });
  assert.deepEqual(linkedSpan(attempt(2, { id: 'dlv_original', attempt: 3 }), own), {
    traceId: own,
    spanId: attemptTrace('sbx_1', 'dlv_resend', 1).spanId,
  });
});

test('no link for a first attempt of a delivery never resent, nor of a resend of one not attempted yet', () => {
  const own = attemptTrace('sbx_1', 'dlv_resend', 1).traceId;
  assert.equal(linkedSpan(attempt(1, null), own), null);
  assert.equal(linkedSpan(attempt(1, { id: 'dlv_original', attempt: 0 }), own), null);
  assert.equal(linkedSpan(attempt(1, { id: 'dlv_original', attempt: null }), own), null, 'a resend from before 150');
});
