import { didYouMean, suggestPatterns } from '../shared/suggest.ts';
import { isValidPattern, patternMatches, topics as allTopics, type Topic } from '../shared/topics.ts';
import { CliError } from './errors.ts';
import { withScheme } from './options.ts';

/** One forwarding route of `listen`: deliveries of these topics go to this URL. */
export interface ListenRoute {
  /** As given (`order.*`), or null for `--forward-to`'s one route. */
  name: string | null;
  url: string;
  /** What its temporary endpoint subscribes to: the pattern itself, or the topics earlier routes left it. */
  subscription: string[];
}

/** `--forward 'order.*=http://localhost:3000/orders'`: a topic pattern and a URL. */
function parseRoute(value: string): { pattern: string; url: string } {
  const at = value.indexOf('=');
  if (at <= 0 || at === value.length - 1)
    throw new CliError(`--forward takes PATTERN=URL, e.g. 'order.*=http://localhost:3000/orders', not ${value}`);
  const pattern = value.slice(0, at).trim();
  if (!isValidPattern(pattern))
    throw new CliError(
      `--forward ${value}: unknown topic ${pattern}.${didYouMean(suggestPatterns(pattern))} \`sandbay topics\` lists all 33.`,
    );
  return { pattern, url: withScheme(value.slice(at + 1).trim()) };
}

/**
 * The routes of a `listen`, first match wins (as Hookdeck's and most routers' rules do): each route's
 * endpoint subscribes only to the topics no earlier route took, within `--topics`. A route left with
 * nothing is a mistake worth saying, not a silent no-op.
 */
export function listenRoutes(forwards: string[], forwardTo: string | undefined, filter: string[]): ListenRoute[] {
  if (forwardTo && forwards.length > 0)
    throw new CliError('--forward-to is one route; with several, use --forward only');
  const given = forwardTo
    ? [{ name: null, pattern: '*', url: withScheme(forwardTo) }]
    : forwards.map((f) => {
        const route = parseRoute(f);
        return { name: route.pattern, ...route };
      });
  const inFilter = (t: Topic) => filter.some((p) => patternMatches(p, t));
  const taken = new Set<Topic>();
  return given.map(({ name, pattern, url }) => {
    const own = allTopics.filter((t) => inFilter(t) && patternMatches(pattern, t) && !taken.has(t));
    if (own.length === 0)
      throw new CliError(
        `--forward ${pattern}=${url} gets no topic: ${taken.size > 0 ? 'earlier routes take all of its topics' : 'none is in --topics'}`,
      );
    const whole = allTopics.filter((t) => patternMatches(pattern, t)).every((t) => own.includes(t));
    own.forEach((t) => taken.add(t));
    const filtered = filter.join(',') !== '*';
    return { name, url, subscription: whole && !filtered ? [pattern] : forwardTo && filtered ? filter : own };
  });
}
