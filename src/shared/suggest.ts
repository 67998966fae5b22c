import { categories, topics } from './topics.ts';

/** Edit distance with adjacent transpositions counted as one edit (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[a.length][b.length];
}

/**
 * The candidate a typo most likely meant, or undefined when none is close: case and `_`/`-`
 * versus `.` are ignored, and at most a third of the input may differ (as git and commander judge).
 */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[-_\s/]/g, '.');
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

/** What an unknown topic most likely meant: one of the 33. */
export const suggestTopic = (input: string) => closest(input, topics);

/** What an unknown subscription pattern most likely meant: a topic, `*` or `<category>.*`. */
export const suggestPattern = (input: string) => closest(input, [...topics, ...categories.map((c) => `${c}.*`)]);

/** " Did you mean X?" or nothing, to end a message with. */
export const didYouMean = (suggestion: string | undefined) => (suggestion ? ` Did you mean ${suggestion}?` : '');
