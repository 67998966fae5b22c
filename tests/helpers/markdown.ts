// Just enough Markdown for the docs tests: fenced blocks, headings and their GitHub anchors, and links.

/** The lines of a Markdown text outside fenced code blocks (fences may be indented, as in list items). */
function proseLines(markdown: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    } else if (marker) fence = marker;
    else lines.push(line);
  }
  return lines;
}

/** A heading's text as rendered: inline code, links and emphasis reduced to their text. */
const renderedText = (heading: string) =>
  heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__|\*|_)(\S(?:.*?\S)?)\1/g, '$2');

/** GitHub's anchor for a heading (github-slugger): lower case, punctuation dropped, each space a hyphen. */
export const slug = (heading: string) =>
  renderedText(heading)
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');

/** Every anchor a Markdown file offers, with GitHub's -1, -2 … for repeated headings. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line)?.[1];
    if (!heading) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count ? `${base}-${count}` : base);
  }
  return out;
}

/** The targets of every inline link and image outside code (fenced blocks and code spans, which may wrap). */
export function linkTargets(markdown: string): string[] {
  const prose = proseLines(markdown)
    .join('\n')
    .replace(/`[^`]+`/g, '``');
  return [...prose.matchAll(/!?\[(?:[^\]]|\][^(])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
}

/** The fenced code blocks of one language, in order. */
export function codeBlocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);
}
