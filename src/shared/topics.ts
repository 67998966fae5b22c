/** The 33 webhook topics in their 10 categories (SPEC §5.6): the one list every layer uses. */
export const topicCategories = {
  order: ['order.placed', 'order.cancelled'],
  payment: ['payment.captured', 'payment.refunded'],
  product: ['product.created', 'product.updated', 'product.published', 'product.archived'],
  approval: ['approval.request.created', 'approval.approved', 'approval.rejected', 'approval.expired'],
  quote: ['quote.sent', 'quote.accepted', 'quote.rejected', 'quote.converted', 'quote.expired'],
  vendor: ['vendor.applied', 'vendor.approved', 'vendor.rejected', 'vendor.suspended'],
  payout: ['payout.calculated', 'payout.paid', 'payout.failed', 'payout.retry.scheduled', 'payout.retry.given_up'],
  buybox: ['buybox.winner_changed'],
  saved_report: ['saved_report.due'],
  security: ['impersonation.started', 'impersonation.ended', 'staff.invited', 'staff.accepted', 'consent.iys.push_due'],
} as const;

export type TopicCategory = keyof typeof topicCategories;
export type Topic = (typeof topicCategories)[TopicCategory][number];

export const categories = Object.keys(topicCategories) as TopicCategory[];
export const topics: Topic[] = categories.flatMap((c) => [...topicCategories[c]]);

const categoryByTopic = new Map<string, TopicCategory>(
  categories.flatMap((c) => topicCategories[c].map((t) => [t, c] as const)),
);

export const isTopic = (value: string): value is Topic => categoryByTopic.has(value);
export const categoryOf = (topic: Topic): TopicCategory => categoryByTopic.get(topic)!;

/**
 * Does a subscription pattern cover a topic? Patterns are a topic, `*`, `<category>.*`
 * (e.g. security.*) or any dotted prefix of topics (e.g. staff.*, payout.retry.*).
 */
export function patternMatches(pattern: string, topic: Topic): boolean {
  if (pattern === '*' || pattern === topic) return true;
  if (!pattern.endsWith('.*')) return false;
  const prefix = pattern.slice(0, -2);
  return categoryOf(topic) === prefix || topic.startsWith(`${prefix}.`);
}

/** Is a topic covered by any of the patterns? No patterns covers every topic (a filter not given). */
export const matchesAnyPattern = (patterns: readonly string[], topic: string): boolean =>
  patterns.length === 0 || (isTopic(topic) && patterns.some((p) => patternMatches(p, topic)));

/** Patterns as a comma-separated list gives them (`order.*, payment.captured`). */
export const patternList = (list: string | undefined): string[] =>
  list
    ?.split(',')
    .map((t) => t.trim())
    .filter(Boolean) ?? [];

/** A pattern is valid when it names a topic or covers at least one. */
export const isValidPattern = (pattern: string) => topics.some((t) => patternMatches(pattern, t));
