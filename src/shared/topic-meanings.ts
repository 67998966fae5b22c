// What the last word of a topic means, so that a name in another platform's words ("order.create",
// "payment.succeeded", "product.deleted") finds the topic Sandbay calls it. Each group is one meaning;
// a topic's own word must be in one of them (tests/unit/suggest.test.ts checks all 33).

export const meaningGroups: Readonly<Record<string, readonly string[]>> = {
  created: ['create', 'created', 'new', 'add', 'added', 'place', 'placed', 'submit', 'submitted', 'open', 'opened', 'insert', 'inserted',
    'make', 'made', 'request', 'requested', 'apply', 'applied', 'invite', 'invited', 'start', 'started', 'begin', 'begun', 'issue',
    'issued', 'send', 'sent', 'calculate', 'calculated', 'generate', 'generated', 'register', 'registered', 'signup', 'signed_up'],
  updated: ['update', 'updated', 'change', 'changed', 'edit', 'edited', 'modify', 'modified', 'patch', 'patched', 'winner_changed'],
  ended: ['cancel', 'cancelled', 'canceled', 'void', 'voided', 'delete', 'deleted', 'remove', 'removed', 'archive', 'archived', 'end',
    'ended', 'stop', 'stopped', 'close', 'closed', 'suspend', 'suspended', 'disable', 'disabled', 'deactivate', 'deactivated', 'ban', 'banned'],
  succeeded: ['capture', 'captured', 'pay', 'paid', 'charge', 'charged', 'succeed', 'succeeded', 'success', 'complete', 'completed',
    'settle', 'settled', 'authorize', 'authorized', 'authorise', 'authorised', 'collect', 'collected'],
  refunded: ['refund', 'refunded', 'reverse', 'reversed', 'chargeback', 'return', 'returned'],
  approved: ['approve', 'approved', 'accept', 'accepted', 'confirm', 'confirmed', 'allow', 'allowed', 'verify', 'verified', 'activate',
    'activated', 'join', 'joined'],
  rejected: ['reject', 'rejected', 'deny', 'denied', 'decline', 'declined', 'refuse', 'refused'],
  failed: ['fail', 'failed', 'failure', 'error', 'errored', 'give_up', 'given_up', 'gave_up', 'bounce', 'bounced', 'abandon', 'abandoned'],
  expired: ['expire', 'expired', 'expiry', 'timeout', 'timed_out', 'lapse', 'lapsed'],
  published: ['publish', 'published', 'release', 'released', 'launch', 'launched', 'live', 'list', 'listed', 'activate_listing'],
  retried: ['retry', 'retried', 'schedule', 'scheduled', 'reschedule', 'rescheduled', 'requeue', 'requeued'],
  converted: ['convert', 'converted', 'turn_into_order', 'to_order'],
  due: ['due', 'push_due', 'remind', 'reminder', 'run', 'ran', 'trigger', 'triggered'],
};

const meaningByWord = new Map(Object.entries(meaningGroups).flatMap(([meaning, words]) => words.map((w) => [w, meaning] as const)));

/** The meaning of a topic's last word, or undefined for a word the table does not know. */
export const meaningOf = (word: string): string | undefined => meaningByWord.get(word.toLowerCase().replace(/-/g, '_'));

/** Every word the table knows, for matching a misspelt one. */
export const meaningWords: readonly string[] = [...meaningByWord.keys()];
