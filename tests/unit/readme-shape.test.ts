// The README is a first screen that sends the reader on: short, with a table of contents, the facts a
// newcomer must not miss about a shared server linked to the page that explains them; and the user docs
// speak of the product as it is, not of its history (that lives in docs/decisions/).
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/shared/node/package-root.ts';
import { readDoc } from '../helpers/docs.ts';
import { linkTargets } from '../helpers/markdown.ts';

const readme = readDoc('README.md');

test('the README fits a first screen and opens with a table of contents', () => {
  const lines = readme.split('\n').length;
  assert.ok(lines <= 200, `README.md has ${lines} lines (at most 200: the rest belongs in docs/)`);
  const contents = readme.slice(
    readme.indexOf('\n## Contents\n'),
    readme.indexOf('\n## ', readme.indexOf('\n## Contents\n') + 1),
  );
  assert.ok(readme.includes('\n## Contents\n'), 'a Contents section');
  for (const page of [
    'receivers',
    'inspector',
    'api',
    'cli',
    'portable',
    'team-mode',
    'performance',
    'development',
    'decisions/README',
  ]) {
    assert.ok(
      linkTargets(contents).some((t) => t.startsWith(`docs/${page}.md`)),
      `the contents link docs/${page}.md`,
    );
  }
});

test('the README says what changes on a shared server, each with a link to where it is explained', () => {
  const shared = readme.slice(readme.indexOf('\n## Your laptop, or a server you share\n'));
  assert.ok(shared.length > 100, 'a section on sharing a server');
  const says = (fact: RegExp, link: string) => {
    assert.match(shared, fact);
    assert.ok(linkTargets(shared).includes(link), `links ${link}`);
  };
  says(
    /creates each teammate's sandbox with\s+`sandbay token --new --json`[\s\S]*unless the server runs with `--open-sandbox-creation`/,
    'docs/team-mode.md#who-creates-sandboxes',
  );
  says(
    /reach only public receivers, plus the address blocks the operator\s+allows with `--allow-receivers`/,
    'docs/team-mode.md#what-a-shared-server-may-reach-the-outbound-policy',
  );
  says(
    /only a\s+browser signed in to the sandbox can approve an OAuth consent/,
    'docs/team-mode.md#oauth-consent-on-a-shared-server',
  );
  says(/a client secret is shown once[\s\S]*confidential client always sends it/, 'docs/api.md#conventions');
  assert.match(readme, /consent page approves with one click/, 'and what a laptop does instead');
});

test('user docs carry no project history (issue numbers, "previously", "no longer", "used to")', () => {
  // docs/decisions/ records why things are as they are; cli.md is generated from the CLI's own text.
  const pages = [
    'README.md',
    ...readdirSync(join(packageRoot(), 'docs'), { recursive: true, encoding: 'utf8' })
      .map((f) => f.split(sep).join('/'))
      .filter((f) => f.endsWith('.md') && !f.startsWith('decisions/'))
      .map((f) => `docs/${f}`),
  ];
  const found = pages.flatMap((page) =>
    readDoc(page)
      .split('\n')
      .flatMap((line, i) =>
        /\bissues? #?\d+|\bpreviously\b|\bno longer\b|\bused to\b|\bformerly\b/i.test(line)
          ? [`${page}:${i + 1}: ${line.trim()}`]
          : [],
      ),
  );
  assert.deepEqual(found, []);
});
