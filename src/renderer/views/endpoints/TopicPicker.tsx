import { useState } from 'react';
import { suggestPatterns } from '../../../shared/suggest.ts';
import { categories, patternMatches, topicCategories, topics, type TopicCategory } from '../../../shared/topics.ts';

/** Subscription patterns from a set of picked topics: `*`, whole categories as `<category>.*`, else single topics. */
export function patternsOf(picked: ReadonlySet<string>): string[] {
  if (topics.every((t) => picked.has(t))) return ['*'];
  return categories.flatMap((c) => {
    const list: readonly string[] = topicCategories[c];
    if (list.every((t) => picked.has(t))) return [`${c}.*`];
    return list.filter((t) => picked.has(t));
  });
}

/** The topics a subscription pattern covers (the find box offers topics and `<category>.*`), in the picker's order. */
const topicsOf = (pattern: string): readonly string[] => topics.filter((t) => patternMatches(pattern, t));

/**
 * Narrows the picker to the topics whose name holds the text typed; a name no topic holds gets the
 * API's "did you mean" (closest spelling, and the topics of its subject that mean the same), one click each.
 */
function TopicFind({
  find,
  onFind,
  onPick,
}: {
  find: string;
  onFind: (text: string) => void;
  onPick: (pattern: string) => void;
}) {
  const wanted = find.trim();
  const unknown = wanted !== '' && !topics.some((t) => t.includes(wanted.toLowerCase()));
  const suggestions = unknown ? suggestPatterns(wanted) : [];
  return (
    <div className="topic-find">
      <input
        type="search"
        aria-label="Find a topic"
        placeholder="Find a topic: order.placed, payment.captured…"
        value={find}
        onChange={(e) => onFind(e.target.value)}
      />
      {unknown && (
        <span className="muted" role="status">
          No topic is called <code>{wanted}</code>.{suggestions.length > 0 && ' Did you mean '}
          {suggestions.map((s) => (
            <button key={s} type="button" className="small" onClick={() => onPick(s)}>
              {s}
            </button>
          ))}
          {suggestions.length > 0 && '?'}
        </span>
      )}
    </div>
  );
}

/** The topic picker: all 33 topics, by their 10 categories; a category or everything at once; a find box. */
export function TopicPicker({
  picked,
  onChange,
  error,
}: {
  picked: ReadonlySet<string>;
  onChange: (next: Set<string>) => void;
  error?: string | null;
}) {
  const [find, setFind] = useState('');
  const shown = (t: string) => t.includes(find.trim().toLowerCase());
  const all = topics.every((t) => picked.has(t));
  const toggle = (names: readonly string[], on: boolean) => {
    const next = new Set(picked);
    for (const n of names)
      if (on) next.add(n);
      else next.delete(n);
    onChange(next);
  };
  const categoryState = (c: TopicCategory) => {
    const n = topicCategories[c].filter((t) => picked.has(t)).length;
    return { checked: n === topicCategories[c].length, mixed: n > 0 && n < topicCategories[c].length };
  };
  return (
    <fieldset className="topic-picker" aria-describedby={error ? 'topics-error' : undefined}>
      <legend className="label">
        Topics{' '}
        <span className="faint">
          ({picked.size} of {topics.length})
        </span>
      </legend>
      <label className="row nowrap all-topics">
        <input type="checkbox" checked={all} onChange={(e) => toggle(topics, e.target.checked)} />{' '}
        <strong>All topics</strong> <code className="faint">*</code>
      </label>
      <TopicFind
        find={find}
        onFind={setFind}
        onPick={(pattern) => {
          toggle(topicsOf(pattern), true);
          setFind('');
        }}
      />
      <div className="categories">
        {categories
          .filter((c) => topicCategories[c].some(shown))
          .map((c) => {
            const state = categoryState(c);
            return (
              <fieldset key={c} className="category">
                <legend>
                  <label className="row nowrap">
                    <input
                      type="checkbox"
                      checked={state.checked}
                      ref={(el) => void (el && (el.indeterminate = state.mixed))}
                      onChange={(e) => toggle(topicCategories[c], e.target.checked)}
                      aria-label={`All ${c} topics`}
                    />
                    <strong>{c}</strong> <code className="faint">{c}.*</code>
                  </label>
                </legend>
                {topicCategories[c].filter(shown).map((t) => (
                  <label key={t} className="row nowrap topic">
                    <input type="checkbox" checked={picked.has(t)} onChange={(e) => toggle([t], e.target.checked)} />{' '}
                    <span className="mono">{t}</span>
                  </label>
                ))}
              </fieldset>
            );
          })}
      </div>
      {error && (
        <span id="topics-error" className="field-error" role="alert">
          {error}
        </span>
      )}
    </fieldset>
  );
}
