// Every relative link and anchor in README.md and docs/**/*.md leads somewhere: a moved section or a renamed
// heading fails here, not in a reader's browser.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/shared/node/package-root.ts';
import { readDoc } from '../helpers/docs.ts';
import { anchors, linkTargets, slug } from '../helpers/markdown.ts';

const root = packageRoot();
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f.split(sep).join('/')}`),
];

/** What is wrong with one link of one file, or undefined when it resolves. */
function problem(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto: … are not this test's business
  const [path, anchor] = target.split('#', 2) as [string, string | undefined];
  const resolved = path ? normalize(join(dirname(file), decodeURIComponent(path))) : file;
  if (resolved.startsWith('..')) return `${target} leaves the repository`;
  if (!existsSync(join(root, resolved))) return `${target}: no ${resolved}`;
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith('.md') || statSync(join(root, resolved)).isDirectory())
    return `${target}: an anchor into a file that is not Markdown`;
  return anchors(readDoc(resolved)).has(anchor) ? undefined : `${target}: no heading "${anchor}" in ${resolved}`;
}

test('every relative link and anchor in README.md and docs/ resolves', () => {
  assert.ok(docs.length > 5, `found ${docs.join(', ')}`);
  const broken = docs.flatMap((file) =>
    linkTargets(readDoc(file))
      .map((t) => problem(file, t))
      .filter(Boolean)
      .map((p) => `${file}: ${p}`),
  );
  assert.deepEqual(broken, []);
});

test('every page in docs/ is reachable from the README', () => {
  const linked = new Set<string>();
  const visit = (file: string) => {
    if (linked.has(file)) return;
    linked.add(file);
    for (const target of linkTargets(readDoc(file))) {
      const path = target.split('#')[0];
      if (!path.endsWith('.md') || /^[a-z]+:/i.test(path)) continue;
      const resolved = relative('.', normalize(join(dirname(file), path)));
      if (existsSync(join(root, resolved))) visit(resolved);
    }
  };
  visit('README.md');
  assert.deepEqual(
    docs.filter((d) => !linked.has(d)),
    [],
  );
});

test('anchors are made the way GitHub makes them', () => {
  assert.equal(
    slug('One minute: token → endpoint → delivery → inspector'),
    'one-minute-token--endpoint--delivery--inspector',
  );
  assert.equal(
    slug('Several engines: `--workers` and several machines'),
    'several-engines---workers-and-several-machines',
  );
  assert.equal(slug('Chaos: duplicates, reordering, delays'), 'chaos-duplicates-reordering-delays');
  assert.equal(slug('`sandbay dlq replay`'), 'sandbay-dlq-replay');
  assert.deepEqual([...anchors('# A\n```sh\n# not a heading\n```\n## A\n')], ['a', 'a-1']);
});

test('a broken link or anchor is reported', () => {
  assert.match(problem('README.md', 'docs/nowhere.md') ?? '', /no docs\/nowhere\.md/);
  assert.match(problem('README.md', 'docs/api.md#no-such-heading') ?? '', /no heading "no-such-heading"/);
  assert.match(problem('docs/api.md', '#no-such-heading') ?? '', /no heading/);
  assert.equal(problem('docs/api.md', '../README.md#set-up-two-commands'), undefined);
  assert.equal(problem('docs/api.md', 'https://example.com/#anything'), undefined);
});
