import { meaningOf, meaningWords } from './topic-meanings.ts';
import { categories, categoryOf, topics, type Topic } from './topics.ts';

/** Edit distance with adjacent transpositions counted as one edit (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[a.length][b.length];
}

/** A name with case, `_`, `-`, `/` and spaces set aside, for comparing spellings. */
const norm = (s: string) => s.toLowerCase().replace(/[-_\s/]/g, '.');

/**
 * The candidate a typo most likely meant, or undefined when none is close: case and `_`/`-`
 * versus `.` are ignored, and at most a third of the input may differ (as git and commander judge).
 */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  const wanted = norm(input);
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = Math.min(editDistance(wanted, norm(candidate)), editDistance(wanted, candidate.toLowerCase()));
    if (!best || distance < best.distance) best = { candidate, distance };
  }
  if (best && best.distance <= Math.max(1, Math.floor(input.length / 3))) return best.candidate;
  // A topic named by its last part alone ("placed", "winner_changed"), when only one topic ends so.
  const byTail = candidates.filter((c) => c.toLowerCase().endsWith(`.${input.toLowerCase()}`));
  return byTail.length === 1 ? byTail[0] : undefined;
}

/** A topic's subject and last word: `payout.retry.scheduled` → `payout.retry`, `scheduled`. */
const split = (name: string): [subject: string, word: string] => {
  const dot = name.lastIndexOf('.');
  return [name.slice(0, dot), name.slice(dot + 1)];
};

/**
 * An unknown name taken apart the same way, whatever its separator: order.create, orders/created, order_created,
 * orderCreated.
 */
function parts(input: string): [subject: string, word: string] | undefined {
  const name = input
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1.$2')
    .toLowerCase()
    .replace(/[:/\s]+/g, '.');
  if (name.includes('.')) return split(name);
  const at = name.search(/[_-]/);
  return at > 0 ? [name.slice(0, at), name.slice(at + 1)] : undefined;
}

/**
 * Whether an unknown name's subject names a topic's: its subject, category or first word, in the singular or plural, or
 * one letter off.
 */
function sameSubject(subject: string, topic: Topic): boolean {
  const names = [split(topic)[0], categoryOf(topic), split(topic)[0].split('.')[0], ...categoryOf(topic).split('_')];
  const singular = subject.replace(/-/g, '_').replace(/ies$/, 'y').replace(/s$/, '');
  return names.some((n) => n === subject || n === singular || (n.length >= 4 && editDistance(n, subject) <= 1));
}

/** What the last word means, allowing one slip in a longer word ("captur", "cancled"). */
function meaningOfWord(word: string): string | undefined {
  const known = meaningOf(word);
  if (known || word.length < 5) return known;
  const near = closest(word, meaningWords);
  return near && editDistance(near, word.toLowerCase()) <= 1 ? meaningOf(near) : undefined;
}

/** The topics of the same subject whose last word means what the unknown name's does: order.create → order.placed. */
function sameMeaning(input: string): Topic[] {
  const named = parts(input);
  if (!named) return [];
  const [subject, word] = named;
  const meaning = meaningOfWord(word);
  if (!meaning) return [];
  return topics.filter((t) => sameSubject(subject, t) && meaningOf(split(t)[1]) === meaning);
}

/**
 * The topics that name the unknown name's subject as their event, when no topic has that subject: an object
 * Sandbay reports on another's topic (`refund.create` → payment.refunded, `winner.update` → buybox.winner_changed).
 */
function namedByObject(input: string): Topic[] {
  const named = parts(input);
  if (!named) return [];
  const object = named[0].split('.').at(-1)!.replace(/ies$/, 'y').replace(/s$/, '');
  if (object.length < 4 || topics.some((t) => sameSubject(object, t))) return [];
  const stem = object.replace(/e$/, '');
  return topics.filter((t) => split(t)[1].startsWith(stem));
}

const suggestionCount = 3;

/**
 * The same-meaning topics and the closest spelling among `candidates`, best first: a slip of one letter
 * leads; a spelling further off is offered only when no topic means the same (it would mostly be noise:
 * order.deleted is not order.placed).
 */
function suggest(input: string, candidates: readonly string[]): string[] {
  const sameWord = sameMeaning(input);
  const meant: string[] = sameWord.length > 0 ? sameWord : namedByObject(input);
  const spelt = closest(input, candidates);
  if (spelt === undefined || meant.includes(spelt)) return meant.slice(0, suggestionCount);
  const slip = editDistance(norm(input), norm(spelt)) <= 1;
  if (slip) return [spelt, ...meant].slice(0, suggestionCount);
  return meant.length > 0 ? meant.slice(0, suggestionCount) : [spelt];
}

/**
 * What an unknown topic most likely meant, best first (at most three): the topics of its subject that mean
 * the same (`order.create` → order.placed), and the closest spelling (`payment.captur` → payment.captured).
 */
export const suggestTopics = (input: string) => suggest(input, topics) as Topic[];

/** The same for a subscription pattern, which may also mean `*` or a `<category>.*`. */
export const suggestPatterns = (input: string): string[] =>
  suggest(input, [...topics, ...categories.map((c) => `${c}.*`)]);

/** The best suggestion for an unknown topic, or undefined. */
export const suggestTopic = (input: string): Topic | undefined => suggestTopics(input)[0];

/** The best suggestion for an unknown subscription pattern, or undefined. */
export const suggestPattern = (input: string): string | undefined => suggestPatterns(input)[0];

/** " Did you mean X?" (or "X or Y", "X, Y or Z"), or nothing, to end a message with. */
export function didYouMean(suggestions: string | readonly string[] | undefined): string {
  const list = typeof suggestions === 'string' ? [suggestions] : [...(suggestions ?? [])];
  if (list.length === 0) return '';
  return ` Did you mean ${list.length === 1 ? list[0] : `${list.slice(0, -1).join(', ')} or ${list.at(-1)}`}?`;
}
