import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  closest,
  didYouMean,
  editDistance,
  suggestPattern,
  suggestPatterns,
  suggestTopic,
  suggestTopics,
} from '../../src/shared/suggest.ts';
import { meaningGroups, meaningOf, meaningWords } from '../../src/shared/topic-meanings.ts';
import { topics } from '../../src/shared/topics.ts';

test('edit distance counts an adjacent swap as one edit', () => {
  assert.equal(editDistance('placed', 'placed'), 0);
  assert.equal(editDistance('plcaed', 'placed'), 1);
  assert.equal(editDistance('plced', 'placed'), 1);
  assert.equal(editDistance('', 'abc'), 3);
});

test('a typo of a topic suggests it; something unlike any topic suggests nothing', () => {
  const cases: [string, string | undefined][] = [
    ['order.plcaed', 'order.placed'],
    ['Order.Placed', 'order.placed'],
    ['order_placed', 'order.placed'],
    ['orders.placed', 'order.placed'],
    ['payment.capture', 'payment.captured'],
    ['placed', 'order.placed'],
    ['winner_changed', 'buybox.winner_changed'],
    ['payout.retry.schedule', 'payout.retry.scheduled'],
    ['order.shipped', undefined],
    ['nope.nope', undefined],
    ['x', undefined],
  ];
  for (const [input, expected] of cases) assert.equal(suggestTopic(input), expected, input);
});

test('a subscription pattern may also mean a category wildcard', () => {
  assert.equal(suggestPattern('ordr.*'), 'order.*');
  assert.equal(suggestPattern('security*'), 'security.*');
  assert.equal(closest('trigerr', ['trigger', 'topics', 'token']), 'trigger');
});

test('by meaning too: a name in another platform’s words suggests the topic of its subject that means the same', () => {
  const cases: [string, string[]][] = [
    ['order.create', ['order.placed']],
    ['payment.captur', ['payment.captured']],
    // and five more, each a word Stripe, Shopify or GitHub use
    ['payment.succeeded', ['payment.captured']],
    ['product.deleted', ['product.archived']],
    ['quote.approved', ['quote.accepted']],
    ['vendor.created', ['vendor.applied']],
    ['payout.completed', ['payout.paid']],
    // whatever the separator, case or number
    ['orders/created', ['order.placed']],
    ['OrderCreated', ['order.placed']],
    ['order_create', ['order.placed']],
    // a subject named by its category or its first word
    ['staff.created', ['staff.invited']],
    ['report.due', ['saved_report.due']],
    ['approval.request.create', ['approval.request.created']],
  ];
  for (const [input, expected] of cases) assert.deepEqual(suggestTopics(input), expected, input);
});

test('an object Sandbay reports under another subject finds its topics by name', () => {
  const cases: [string, string[]][] = [
    ['refund.create', ['payment.refunded']],
    ['refunds/created', ['payment.refunded']],
    ['capture.create', ['payment.captured']],
    ['winner.update', ['buybox.winner_changed']],
    ['invite.send', ['staff.invited']],
  ];
  for (const [input, expected] of cases) assert.deepEqual(suggestTopics(input), expected, input);
  assert.deepEqual(suggestTopics('order.refund'), [], 'order is a subject: its own topics decide');
  assert.deepEqual(suggestTopics('shipment.create'), [], 'no topic names shipments');
});

test('a far spelling is dropped when a topic means the same, and nothing is invented', () => {
  assert.deepEqual(suggestTopics('order.deleted'), ['order.cancelled'], 'not order.placed, three letters away');
  assert.deepEqual(
    suggestTopics('security.created'),
    ['impersonation.started', 'staff.invited'],
    'a category holds several subjects',
  );
  assert.deepEqual(suggestTopics('order.shipped'), [], 'no topic ships orders');
  assert.deepEqual(suggestTopics('invoice.paid'), [], 'no such subject');
  assert.deepEqual(suggestTopics('x.created'), [], 'a meaning alone, without its subject, is no guess');
  assert.deepEqual(suggestPatterns('orders.created'), ['order.placed']);
  assert.deepEqual(suggestPatterns('ordr.*'), ['order.*']);
});

test('every topic’s own last word has a meaning, and no word has two', () => {
  for (const topic of topics) assert.ok(meaningOf(topic.slice(topic.lastIndexOf('.') + 1)), topic);
  const words = Object.values(meaningGroups).flat();
  assert.deepEqual(
    words.filter((w, i) => words.indexOf(w) !== i),
    [],
  );
  assert.equal(meaningWords.length, words.length);
  assert.deepEqual(suggestTopics('order.placed'), ['order.placed'], 'a topic means itself');
});

test('"did you mean" lists one, two or three suggestions the way a sentence does', () => {
  assert.equal(didYouMean([]), '');
  assert.equal(didYouMean(['order.placed']), ' Did you mean order.placed?');
  assert.equal(didYouMean(['order.*', 'buybox.winner_changed']), ' Did you mean order.* or buybox.winner_changed?');
  assert.equal(didYouMean(['a', 'b', 'c']), ' Did you mean a, b or c?');
});
